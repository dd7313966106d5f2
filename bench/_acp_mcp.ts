/**
 * termbridge's MCP tools for the agent of `termbridge acp`
 * (`lib/server/tool_host.ts`), measured through the whole `termbridge acp`
 * with bench/_acp_mcp_agent.ts (which starts the offered MCP server during
 * `session/new`, as Claude Code does):
 *
 * 1. the time from start to the session's answer with the tools offered
 *    (`--terminals termbridge`) beside without (`--terminals agent`), runs
 *    alternating; the difference is what offering them adds (goal < 150 ms);
 * 2. the round trip of `true` run as an agent's tool call (tool_call,
 *    permission, the call, tool_call_update) through termbridge's MCP
 *    `terminal_execute` beside the ACP `terminal/create` path.
 * @module
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../lib/runtime/mod.ts";
import { fixed, median, percentile, progress, type Row, verdict } from "./_report.ts";

/** Goal: offering the tools adds under this to the session's answer, in ms. */
const GOAL_MS = 150;

function scriptArgv(root: string, path: string): string[] {
  const bin = (name: string) => join(root, "node_modules", ".bin", name);
  return runtime.name === "deno" ? [bin("deno"), "run", "-A", path] : [bin("bun"), path];
}

/** Runs `termbridge acp --json` once; resolves with the ms to the session event and the output. */
function runAcp(
  root: string,
  args: string[],
): Promise<{ sessionMs: number; lines: string[]; code: number | null }> {
  const binary = join(root, "dist", "termbridge");
  const termbridge = existsSync(binary) ? [binary] : scriptArgv(root, join(root, "main.ts"));
  const agent = scriptArgv(root, join(root, "bench", "_acp_mcp_agent.ts"));
  const argv = [...termbridge, "acp", "--json", "--yes", ...args, "--", ...agent];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
    let sessionMs = NaN;
    let pending = "";
    const lines: string[] = [];
    child.stdout.on("data", (chunk: Uint8Array) => {
      pending += new TextDecoder().decode(chunk);
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      for (const line of parts) {
        if (Number.isNaN(sessionMs) && line.startsWith('{"type":"session"')) {
          sessionMs = performance.now() - started;
        }
        lines.push(line);
      }
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ sessionMs, lines, code }));
  });
}

/** Measures both; returns the table's rows. */
export async function mcpToolsSection(
  root: string,
  config: { starts: number; rounds: number },
): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "tb-bench-acp-mcp-"));
  try {
    const configFile = join(dir, "termbridge.jsonc");
    // The tools' shell without start-up files: a user's ~/.bashrc is not termbridge's cost.
    writeFileSync(configFile, JSON.stringify({ shell: ["bash", "--norc", "--noprofile", "-i"] }));
    const common = ["--no-audit", "--config", configFile, "--cwd", dir, "-p", "bench 0"];
    const withTools: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < config.starts; i++) {
      progress(`session start ${i + 1}/${config.starts}`);
      for (const [choice, into] of [["termbridge", withTools], ["agent", without]] as const) {
        const run = await runAcp(root, ["--terminals", choice, ...common]);
        if (run.code !== 0 || Number.isNaN(run.sessionMs)) {
          throw new Error(`termbridge acp --terminals ${choice} failed: ${run.lines.join("\n")}`);
        }
        into.push(run.sessionMs);
      }
    }
    const added = median(withTools) - median(without);
    progress(`${config.rounds} round trips each way`);
    const trips = await runAcp(root, [
      "--no-audit",
      "--config",
      configFile,
      "--cwd",
      dir,
      "-p",
      `bench ${config.rounds}`,
    ]);
    const line = trips.lines.find((l) => l.includes("BENCH {"));
    if (line === undefined) throw new Error(`no round trips: ${trips.lines.join("\n")}`);
    const text = JSON.parse(line).update.content.text as string;
    const times = JSON.parse(text.slice("BENCH ".length)) as { mcp: number[]; acp: number[] };
    const p50 = { mcp: percentile(times.mcp, 50), acp: percentile(times.acp, 50) };
    return [
      {
        section: "acp mcp tools",
        measure: `start to session/new answer, with the tools, p50 ms (n=${config.starts})`,
        value: fixed(median(withTools)),
        baseline: `without ${fixed(median(without))}`,
        verdict: verdict(`+${fixed(added)} ms`, added < GOAL_MS, `< ${GOAL_MS} ms added`),
      },
      {
        section: "acp mcp tools",
        measure: `true as a tool call via MCP terminal_execute, p50 ms (n=${times.mcp.length})`,
        value: fixed(p50.mcp, 2),
        baseline: `terminal/create ${fixed(p50.acp, 2)}`,
        verdict: `${fixed(p50.mcp / p50.acp, 2)}x; p90 ${fixed(percentile(times.mcp, 90), 2)} vs ${
          fixed(percentile(times.acp, 90), 2)
        }`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
