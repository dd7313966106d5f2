/**
 * `acp --server`: the demo agent's terminals appear on the dashboard (and in
 * `ls`) while it runs, and are gone when the run ends.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, itWhen } from "../harness.ts";
import { NO_BINARY } from "../built_binary.ts";
import { BINARY_CURRENT, inWorld, termbridgeFor } from "../server/_kit.ts";
import { CHROMIUM, launchBrowser, NO_CHROMIUM, openDashboard } from "./_browser.ts";

const ROOT = join(import.meta.dirname!, "..", "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");
const DEMO = join(ROOT, "examples", "demo_agent.ts");

describe("acp --server", () => {
  itWhen(
    BINARY_CURRENT && CHROMIUM !== undefined,
    "acp --server: the agent's terminals are server sessions while it runs, gone after",
    async () => {
      await inWorld("binary", async (world) => {
        const browser = await launchBrowser();
        try {
          const page = await openDashboard(browser, world);
          const acp = runtime.spawnPiped({
            argv: [
              ...termbridgeFor("binary"),
              "acp",
              "--server",
              "--yes",
              "--cwd",
              world.dir,
              "--prompt",
              "Show me",
              "--",
              BUN,
              DEMO,
            ],
            env: world.env,
            cwd: world.dir,
            stderr: "pipe",
          });
          await acp.stdin.close();
          const output = new Response(acp.stdout).text();
          const errors = new Response(acp.stderr!).text();
          // The long command (killed after 1.5 s) is on the dashboard while it runs.
          const tile = await page.waitForSelector(
            ".tile[data-name^='acp-']:has-text('waiting forever')",
            { timeout: 30_000 },
          );
          const name = await tile.getAttribute("data-name");
          assert.match(name!, /^acp-\d+\.term-\d+$/);
          assert.match(await tile.textContent() ?? "", /sleep 30/);
          // The tile shows the agent's command, not the relay that carries it.
          const meta = await tile.$eval(".meta", (node) => node.textContent ?? "");
          assert.match(meta, /^echo 'waiting forever\.\.\.'; sleep 30 · /, meta);
          assert.doesNotMatch(meta, /_relay/);
          const status = await acp.exited;
          assert.equal(status.exitCode, 0, `${await output}\n${await errors}`);
          // Released with the run: no session of it is left, and the page drops its tiles.
          const listed = JSON.parse(await world.ok(["ls", "--json"]));
          assert.deepEqual(
            listed.sessions.filter((s: { name: string }) => s.name.startsWith("acp-")),
            [],
          );
          await page.waitForFunction(() => !document.querySelector(".tile[data-name^='acp-']"));
        } finally {
          await browser.close();
        }
      });
    },
    !BINARY_CURRENT ? NO_BINARY : NO_CHROMIUM,
  );
});
