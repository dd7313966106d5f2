/**
 * The browser dashboard in Firefox (Debian's firefox-esr over WebDriver BiDi,
 * tests/web/_firefox.ts), served by the built binary's session server: the
 * ticket link, the tiles, `type`'s text painted in the terminal view, a
 * watcher's keys refused, and a driver's keys reaching the session.
 */

import assert from "node:assert/strict";
import { describe, itWhen } from "../harness.ts";
import { BINARY_CURRENT, inWorld } from "../server/_kit.ts";
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

/** The text of the element with id `id`. */
function textOf(page: FirefoxPage, id: string): Promise<string> {
  return page.evaluate((id: string) => document.getElementById(id)?.textContent ?? "", id);
}

describe("web dashboard (firefox)", () => {
  itWhen(
    READY,
    "web: in Firefox the ticket link opens the tiles; `type` paints; a driver's keys reach the session",
    async () => {
      await inWorld("binary", async (world) => {
        await world.ok(["new", "alpha", "--", "bash", "--norc", "--noprofile"]);
        const firefox = await Firefox.launch();
        try {
          const page = await firefox.page();
          // The ticket is traded for the cookie and the page sent on to `/`, ticket gone.
          const link = await webLink(world);
          const landed = await page.goto(link);
          assert.equal(landed, `${new URL(link).origin}/`);
          assert.equal(await page.evaluate(() => location.href), landed);
          await page.waitFor(
            "the page's hello",
            () => (globalThis as unknown as Hooks).termbridge.state.me !== null,
          );
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

          await page.click('.tile[data-name="alpha"]');
          await page.waitFor(
            "alpha's terminal view",
            () => (globalThis as unknown as Hooks).termbridge.state.view?.id != null,
          );
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
        } finally {
          await firefox.close();
        }
      });
    },
    WHY,
  );
});
