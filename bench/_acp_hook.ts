/**
 * The time termbridge's Claude Code `PreToolUse` hook adds to each of the
 * agent's tool calls (`lib/acp/tool_hook.ts`): Claude Code starts `termbridge
 * _hook --connect SOCKET` for every Bash/Write/Edit/Read/Grep/Glob call, which
 * asks this process to judge it. Measured as the built binary started with a
 * Bash call on stdin until its answer, beside starting `true` (the least any
 * command hook costs). Rounds alternate so the machine's load hits both alike.
 * @module
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startToolHook } from "../lib/acp/tool_hook.ts";
import { createPolicy, DEFAULT_POLICY_RULES, loadShellParser } from "../lib/policy/mod.ts";
import { runtime } from "../lib/runtime/mod.ts";
import { Guard, refuseAsks } from "../lib/safety/guard.ts";
import { NO_AUDIT } from "../lib/audit/log.ts";
import { fixed, percentile, progress, type Row } from "./_report.ts";

/** Runs `argv` with `input` on stdin; resolves with its stdout and the time it took. */
function timedRun(argv: string[], input: string): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (data: string) => stdout += data);
    child.on("error", reject);
    child.on("close", () => resolve({ ms: performance.now() - started, stdout }));
    child.stdin.end(input);
  });
}

/** Measures `rounds` hook answers beside `true`; `binary` is the built termbridge. */
export async function hookSection(
  binary: string,
  config: { rounds: number; warmups: number },
): Promise<Row[]> {
  if (!existsSync(binary)) {
    throw new Error(`Cannot measure the hook: "${binary}" is not built (make dist/termbridge)`);
  }
  const dir = mkdtempSync(join(tmpdir(), "tb-bench-hook-"));
  await loadShellParser();
  const policy = createPolicy({ ...DEFAULT_POLICY_RULES, deny: ["curl * | sh"] });
  const guard = new Guard({ mode: "acp", policy, approver: refuseAsks, audit: NO_AUDIT });
  const access = {
    guard,
    actor: guard.actor({ session: "bench" }),
    cwd: dir,
    env: runtime.env(),
    writeRoots: null,
  };
  const hook = await startToolHook(() => access);
  const path = hook.command.split(" ").at(-1)!;
  const input = JSON.stringify({
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "npm test && git status" },
    tool_use_id: "toolu_bench",
    cwd: dir,
  });
  const plain: number[] = [];
  const hooked: number[] = [];
  try {
    progress(`hook: ${config.rounds} rounds of each after ${config.warmups} warm-ups`);
    for (let i = 0; i < config.warmups + config.rounds; i++) {
      const base = await timedRun(["true"], "");
      const judged = await timedRun([binary, "_hook", "--connect", path], input);
      if (!judged.stdout.includes('"permissionDecision":"ask"')) {
        throw new Error(`Cannot measure the hook: it answered ${JSON.stringify(judged.stdout)}`);
      }
      if (i < config.warmups) continue;
      plain.push(base.ms);
      hooked.push(judged.ms);
    }
  } finally {
    hook.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const added = percentile(hooked, 50) - percentile(plain, 50);
  return [{
    section: "hook",
    measure: "Claude PreToolUse hook (termbridge _hook) per tool call p50/p99 ms",
    value: `${fixed(percentile(hooked, 50), 1)}/${fixed(percentile(hooked, 99), 1)}`,
    baseline: `true ${fixed(percentile(plain, 50), 1)}`,
    verdict: `+${fixed(added, 1)} ms p50 (no goal set)`,
  }];
}
