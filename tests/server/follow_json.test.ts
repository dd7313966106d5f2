/**
 * `exec --follow --json` and `read --follow --json` stream NDJSON: one JSON
 * object a line, each written as it happens, ending with a line that says
 * how it ended; Ctrl+C and a closed pipe end them cleanly. Through the built
 * binary when it is current, and always through main.ts on the tests'
 * runtime (so both runtimes' signal and pipe handling are run).
 * @module
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, it } from "../harness.ts";
import { BINARY_CURRENT, type Build, inWorld, termbridgeFor, type World } from "./_kit.ts";

const BUILDS: Build[] = BINARY_CURRENT ? ["binary", "source"] : ["source"];

/** A running termbridge whose stdout is read line by line as it comes. */
class Streaming {
  readonly child: ReturnType<typeof runtime.spawnPiped>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #decoder = new TextDecoder();
  #buffer = "";
  #done = false;

  constructor(world: World, args: string[]) {
    this.child = runtime.spawnPiped({
      argv: [...termbridgeFor(world.build), ...args],
      cwd: world.dir,
      env: world.env,
      stderr: "pipe",
    });
    void this.child.stdin.getWriter().close();
    this.#reader = this.child.stdout.getReader();
  }

  /** The next whole line (parsed as JSON: every line must be one object), or undefined at the end. */
  async next(): Promise<Record<string, unknown> | undefined> {
    while (!this.#buffer.includes("\n")) {
      if (this.#done) {
        assert.equal(this.#buffer, "", "nothing after the last line");
        return undefined;
      }
      const { value, done } = await this.#reader.read();
      if (done) this.#done = true;
      else this.#buffer += this.#decoder.decode(value, { stream: true });
    }
    const end = this.#buffer.indexOf("\n");
    const line = this.#buffer.slice(0, end);
    this.#buffer = this.#buffer.slice(end + 1);
    return JSON.parse(line);
  }

  /** Reads to the end; resolves with the remaining lines, stderr and the exit status. */
  async finish() {
    const lines: Record<string, unknown>[] = [];
    for (let line = await this.next(); line !== undefined; line = await this.next()) {
      lines.push(line);
    }
    this.#reader.releaseLock();
    const [stderr, status] = await Promise.all([
      new Response(this.child.stderr!).text(),
      this.child.exited,
    ]);
    return { lines, stderr, status };
  }
}

for (const build of BUILDS) {
  describe(`session server: --follow --json streams NDJSON (${build})`, () => {
    it("exec: each output line as it comes, then the result without the output, the command's status", () =>
      inWorld(build, async (world) => {
        await world.ok(["new", "s"]);
        const go = join(world.dir, "go");
        const command =
          `echo one; while [ ! -e ${go} ]; do sleep 0.05; done; echo two; printf tail; sh -c 'exit 3'`;
        const stream = new Streaming(world, ["exec", "s", "--follow", "--json", command]);
        // "two" comes only once the test has seen "one": without streaming this never ends.
        assert.deepEqual(await stream.next(), { event: "output", text: "one\n" });
        writeFileSync(go, "");
        const { lines, stderr, status } = await stream.finish();
        assert.equal(status.exitCode, 3, stderr);
        const outputs = lines.filter((line) => line.event === "output").map((line) => line.text);
        assert.equal(["one\n", ...outputs].join(""), "one\ntwo\ntail");
        const result = lines.at(-1)!;
        assert.equal(result.event, "result");
        assert.equal(result.exitCode, 3);
        assert.equal(result.status, "completed");
        assert.equal(result.command, command);
        assert.equal("output" in result, false, "the output came in the output events");
      }));

    it("read: chunks as they come, then the program's exit status; a closed session ends it too", () =>
      inWorld(build, async (world) => {
        await world.ok(["new", "r", "--", "sh", "-c", "read a; echo tick-$a; read b; exit 5"]);
        const stream = new Streaming(world, ["read", "r", "--follow", "--json"]);
        await world.ok(["type", "r", "first\n"]);
        let seen = "";
        while (!seen.includes("tick-first\n")) {
          const line = await stream.next();
          assert.equal(line?.event, "output", JSON.stringify(line));
          assert.equal(typeof line!.totalBytes, "number");
          seen += line!.text;
        }
        await world.ok(["type", "r", "second\n"]);
        const { lines, stderr, status } = await stream.finish();
        assert.equal(status.exitCode, 0, stderr);
        assert.deepEqual(lines.at(-1), { event: "exit", exitCode: 5, signal: null });

        await world.ok(["new", "c", "--", "sh", "-c", "echo here; exec sleep 600"]);
        const closing = new Streaming(world, ["read", "c", "--follow", "--json"]);
        assert.equal((await closing.next())?.event, "output");
        await world.ok(["close", "c"]);
        const closed = await closing.finish();
        assert.equal(closed.status.exitCode, 0, closed.stderr);
        assert.deepEqual(closed.lines.at(-1), { event: "closed" });
      }));

    it("Ctrl+C ends a follow after a whole line (130); a reader that leaves ends it quietly (141)", () =>
      inWorld(build, async (world) => {
        const ticker = "read go; while :; do echo tick; sleep 0.05; done";
        await world.ok(["new", "t", "--", "sh", "-c", ticker]);
        await world.ok(["type", "t", "go\n"]);
        const reading = new Streaming(world, ["read", "t", "--follow", "--json"]);
        assert.equal((await reading.next())?.event, "output");
        runtime.kill(reading.child.pid, "SIGINT");
        const read = await reading.finish(); // Every line it wrote parses whole.
        assert.equal(read.status.exitCode, 130, read.stderr);
        assert.equal(read.stderr, "");

        const go = join(world.dir, "go");
        await world.ok(["new", "t2"]);
        const exec = new Streaming(world, [
          "exec",
          "t2",
          "--follow",
          "--json",
          `echo first; while [ ! -e ${go} ]; do sleep 0.05; done; echo later`,
        ]);
        assert.deepEqual(await exec.next(), { event: "output", text: "first\n" });
        runtime.kill(exec.child.pid, "SIGINT");
        const stopped = await exec.finish();
        assert.equal(stopped.status.exitCode, 130, stopped.stderr);
        assert.match(stopped.stderr, /stopped following; the command goes on in session "t2"/);
        writeFileSync(go, "");
        await world.ok(["wait", "t2", "text", "later"]);

        // `| head -n 1`: the next write finds the pipe closed; termbridge ends as SIGPIPE would.
        const tb = termbridgeFor(world.build).map((word) => `'${word}'`).join(" ");
        const piped = runtime.spawnPiped({
          argv: [
            "bash",
            "-c",
            `${tb} read t --follow --json | head -n 1; echo "status=\${PIPESTATUS[0]}"`,
          ],
          cwd: world.dir,
          env: world.env,
          stderr: "pipe",
        });
        await piped.stdin.close();
        const [stdout, stderr] = await Promise.all([
          new Response(piped.stdout).text(),
          new Response(piped.stderr!).text(),
          piped.exited,
        ]);
        const [first, last] = stdout.trim().split("\n");
        assert.equal(JSON.parse(first).event, "output");
        assert.equal(last, "status=141");
        assert.equal(stderr, "");
      }));
  });
}
