/**
 * The real adapters' own terminals as a person sees them: `termbridge acp`
 * (the built binary) in tmux, read with `capture-pane`.
 * @module
 */

import { describe, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { FAKE_AGENTS, shellCall, startFakeAgent } from "./fake_models/kit.ts";
import { termbridgeUnderTest, withTempDir } from "./acp_run.ts";
import { onPath } from "../helpers.ts";

/** Whether tmux is installed (the terminal a person would use). */
const HAS_TMUX = onPath("tmux");

/** Runs tmux on a private socket in `dir`; returns its stdout. */
async function tmux(dir: string, args: string[]): Promise<string> {
  const child = runtime.spawnPiped({
    argv: ["tmux", "-S", join(dir, "tmux.sock"), ...args],
    stderr: "pipe",
  });
  await child.stdin.close();
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr!).text(),
    child.exited,
  ]);
  if (status.exitCode !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${stderr}`);
  return stdout;
}

function quote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

describe("acp with the real adapters, in a terminal", () => {
  for (const agent of FAKE_AGENTS) {
    itWhen(
      HAS_TMUX,
      `${agent}: in tmux, the card of the agent's own command names it and shows how it ended`,
      async () => {
        const line = "echo card-line; exit 3";
        const model = await startFakeAgent(agent, {
          calls: [shellCall(agent, line)],
          finalText: "All done.",
        });
        try {
          await withTempDir(async (dir) => {
            const cwd = join(dir, "work");
            mkdirSync(cwd);
            const env = Object.entries({ ...model.env, NO_COLOR: "" }).map(([k, v]) => `${k}=${v}`);
            const argv = [
              "env",
              ...env,
              ...termbridgeUnderTest(),
              "acp",
              "--yes",
              "--terminals",
              "both", // The agent's own shell: the default takes it away.
              "--no-audit",
              "--cwd",
              cwd,
              "--prompt",
              "go",
              "--",
              ...model.argv,
            ];
            await tmux(dir, [
              "new-session",
              "-d",
              "-s",
              "real",
              "-x",
              "120",
              "-y",
              "50",
              `${argv.map(quote).join(" ")}; sleep 60`,
            ]);
            try {
              let pane = "";
              const deadline = performance.now() + 45_000;
              while (
                !(pane = await tmux(dir, ["capture-pane", "-p", "-t", "real"])).includes(
                  "Turn ended",
                )
              ) {
                if (performance.now() > deadline) {
                  throw new Error(`Timed out; the pane shows:\n${pane}`);
                }
                await new Promise((resolve) => setTimeout(resolve, 100));
              }
              const lines = pane.split("\n").map((l) => l.trimEnd());
              const start = lines.findIndex((l) => l.startsWith(`  ┌ [${line}] $ ${line}`));
              assert.ok(start >= 0, `a card naming the command in:\n${pane}`);
              if (agent === "codex") assert.ok(lines[start].endsWith(`in ${cwd}`), pane);
              const end = lines.findIndex((l, i) => i > start && l.startsWith(`  └ [${line}]`));
              assert.ok(end > start, pane);
              assert.match(lines[end], /exit 3/, pane);
              assert.ok(lines.slice(start, end).some((l) => l.includes("card-line")), pane);
              assert.ok(!pane.includes("still running"), pane);
            } finally {
              await tmux(dir, ["kill-server"]).catch(() => {}); // Already gone.
            }
          });
        } finally {
          await model.close();
        }
      },
    );
  }
});
