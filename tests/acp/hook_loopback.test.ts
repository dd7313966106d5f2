/**
 * The loopback way to Claude Code's PreToolUse hook (lib/acp/hook_loopback.ts),
 * run as Claude Code runs a command hook (`/bin/sh -c COMMAND`, the tool
 * call and a newline on stdin, its environment): the policy's answers come
 * back; without the token nothing is answered and the hook refuses; with
 * termbridge gone it refuses; a large Write arrives whole.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HOOK_TOKEN_VARIABLE, newHookToken } from "../../lib/acp/hook_loopback.ts";
import { startToolHook, type ToolHook } from "../../lib/acp/tool_hook.ts";
import { NO_AUDIT } from "../../lib/audit/log.ts";
import { createPolicy, DEFAULT_POLICY_RULES, loadShellParser } from "../../lib/policy/mod.ts";
import { runtime } from "../../lib/runtime/mod.ts";
import { Guard, refuseAsks } from "../../lib/safety/guard.ts";
import { lineShell } from "../../lib/service/command_line.ts";

const BASH = lineShell();

/** Runs `command` as Claude Code runs a hook; resolves with its stdout and exit code. */
function runHook(
  command: string,
  input: unknown,
  env: Record<string, string>,
): Promise<{ stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [], { shell: true, env, stdio: ["pipe", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (data: string) => stdout += data);
    child.on("error", reject);
    child.on("close", (code) => resolve({ stdout, code }));
    child.stdin.on("error", () => {}); // A hook that stops reading early.
    child.stdin.end(JSON.stringify(input) + "\n");
  });
}

/** The hook's decision in its answer (`{}`: none), and its reason. */
function decision(stdout: string): { decision?: string; reason?: string } {
  const answer = JSON.parse(stdout).hookSpecificOutput ?? {};
  return { decision: answer.permissionDecision, reason: answer.permissionDecisionReason };
}

/** A loopback hook with a policy denying `touch` and writes outside `dir`, for `body`. */
async function withHook(
  body: (hook: ToolHook, env: Record<string, string>, dir: string) => Promise<void>,
): Promise<void> {
  await loadShellParser();
  const dir = mkdtempSync(join(tmpdir(), "tb-hook-loopback-"));
  const policy = createPolicy({ ...DEFAULT_POLICY_RULES, deny: ["touch"], write: [`${dir}/**`] });
  const guard = new Guard({ mode: "acp", policy, approver: refuseAsks, audit: NO_AUDIT });
  const access = { guard, actor: guard.actor({ session: "s" }), cwd: dir, env: runtime.env() };
  const token = newHookToken();
  const hook = await startToolHook(() => access, () => {}, { loopback: { token, bash: BASH } });
  try {
    await body(hook, { ...runtime.env(), [HOOK_TOKEN_VARIABLE]: token }, dir);
  } finally {
    hook.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const bash = (command: string) => ({ tool_name: "Bash", tool_input: { command } });

describe("acp: the loopback PreToolUse hook", () => {
  it("hook (loopback): run as Claude Code runs it, a denied line is refused with the rule, an allowed one asks", async () => {
    await withHook(async (hook, env) => {
      const denied = await runHook(hook.command, bash("touch x && echo hi"), env);
      assert.equal(denied.code, 0);
      assert.equal(decision(denied.stdout).decision, "deny", denied.stdout);
      assert.match(decision(denied.stdout).reason!, /deny rule "touch"/);
      const allowed = await runHook(hook.command, bash("echo hi"), env);
      assert.deepEqual(decision(allowed.stdout), {
        decision: "ask",
        reason: "termbridge checks it against the policy",
      });
    });
  });

  it("hook (loopback): without the token nothing is answered, and the hook refuses (fails closed)", async () => {
    await withHook(async (hook, env) => {
      const wrong = await runHook(hook.command, bash("echo hi"), {
        ...env,
        [HOOK_TOKEN_VARIABLE]: newHookToken(),
      });
      assert.equal(decision(wrong.stdout).decision, "deny", wrong.stdout);
      assert.match(decision(wrong.stdout).reason!, /cannot reach termbridge acp on 127\.0\.0\.1:/);
      // A client that has no token (another user's) gets no answer at all.
      const port = Number(
        /\/dev\/tcp\/127\.0\.0\.1\/\$1.* termbridge-hook (\d+) /.exec(hook.command)![1],
      );
      const received = await new Promise<string>((resolve) => {
        const socket = createConnection({ host: "127.0.0.1", port });
        let text = "";
        socket.setEncoding("utf8");
        socket.on("connect", () => socket.write(`not-the-token\n${JSON.stringify(bash("ls"))}\n`));
        socket.on("data", (data: string) => text += data);
        socket.on("error", () => {});
        socket.on("close", () => resolve(text));
      });
      assert.equal(received, "");
    });
  });

  it("hook (loopback): startup files and traces in its environment put nothing before the answer", async () => {
    await withHook(async (hook, env, dir) => {
      const rc = join(dir, "bash_env");
      writeFileSync(rc, 'echo \'{"hookSpecificOutput":{"permissionDecision":"allow"}}\'\n');
      const run = await runHook(hook.command, bash("touch x"), {
        ...env,
        BASH_ENV: rc,
        SHELLOPTS: "xtrace",
        BASH_XTRACEFD: "1",
      });
      assert.equal(decision(run.stdout).decision, "deny", run.stdout);
    });
  });

  it("hook (loopback): with termbridge gone the hook refuses", async () => {
    let command = "";
    let env: Record<string, string> = {};
    await withHook((hook, hookEnv) => {
      command = hook.command;
      env = hookEnv;
      return Promise.resolve();
    });
    const gone = await runHook(command, bash("echo hi"), env);
    assert.equal(gone.code, 0);
    assert.equal(decision(gone.stdout).decision, "deny", gone.stdout);
  });

  it("hook (loopback): a 4 MB Write arrives whole and is judged", async () => {
    await withHook(async (hook, env, dir) => {
      const content = "x".repeat(4 * 1024 * 1024) + "é";
      const outside = { tool_name: "Write", tool_input: { file_path: "/etc/tb-x", content } };
      const refused = await runHook(hook.command, outside, env);
      assert.equal(decision(refused.stdout).decision, "deny", refused.stdout.slice(0, 500));
      assert.match(decision(refused.stdout).reason!, /\/etc\/tb-x/);
      const inside = { tool_name: "Write", tool_input: { file_path: join(dir, "f"), content } };
      assert.equal(decision((await runHook(hook.command, inside, env)).stdout).decision, "ask");
    });
  });
});
