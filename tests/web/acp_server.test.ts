/**
 * `acp --server`: the demo agent's terminals appear on the dashboard (and in
 * `ls`) while it runs, and are gone when the run ends; the page's driver (and
 * the CLI's `resize`) resize the agent's own terminal, not only the relay's.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, itWhen } from "../harness.ts";
import { NO_BINARY } from "../built_binary.ts";
import { BINARY_CURRENT, inWorld, termbridgeFor } from "../server/_kit.ts";
import { CHROMIUM, launchBrowser, NO_CHROMIUM, openDashboard, waitForScreen } from "./_browser.ts";

const ROOT = join(import.meta.dirname!, "..", "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");
const DEMO = join(ROOT, "examples", "demo_agent.ts");
const TERMINAL_AGENT = join(ROOT, "tests", "acp", "agents", "terminal_agent.ts");

/** Polls the asynchronous `check` until it holds. */
async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = performance.now() + timeoutMs;
  while (!await check()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

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
            // The long command runs 10 s, not the demo's 1.5 s: time for a loaded machine's page.
            env: { ...world.env, DEMO_TIMEOUT_MS: "10000" },
            cwd: world.dir,
            stderr: "pipe",
          });
          await acp.stdin.close();
          const output = new Response(acp.stdout).text();
          const errors = new Response(acp.stderr!).text();
          // The long command is on the dashboard while it runs.
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
          // So does `ls`.
          const row = (await world.ok(["ls"])).split("\n").find((line) => line.startsWith(name!));
          assert.match(row ?? "", /^\S+\s+echo 'waiting forever\.\.\.'; sleep 30\s/, row);
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

  itWhen(
    BINARY_CURRENT && CHROMIUM !== undefined,
    "acp --server: the page's driver and the CLI's resize reach the agent's own terminal",
    async () => {
      await inWorld("binary", async (world) => {
        const browser = await launchBrowser();
        // The agent's terminal prints its own size at start and on every SIGWINCH.
        const acp = runtime.spawnPiped({
          argv: [
            ...termbridgeFor("binary"),
            "acp",
            "--server",
            "--yes",
            "--cwd",
            world.dir,
            "--prompt",
            "run echo size $(stty size </dev/tty); trap 'echo size $(stty size </dev/tty)' WINCH; " +
            "while :; do sleep 0.1; done",
            "--",
            BUN,
            TERMINAL_AGENT,
          ],
          env: world.env,
          cwd: world.dir,
          stderr: "pipe",
        });
        const output = new Response(acp.stdout).text();
        const errors = new Response(acp.stderr!).text();
        try {
          await acp.stdin.close();
          let name = "";
          await waitFor(
            async () => {
              const listed = JSON.parse(await world.ok(["ls", "--json"]));
              name = listed.sessions.find((s: { name: string }) => s.name.startsWith("acp-"))
                ?.name ?? "";
              return name !== "";
            },
            "the agent's terminal to be a server session",
            30_000,
          );
          await waitForScreen(world, name, (text) => /^size \d+ \d+$/m.test(text), "its size");
          const page = await openDashboard(browser, world);
          await page.click(`.tile[data-name="${name}"]`);
          await page.click("#take");
          await page.waitForFunction(() =>
            document.getElementById("driver")!.textContent === "you drive it"
          );
          // The page's size is the session's; the agent's terminal says it has it too.
          let size = { cols: 0, rows: 0 };
          await waitFor(async () => {
            size = JSON.parse(await world.ok(["shot", name])).dimensions;
            return size.cols !== 120 || size.rows !== 40;
          }, "the page's size on the session");
          await waitForScreen(
            world,
            name,
            (text) => new RegExp(`^size ${size.rows} ${size.cols}$`, "m").test(text),
            `the agent's terminal at ${size.cols}x${size.rows}`,
          );
          // The driver's keys reach the agent's terminal too (its line discipline echoes them).
          await page.keyboard.type("keys-from-the-driver\n");
          await waitForScreen(
            world,
            name,
            (text) => text.includes("keys-from-the-driver"),
            "the driver's keys",
          );
          // So does a resize from the CLI (as an attached client's does).
          await world.ok(["resize", name, "77x19"]);
          await waitForScreen(
            world,
            name,
            (text) => /^size 19 77$/m.test(text),
            "the agent's terminal at 77x19",
          );
        } finally {
          await browser.close();
          runtime.kill(acp.pid, "SIGTERM");
          await acp.exited;
          await output;
          await errors;
        }
      });
    },
    !BINARY_CURRENT ? NO_BINARY : NO_CHROMIUM,
  );
});
