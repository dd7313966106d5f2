/**
 * The time termbridge's Claude Code `PreToolUse` hook adds to each of the
 * agent's tool calls (`lib/acp/tool_hook.ts`): Claude Code runs the hook's
 * command with `/bin/sh -c` for every Bash/Write/Edit/Read/Grep/Glob call,
 * the tool call on stdin, and waits for its answer. Both of termbridge's
 * hook commands are timed that way: the loopback one (bash connecting with
 * `/dev/tcp`, hook_loopback.ts), used when the agent shares termbridge's
 * network, and `termbridge _hook --connect SOCKET` (the built binary), used
 * otherwise; beside `/bin/sh -c true`, the least a command hook costs. Rounds
 * alternate so the machine's load hits all alike.
 * @module
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOK_TOKEN_VARIABLE, newHookToken } from "../lib/acp/hook_loopback.ts";
import { startToolHook } from "../lib/acp/tool_hook.ts";
import { createPolicy, DEFAULT_POLICY_RULES, loadShellParser } from "../lib/policy/mod.ts";
import { runtime } from "../lib/runtime/mod.ts";
import { Guard, refuseAsks } from "../lib/safety/guard.ts";
import { NO_AUDIT } from "../lib/audit/log.ts";
import { lineShell } from "../lib/service/command_line.ts";
import { fixed, percentile, progress, type Row } from "./_report.ts";

/** Runs `command` with `/bin/sh -c` (as Claude Code does) with `input` on stdin; its stdout and time. */
function timedRun(
  command: string,
  input: string,
  env: Record<string, string>,
): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, [], { shell: true, env, stdio: ["pipe", "pipe", "ignore"] });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (data: string) => stdout += data);
    child.on("error", reject);
    child.on("close", () => resolve({ ms: performance.now() - started, stdout }));
    child.stdin.end(input);
  });
}

/** Measures `rounds` answers of each hook beside `true`; `binary` is the built termbridge. */
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
  const token = newHookToken();
  const env = { ...runtime.env(), [HOOK_TOKEN_VARIABLE]: token };
  const socketHook = await startToolHook(() => access);
  const loopbackHook = await startToolHook(() => access, () => {}, {
    loopback: { token, bash: lineShell() },
  });
  const path = socketHook.command.split(" ").at(-1)!;
  const commands = {
    true: "true",
    loopback: loopbackHook.command,
    binary: [binary, "_hook", "--connect", path].join(" "),
  };
  const input = JSON.stringify({
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "npm test && git status" },
    tool_use_id: "toolu_bench",
    cwd: dir,
  }) + "\n";
  const times: Record<keyof typeof commands, number[]> = { true: [], loopback: [], binary: [] };
  try {
    progress(`hook: ${config.rounds} rounds of each after ${config.warmups} warm-ups`);
    for (let i = 0; i < config.warmups + config.rounds; i++) {
      for (const kind of ["true", "loopback", "binary"] as const) {
        const run = await timedRun(commands[kind], kind === "true" ? "" : input, env);
        if (kind !== "true" && !run.stdout.includes('"permissionDecision":"ask"')) {
          throw new Error(
            `Cannot measure the ${kind} hook: it answered ${JSON.stringify(run.stdout)}`,
          );
        }
        if (i >= config.warmups) times[kind].push(run.ms);
      }
    }
  } finally {
    socketHook.close();
    loopbackHook.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const p50 = (kind: keyof typeof commands) => percentile(times[kind], 50);
  const row = (kind: "loopback" | "binary", name: string, extra = ""): Row => ({
    section: "hook",
    measure: `Claude PreToolUse hook, ${name}, per tool call p50/p99 ms`,
    value: `${fixed(p50(kind), 1)}/${fixed(percentile(times[kind], 99), 1)}`,
    baseline: `sh -c true ${fixed(p50("true"), 1)}`,
    verdict: `+${fixed(p50(kind) - p50("true"), 1)} ms p50${extra}`,
  });
  return [
    row(
      "loopback",
      "loopback (bash /dev/tcp)",
      ` (${fixed(p50("binary") / p50("loopback"), 1)}x faster than the binary)`,
    ),
    row("binary", "termbridge _hook (binary)"),
  ];
}
