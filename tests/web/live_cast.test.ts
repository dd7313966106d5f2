/**
 * A live session as an asciicast v2 stream (`web --cast NAME`, or
 * /api/sessions/NAME/asciicast with the page's cookie), read by real HTTP
 * clients (fetch, asciinema) while the built binary's session prints; and
 * the stream's flow control on a real terminal (a reader that stops reading
 * gets a fresh picture, not a queue).
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, it, itWhen } from "../harness.ts";
import { NO_BINARY } from "../built_binary.ts";
import { BINARY_CURRENT, inWorld, type World } from "../server/_kit.ts";
import { waitForScreen } from "./_browser.ts";
import { Terminal } from "../../lib/terminal/terminal.ts";
import { liveCast } from "../../lib/sessions/live_cast.ts";

const ASCIINEMA = spawnSync("asciinema", ["--version"]).status === 0 &&
  spawnSync("curl", ["--version"]).status === 0;

/** Reads an asciicast stream line by line. */
class CastReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  /** Every event read so far (after the header). */
  readonly events: [number, string, string][] = [];

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next line as JSON, or null at the end of the stream. */
  async next(): Promise<unknown> {
    for (;;) {
      const at = this.#buffer.indexOf("\n");
      if (at !== -1) {
        const line = this.#buffer.slice(0, at);
        this.#buffer = this.#buffer.slice(at + 1);
        return JSON.parse(line);
      }
      const { value, done } = await this.#reader.read();
      if (done) return null;
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  /** Reads events until one satisfies `check`; fails at the end of the stream. */
  async until(check: (event: [number, string, string]) => boolean, what: string) {
    for (;;) {
      const event = await this.next() as [number, string, string] | null;
      if (event === null) throw new Error(`The stream ended before ${what}`);
      this.events.push(event);
      if (check(event)) return event;
    }
  }

  cancel(): Promise<void> {
    return this.#reader.cancel().catch(() => {});
  }
}

/** Polls the asynchronous `check` until it holds. */
async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = performance.now() + timeoutMs;
  while (!await check()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `termbridge web --cast NAME`'s link. */
async function castLink(world: World, name: string): Promise<string> {
  const link = (await world.ok(["web", "--cast", name])).trim();
  assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/api\/sessions\/[^/]+\/asciicast\?ticket=/);
  return link;
}

/** The output events' text joined. */
function outputText(events: [number, string, string][]): string {
  return events.filter((e) => e[1] === "o").map((e) => e[2]).join("");
}

describe("live asciicast", () => {
  itWhen(
    BINARY_CURRENT,
    "web --cast: the screen, then output as it comes with its times, resizes, and the end",
    async () => {
      await inWorld("binary", async (world) => {
        await world.ok(["new", "s", "--size", "100x30"]);
        await world.ok(["type", "s", "echo before-the-stream\n"]);
        // `type` returns once the line is sent: the screen has it once the shell printed it.
        await world.ok(["wait", "s", "regex", "^before-the-stream$"]);
        const link = await castLink(world, "s");
        const response = await fetch(link);
        assert.equal(response.status, 200);
        assert.match(response.headers.get("content-type") ?? "", /^application\/x-asciicast/);
        const cast = new CastReader(response.body!);
        try {
          const header = await cast.next() as Record<string, unknown>;
          assert.equal(header.version, 2);
          assert.equal(header.width, 100);
          assert.equal(header.height, 30);
          // The first event is the screen as it was: what came before is in it.
          const first = await cast.next() as [number, string, string];
          assert.equal(first[0], 0);
          assert.equal(first[1], "o");
          assert.match(first[2], /before-the-stream/);
          // Output as it comes: three lines 0.4 s apart, with times 0.4 s apart.
          await world.ok([
            "type",
            "s",
            "for i in 1 2 3; do echo mark-$i-$((i*7)); sleep 0.4; done\n",
          ]);
          const times: number[] = [];
          for (const n of [1, 2, 3]) {
            const event = await cast.until(
              (e) => e[1] === "o" && new RegExp(`mark-${n}-${n * 7}`).test(e[2]),
              `mark-${n}`,
            );
            times.push(event[0]);
          }
          assert.ok(times[1] - times[0] >= 0.3 && times[1] - times[0] < 2, `times ${times}`);
          assert.ok(times[2] - times[1] >= 0.3 && times[2] - times[1] < 2, `times ${times}`);
          const stamps = cast.events.map((e) => e[0]);
          assert.deepEqual(stamps, [...stamps].sort((a, b) => a - b), "times never go back");
          // A resize is an "r" event.
          await world.ok(["resize", "s", "90x20"]);
          await cast.until((e) => e[1] === "r" && e[2] === "90x20", "the resize");
          // The stream ends with the program.
          await world.ok(["type", "s", "exit\n"]);
          assert.equal(
            await cast.next().then(function drain(event): unknown {
              return event === null ? null : cast.next().then(drain);
            }),
            null,
          );
        } finally {
          await cast.cancel();
        }
      });
    },
    NO_BINARY,
  );

  for (const build of ["binary", "source"] as const) {
    itWhen(
      build === "source" || BINARY_CURRENT,
      `web --cast (${build}): the ticket opens one stream once; no ticket, no cookie: refused; kill-server ends it`,
      async () => {
        await inWorld(build, async (world) => {
          await world.ok(["new", "s"]);
          await world.ok(["new", "other"]);
          const link = await castLink(world, "s");
          const url = new URL(link);
          // A ticket for "s" does not open "other".
          const elsewhere = await fetch(
            `${url.origin}/api/sessions/other/asciicast${url.search}`,
          );
          assert.equal(elsewhere.status, 401);
          await elsewhere.text();
          // Nor the page (it is no page ticket).
          const page = await fetch(`${url.origin}/${url.search}`, { redirect: "manual" });
          assert.equal(page.status, 401);
          await page.text();
          const fresh = await castLink(world, "s");
          const first = await fetch(fresh);
          assert.equal(first.status, 200);
          await first.body!.cancel();
          const again = await fetch(fresh);
          assert.equal(again.status, 401);
          assert.match(await again.text(), /used already/);
          const bare = await fetch(`${url.origin}/api/sessions/s/asciicast`);
          assert.equal(bare.status, 401);
          await bare.text();
          // An unknown session gets no link, and the exit status of an unknown session.
          const unknown = await world.tb(["web", "--cast", "nope"]);
          assert.equal(unknown.code, 121);
          assert.match(unknown.stderr, /Cannot stream "nope": No session is called "nope"/);
          // With the page's cookie, the same path streams.
          const entry = await fetch((await world.ok(["web"])).trim(), { redirect: "manual" });
          const cookie = (entry.headers.get("set-cookie") ?? "").split(";")[0];
          await entry.text();
          const withCookie = await fetch(`${url.origin}/api/sessions/s/asciicast`, {
            headers: { cookie },
          });
          assert.equal(withCookie.status, 200);
          const cast = new CastReader(withCookie.body!);
          assert.equal((await cast.next() as { version: number }).version, 2);
          // Stopping the server ends the stream: at its end, not cut (see the test below).
          await world.ok(["kill-server"]);
          while (await cast.next() !== null) {
            // What was left in the stream.
          }
        });
      },
      NO_BINARY,
    );
  }

  itWhen(
    BINARY_CURRENT && ASCIINEMA,
    "web --cast: asciinema cat follows the live stream until the program exits",
    async () => {
      await inWorld("binary", async (world) => {
        await world.ok(["new", "s"]);
        const link = await castLink(world, "s");
        // asciinema cat wants a terminal: it runs in a session of its own. Debian's asciinema
        // 2.2.0 closes an http response before reading it (any URL fails), so curl fetches.
        await world.ok([
          "new",
          "viewer",
          "--",
          "sh",
          "-c",
          'curl -sSN "$1" | asciinema cat -',
          "sh",
          link,
        ]);
        await world.ok(["type", "s", "echo seen-by-$((6*7))-asciinema; exit\n"]);
        await waitForScreen(world, "viewer", (text) => /^seen-by-42-asciinema$/m.test(text), "it");
        // It ends with the program it follows.
        await waitFor(async () => {
          const listed = JSON.parse(await world.ok(["ls", "--json"]));
          const viewer = listed.sessions.find((s: { name: string }) => s.name === "viewer");
          return viewer?.exitStatus?.exitCode === 0;
        }, "asciinema cat to exit with 0");
      });
    },
    !BINARY_CURRENT ? NO_BINARY : "no asciinema or curl; `make tools` installs them",
  );

  it("a reader that stops reading gets a fresh picture, and the stream holds no queue", async () => {
    const terminal = Terminal.spawn({
      argv: ["bash", "--norc", "--noprofile"],
      cols: 80,
      rows: 24,
    });
    const cast = liveCast(terminal, { maxBehind: 64 * 1024 });
    const reader = new CastReader(cast.stream);
    try {
      await reader.next(); // The header.
      await reader.next(); // The first picture.
      // 4 MB while nobody reads: the stream takes at most its buffer and then waits.
      terminal.write("head -c 4000000 /dev/zero | tr '\\0' x; echo; echo flood-$((2*21))-done\r");
      await terminal.waitForText("flood-42-done", 30_000);
      // Pictures instead of the bytes: one may come mid-flood already (a single read of the
      // PTY can be more than maxBehind), the last shows the end.
      await reader.until(
        (e) => e[1] === "o" && e[2].startsWith("\u001bc") && /flood-42-done/.test(e[2]),
        "a fresh picture with the end",
      );
      // Far less than the flood was sent: the bytes stayed in the terminal's log.
      assert.ok(
        outputText(reader.events).length < 1_000_000,
        `${outputText(reader.events).length}`,
      );
    } finally {
      await reader.cancel();
      await terminal.dispose();
    }
  });
});
