/**
 * Recordings replayed in the dashboard (chromium through playwright-core, the
 * built binary's session server): the list of what the server recorded, and
 * the player that replays a recording's events with their timing.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { describe, itWhen } from "../harness.ts";
import { BINARY_CURRENT, inWorld } from "../server/_kit.ts";
import { NO_BINARY } from "../built_binary.ts";
import { CHROMIUM, launchBrowser, NO_CHROMIUM, openDashboard } from "./_browser.ts";

const READY = BINARY_CURRENT && CHROMIUM !== undefined;
const WHY = !BINARY_CURRENT ? NO_BINARY : NO_CHROMIUM;

/** Waits until `check` holds, polling. */
async function waitUntil(
  check: () => Promise<boolean>,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The player's terminal lines. */
function playerLines(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    (globalThis as unknown as { termbridge: { playerLines(): string[] } }).termbridge
      .playerLines()
  );
}

/** The open player's state. */
function playerState(
  page: Page,
): Promise<{ position: number; duration: number; playing: boolean }> {
  return page.evaluate(() => {
    const player = (globalThis as unknown as {
      termbridge: {
        state: { player: { player: { position: number; duration: number; playing: boolean } } };
      };
    }).termbridge.state.player.player;
    return { position: player.position, duration: player.duration, playing: player.playing };
  });
}

describe("web dashboard: recordings (chromium)", () => {
  itWhen(
    READY,
    "web: the server's recordings are listed and replayed with their timing (pause, seek)",
    () =>
      inWorld("binary", async (world) => {
        const file = join(world.dir, "first.cast");
        await world.ok(["new", "s", "--record", file]);
        // The two lines come 1.5 s apart; neither text is in the command line itself.
        await world.ok(["exec", "s", "echo $((40+2))-first; sleep 1.5; echo $((50+3))-second"]);
        await world.ok(["record", "s", "stop"]);
        const browser = await launchBrowser();
        try {
          const page = await openDashboard(browser, world);
          // The list needs the page's cookie: without it, refused.
          const origin = new URL(page.url()).origin;
          const bare = await fetch(`${origin}/api/recordings`);
          assert.equal(bare.status, 401);
          await bare.body?.cancel();
          const unknown = await page.evaluate(() =>
            fetch("/api/recordings/999").then(async (r) => [r.status, await r.text()])
          );
          assert.equal(unknown[0], 404);
          assert.match(String(unknown[1]), /Cannot find recording "999"/);

          await page.click("#recordings-link");
          await page.waitForSelector(".recording");
          const row = await page.textContent(".recording") ?? "";
          assert.match(row, new RegExp(file.replace(/[.]/g, "\\.")));
          assert.match(row, /session s/);
          await page.click(".recording");
          await waitUntil(
            async () => (await playerLines(page)).some((line) => line === "42-first"),
            "the first line replayed",
            15_000,
          );
          // Replayed with its timing: the second line is 1.5 s later.
          assert.equal((await playerLines(page)).some((line) => line === "53-second"), false);
          await waitUntil(
            async () => (await playerLines(page)).some((line) => line === "53-second"),
            "the second line replayed",
            15_000,
          );
          const ended = await playerState(page);
          assert.ok(ended.duration >= 1.4, JSON.stringify(ended));
          await waitUntil(async () => !(await playerState(page)).playing, "the end of the replay");

          // Seek back to the start: nothing printed yet; to the middle: only the first line.
          await page.evaluate(() =>
            (globalThis as unknown as {
              termbridge: { state: { player: { player: { seek(s: number): void } } } };
            }).termbridge.state.player.player.seek(0)
          );
          assert.equal((await playerLines(page)).some((line) => /42-first/.test(line)), false);
          const middle = ended.duration - 0.7;
          await page.evaluate((at) =>
            (globalThis as unknown as {
              termbridge: { state: { player: { player: { seek(s: number): void } } } };
            }).termbridge.state.player.player.seek(at), middle);
          const lines = await playerLines(page);
          assert.ok(lines.includes("42-first"), lines.join("\n"));
          assert.ok(!lines.includes("53-second"), lines.join("\n"));
          // Play goes on from there, to the end.
          await page.click("#player-play");
          await waitUntil(
            async () => (await playerLines(page)).includes("53-second"),
            "the rest replayed",
            15_000,
          );
        } finally {
          await browser.close();
        }
      }),
    WHY,
  );
});
