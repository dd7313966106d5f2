/**
 * The browser dashboard in a real browser (chromium through playwright-core),
 * served by the built binary's session server: tiles, live output, read-only
 * watching, taking control, two pages with one driver, reload during a flood.
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { describe, itWhen } from "../harness.ts";
import { BINARY_CURRENT, inWorld, type World } from "../server/_kit.ts";
import { NO_BINARY } from "../built_binary.ts";
import {
  CHROMIUM,
  launchBrowser,
  NO_CHROMIUM,
  openDashboard,
  pageLines,
  pageProblems,
  waitForPageText,
  waitForScreen,
} from "./_browser.ts";

const READY = BINARY_CURRENT && CHROMIUM !== undefined;
const WHY = !BINARY_CURRENT ? NO_BINARY : NO_CHROMIUM;

/** A browser test: skipped, saying why, without a current binary or chromium. */
function test(name: string, fn: () => Promise<void>): void {
  itWhen(READY, name, fn, WHY);
}

/** Runs `body` with a world served by the binary and a browser, both closed afterwards. */
async function withBrowser(body: (world: World, browser: Browser) => Promise<void>) {
  await inWorld("binary", async (world) => {
    const browser = await launchBrowser();
    try {
      await body(world, browser);
    } finally {
      await browser.close();
    }
  });
}

/** Opens session `name`'s terminal view and waits for its snapshot. */
async function openSession(page: Page, name: string): Promise<void> {
  await page.click(`.tile[data-name="${name}"]`);
  await page.waitForFunction(
    () =>
      (globalThis as unknown as { termbridge: { state: { view: { id: number | null } | null } } })
        .termbridge.state.view?.id != null,
  );
}

/** Who the page says drives the open session. */
function driverText(page: Page): Promise<string> {
  return page.textContent("#driver").then((text) => text ?? "");
}

describe("web dashboard (chromium)", () => {
  test("web: the page lists the CLI's sessions and shows what `type` types", async () => {
    await withBrowser(async (world, browser) => {
      await world.ok(["new", "alpha"]);
      await world.ok(["new", "beta", "--", "bash", "--norc", "--noprofile"]);
      const page = await openDashboard(browser, world);
      await page.waitForSelector('.tile[data-name="alpha"]');
      await page.waitForSelector('.tile[data-name="beta"]');
      // Sessions made after the page opened appear too.
      await world.ok(["new", "gamma"]);
      await page.waitForSelector('.tile[data-name="gamma"]');
      assert.match(await page.textContent('.tile[data-name="beta"] .meta') ?? "", /bash --norc/);
      // A tile is rebuilt only when its own session changed: alpha's output leaves beta's be.
      const betaPreview = await page.$('.tile[data-name="beta"] pre');
      await world.ok(["type", "alpha", "echo tile-preview-line\n"]);
      await page.waitForSelector('.tile[data-name="alpha"] pre:has-text("tile-preview-line")');
      assert.equal(await betaPreview!.evaluate((node) => node.isConnected), true);
      await openSession(page, "alpha");
      await world.ok(["type", "alpha", "echo typed-from-the-cli"]);
      await waitForPageText(page, /echo typed-from-the-cli/);
      // A dash whose bytes come in two frames (xterm.js 6.0 dropped it: "xy").
      await world.ok(["type", "alpha", "\nprintf 'x\\342\\200'; sleep 0.3; printf '\\224y\\n'\n"]);
      await waitForPageText(page, /^x—y$/);
      // The address bar lost the ticket.
      assert.doesNotMatch(page.url(), /ticket/);
      // Nothing failed on the way: no missing file (a favicon), no CSP refusal, no exception.
      await page.goto(new URL("/", page.url()).href);
      await page.waitForSelector('.tile[data-name="alpha"]');
      await page.waitForLoadState("networkidle");
      assert.deepEqual(pageProblems(page), []);
    });
  });

  test(
    "web: a watching page's keys do not reach the session; after Take control they do",
    async () => {
      await withBrowser(async (world, browser) => {
        mkdirSync(join(world.dir, "config", "termbridge"), { recursive: true });
        writeFileSync(
          join(world.dir, "config", "termbridge", "termbridge.jsonc"),
          '{ "policy": { "deny": ["touch"] } }',
        );
        await world.ok(["new", "s"]);
        const page = await openDashboard(browser, world);
        await openSession(page, "s");
        assert.equal(await driverText(page), "watching");
        // The opened terminal has the keyboard (it was focused while still hidden, in vain),
        // and keeps what it is given.
        await page.keyboard.type("echo from-a-watcher\n");
        await page.waitForFunction(() =>
          document.getElementById("notice")!.textContent!.includes("Watching only")
        );
        // Sent past the page's own guard, straight on the socket: the server refuses it.
        await page.evaluate(() =>
          (globalThis as unknown as { termbridge: { send(m: unknown): void } }).termbridge.send({
            t: "input",
            name: "s",
            data: "echo from-a-watcher-socket\r",
          })
        );
        await page.waitForFunction(() =>
          document.getElementById("notice")!.textContent!.includes("Cannot type into")
        );
        await world.ok(["type", "s", "echo marker-after\n"]);
        const screen = await waitForScreen(
          world,
          "s",
          (text) => /^marker-after$/m.test(text),
          "the marker",
        );
        assert.doesNotMatch(screen, /from-a-watcher/);

        await page.click("#take");
        await page.waitForFunction(() =>
          document.getElementById("driver")!.textContent === "you drive it"
        );
        await page.keyboard.type("echo hi\n");
        await waitForScreen(world, "s", (text) => /^hi$/m.test(text), '"hi" printed');
        // The driver's lines go through the policy, and the audit log names the page.
        await page.keyboard.type(`touch ${world.dir}/ran-from-web\n`);
        await waitForScreen(world, "s", (text) => /Denied by policy/.test(text), "the refusal");
        assert.equal(existsSync(join(world.dir, "ran-from-web")), false);
        const me = await page.evaluate(() =>
          (globalThis as unknown as { termbridge: { state: { me: string } } }).termbridge.state.me
        );
        const audit = readFileSync(join(world.dir, "state", "termbridge", "audit.jsonl"), "utf8")
          .trim().split("\n").map((line) => JSON.parse(line));
        const denied = audit.find((e) => e.origin === "typed" && e.decision === "deny");
        assert.equal(denied?.client, me, JSON.stringify(denied));
        assert.match(me, /^web \d+$/);
        // The driver's page sets the size; the CLI sees it.
        const shot = JSON.parse(await world.ok(["shot", "s"]));
        assert.notDeepEqual(shot.dimensions, { cols: 120, rows: 40 });
      });
    },
  );

  test("web: two pages, one driver; taking over moves the lease", async () => {
    await withBrowser(async (world, browser) => {
      await world.ok(["new", "s", "--size", "100x30"]);
      const a = await openDashboard(browser, world);
      const b = await openDashboard(browser, world);
      await openSession(a, "s");
      await openSession(b, "s");
      const sizeBefore = JSON.parse(await world.ok(["shot", "s"])).dimensions;
      // A watcher never resizes the program, whatever its window does.
      await b.setViewportSize({ width: 700, height: 500 });
      await b.evaluate(() =>
        (globalThis as unknown as { termbridge: { send(m: unknown): void } }).termbridge.send({
          t: "resize",
          name: "s",
          cols: 50,
          rows: 10,
        })
      );
      await a.click("#take");
      await a.waitForFunction(() =>
        document.getElementById("driver")!.textContent === "you drive it"
      );
      const aLabel = await a.evaluate(() =>
        (globalThis as unknown as { termbridge: { state: { me: string } } }).termbridge.state.me
      );
      await b.waitForFunction(
        (label) => document.getElementById("driver")!.textContent === `${label} drives it`,
        aLabel,
      );
      assert.notDeepEqual(JSON.parse(await world.ok(["shot", "s"])).dimensions, sizeBefore);
      await a.keyboard.type("echo first-driver\n");
      await waitForScreen(world, "s", (t) => /^first-driver$/m.test(t), "the first driver's line");

      await b.click("#take");
      await b.waitForFunction(() =>
        document.getElementById("driver")!.textContent === "you drive it"
      );
      await a.waitForFunction(() =>
        /drives it$/.test(document.getElementById("driver")!.textContent!) &&
        document.getElementById("driver")!.textContent !== "you drive it"
      );
      await a.keyboard.type("echo old-driver\n");
      await a.waitForFunction(() =>
        document.getElementById("notice")!.textContent!.includes("Take control")
      );
      await b.keyboard.type("echo second-driver\n");
      const screen = await waitForScreen(
        world,
        "s",
        (t) => /^second-driver$/m.test(t),
        "the second driver's line",
      );
      assert.doesNotMatch(screen, /old-driver/);
      // Handing back: nobody drives.
      await b.click("#release");
      await a.waitForFunction(() => document.getElementById("driver")!.textContent === "watching");
    });
  });

  test("web: a reload and a dropped socket during a flood lose and repeat nothing", async () => {
    await withBrowser(async (world, browser) => {
      await world.ok(["new", "flood", "--", "bash", "--norc", "--noprofile"]);
      const page = await openDashboard(browser, world);
      await openSession(page, "flood");
      await world.ok([
        "type",
        "flood",
        "for i in $(seq 1 20000); do echo n$i; (( i % 100 )) || sleep 0.03; done; echo flood-done\n",
      ]);
      await waitForPageText(page, /^n2\d\d\d$/);
      await page.reload();
      await page.waitForFunction(() =>
        (globalThis as unknown as { termbridge: { state: { view: { id: number | null } } } })
          .termbridge.state.view?.id != null
      );
      await waitForPageText(page, /^n(1\d|[5-9])\d\d\d$/);
      // The socket drops: the page keeps its terminal and asks to go on from its offset.
      await page.evaluate(() =>
        (globalThis as unknown as { termbridge: { state: { socket: WebSocket } } }).termbridge
          .state
          .socket.close()
      );
      await waitForPageText(page, /^flood-done$/, 60_000);
      const numbers = (await pageLines(page)).flatMap((line) => {
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

  test("web: a flood reaches the page as pictures, then the scrollback, ending current", async () => {
    await withBrowser(async (world, browser) => {
      await world.ok(["new", "big", "--", "bash", "--norc", "--noprofile"]);
      const page = await openDashboard(browser, world);
      await openSession(page, "big");
      // About 4 MB at once: far more than a page is sent a second.
      await world.ok(["type", "big", "seq 1 600000; echo flood-$((6*7))-end\n"]);
      await waitForPageText(page, /^flood-42-end$/, 60_000);
      const numbers = async () =>
        (await pageLines(page)).flatMap((line) => /^(\d+)$/.exec(line) ? [Number(line)] : []);
      // The last picture carries the scrollback: the flood's last lines, in order, none missing.
      let shown = await numbers();
      for (const deadline = performance.now() + 15_000; shown.length < 900;) {
        if (performance.now() > deadline) throw new Error(`only ${shown.length} lines shown`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        shown = await numbers();
      }
      assert.equal(shown.at(-1), 600000);
      const broken = shown.findIndex((n, i) => i > 0 && n !== shown[i - 1] + 1);
      assert.equal(broken, -1, `the lines jump from ${shown[broken - 1]} to ${shown[broken]}`);
      // Typing still shows at once afterwards.
      await world.ok(["type", "big", "echo after-$((6*7))\n"]);
      await waitForPageText(page, /^after-42$/);
    });
  });
});
