/**
 * The browser dashboard in Firefox (Debian's firefox-esr over WebDriver BiDi,
 * tests/web/_firefox.ts), served by the built binary's session server: the
 * ticket link, the tiles, `type`'s text painted in the terminal view, a
 * watcher's keys refused, and a driver's keys reaching the session.
 */

import assert from "node:assert/strict";
import { describe, itWhen } from "../harness.ts";
import { BINARY_CURRENT, inWorld, type World } from "../server/_kit.ts";
import { NO_BINARY } from "../built_binary.ts";
import { waitForScreen, webLink } from "./_browser.ts";
import { FIREFOX, Firefox, type FirefoxPage, NO_FIREFOX } from "./_firefox.ts";

const READY = BINARY_CURRENT && FIREFOX !== undefined;
const WHY = !BINARY_CURRENT ? NO_BINARY : NO_FIREFOX;

/** The page's hooks (lib/web/page/app.js), as the functions run in the page see them. */
interface Hooks {
  termbridge: {
    state: { me: string | null; view: { id: number | null } | null };
    lines(): string[];
  };
}

/** Waits until the open terminal shows `text` on a line, in xterm's buffer and painted rows. */
async function waitForPainted(page: FirefoxPage, text: string): Promise<void> {
  await page.waitFor(
    `"${text}" in the terminal view`,
    (text: string) =>
      (globalThis as unknown as Hooks).termbridge.lines().some((line) => line.includes(text)) &&
      (document.querySelector("#screen .xterm-rows")?.textContent ?? "").includes(text),
    text,
  );
}

/** Waits until a line of the open terminal matches `pattern`. */
function waitForLine(page: FirefoxPage, pattern: RegExp, timeoutMs = 30_000): Promise<void> {
  return page.waitFor(
    { what: `a line matching ${pattern} in the terminal view`, timeoutMs },
    (source: string, flags: string) => {
      const regexp = new RegExp(source, flags);
      return (globalThis as unknown as Hooks).termbridge.lines().some((line) => regexp.test(line));
    },
    pattern.source,
    pattern.flags,
  );
}

/** The text of the element with id `id`. */
function textOf(page: FirefoxPage, id: string): Promise<string> {
  return page.evaluate((id: string) => document.getElementById(id)?.textContent ?? "", id);
}

/** A browser test: skipped, saying why, without a current binary or firefox-esr. */
function test(name: string, fn: () => Promise<void>): void {
  itWhen(READY, name, fn, WHY);
}

/**
 * Runs `body` with a world served by the binary and Firefox, both closed afterwards;
 * then checks the page logged nothing (no error, no refusal by its CSP, no warning).
 */
async function withFirefox(body: (world: World, firefox: Firefox) => Promise<void>) {
  await inWorld("binary", async (world) => {
    const firefox = await Firefox.launch();
    try {
      await body(world, firefox);
      assert.deepEqual(firefox.logs, [], "what the page logged in Firefox");
    } finally {
      await firefox.close();
    }
  });
}

/** Opens a `termbridge web` link (ticket, cookie, sent on to `/`) and waits for the hello. */
async function openDashboard(world: World, firefox: Firefox): Promise<FirefoxPage> {
  const page = await firefox.page();
  const link = await webLink(world);
  const landed = await page.goto(link);
  // The ticket was traded for the cookie and the page sent on to `/`: the ticket is gone.
  assert.equal(landed, `${new URL(link).origin}/`);
  assert.equal(await page.evaluate(() => location.href), landed);
  await page.waitFor(
    "the page's hello",
    () => (globalThis as unknown as Hooks).termbridge.state.me !== null,
  );
  return page;
}

/** Waits until the open view has its session's snapshot. */
function waitForView(page: FirefoxPage, name: string): Promise<void> {
  return page.waitFor(
    `${name}'s terminal view`,
    () => (globalThis as unknown as Hooks).termbridge.state.view?.id != null,
  );
}

/** Clicks session `name`'s tile and waits for its terminal view. */
async function openSession(page: FirefoxPage, name: string): Promise<void> {
  await page.click(`.tile[data-name="${name}"]`);
  await waitForView(page, name);
}

describe("web dashboard (firefox)", () => {
  test(
    "web: in Firefox the ticket link opens the tiles; `type` paints; a driver's keys reach the session",
    async () => {
      await withFirefox(async (world, firefox) => {
        await world.ok(["new", "alpha", "--", "bash", "--norc", "--noprofile"]);
        const page = await openDashboard(world, firefox);
        await page.waitFor("alpha's tile", () => !!document.querySelector('[data-name="alpha"]'));
        assert.match(
          await page.evaluate(() =>
            document.querySelector('.tile[data-name="alpha"] .meta')?.textContent ?? ""
          ),
          /bash --norc/,
        );
        // A session made after the page opened appears too.
        await world.ok(["new", "beta"]);
        await page.waitFor("beta's tile", () => !!document.querySelector('[data-name="beta"]'));

        await openSession(page, "alpha");
        await world.ok(["type", "alpha", "echo typed-from-the-cli\n"]);
        await waitForPainted(page, "echo typed-from-the-cli");

        // Watching: the keys reach the page's terminal, which keeps them.
        assert.equal(await textOf(page, "driver"), "watching");
        await page.type("echo from-a-watcher\n");
        await page.waitFor(
          "the watching-only notice",
          () => document.getElementById("notice")!.textContent!.includes("Watching only"),
        );
        await page.click("#take");
        await page.waitFor(
          "the lease",
          () => document.getElementById("driver")!.textContent === "you drive it",
        );
        await page.type("echo fire$((6*7))fox\n");
        const screen = await waitForScreen(
          world,
          "alpha",
          (text) => /^fire42fox$/m.test(text),
          "the line Firefox typed to run",
        );
        assert.doesNotMatch(screen, /from-a-watcher/);
        // The page shows what its keys did, too.
        await waitForPainted(page, "fire42fox");
      });
    },
  );

  test("web: in Firefox a reload and a dropped socket during a flood lose and repeat nothing", async () => {
    await withFirefox(async (world, firefox) => {
      await world.ok(["new", "flood", "--", "bash", "--norc", "--noprofile"]);
      const page = await openDashboard(world, firefox);
      await page.waitFor("flood's tile", () => !!document.querySelector('[data-name="flood"]'));
      await openSession(page, "flood");
      await world.ok([
        "type",
        "flood",
        "for i in $(seq 1 20000); do echo n$i; (( i % 100 )) || sleep 0.03; done; echo flood-done\n",
      ]);
      await waitForLine(page, /^n2\d\d\d$/);
      await page.reload();
      await waitForView(page, "flood");
      await waitForLine(page, /^n(1\d|[5-9])\d\d\d$/);
      // The socket drops: the page keeps its terminal and asks to go on from its offset.
      await page.evaluate(() =>
        (globalThis as unknown as { termbridge: { state: { socket: WebSocket } } }).termbridge
          .state.socket.close()
      );
      await waitForLine(page, /^flood-done$/, 45_000);
      const numbers = (await page.evaluate(() =>
        (globalThis as unknown as Hooks).termbridge.lines()
      ))
        .flatMap((line) => {
          const match = /^n(\d+)$/.exec(line);
          return match ? [Number(match[1])] : [];
        });
      assert.ok(numbers.length > 500, `only ${numbers.length} numbered lines`);
      assert.equal(numbers[numbers.length - 1], 20000);
      const broken = numbers.findIndex((n, i) => i > 0 && n !== numbers[i - 1] + 1);
      assert.equal(
        broken,
        -1,
        `the lines jump from ${numbers[broken - 1]} to ${numbers[broken]} (a gap or a repeat)`,
      );
    });
  });
});
