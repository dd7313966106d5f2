/**
 * Claude Code's PreToolUse hook under `termbridge acp` (lib/acp/tool_hook.ts)
 * with the real claude-agent-acp driven offline by the fake Anthropic API,
 * through the built binary: the policy's reason for a refusal reaches the
 * model, Claude's own reads are checked against `policy.read`, and an allowed
 * command still runs and is audited once.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type FakeAgent, type ModelScript, shellCall, startFakeAgent } from "./fake_models/kit.ts";
import { type AcpResult, runAcp, termbridgeUnderTest, withTempDir } from "./acp_run.ts";
import { spawnSync } from "node:child_process";

interface HookRun {
  run: AcpResult;
  model: FakeAgent;
  audit: Record<string, unknown>[];
  cwd: string;
  dir: string;
  context: string;
}

async function runClaude(
  script: (cwd: string, dir: string) => ModelScript,
  config: (cwd: string) => unknown,
  body: (result: HookRun) => void,
  env: Record<string, string> = {},
): Promise<void> {
  await withTempDir(async (dir) => {
    const cwd = join(dir, "work");
    mkdirSync(cwd);
    const auditFile = join(dir, "audit.jsonl");
    const configFile = join(dir, "termbridge.jsonc");
    writeFileSync(configFile, JSON.stringify(config(cwd)));
    const model = await startFakeAgent("claude", script(cwd, dir));
    try {
      const run = await runAcp(model.argv, {
        cwd,
        prompts: ["go"],
        flags: ["--yes", "--terminals", "both", "--config", configFile, "--audit", auditFile],
        env: { ...model.env, ...env },
      });
      const audit = existsSync(auditFile)
        ? readFileSync(auditFile, "utf8").split("\n").filter((l) => l !== "").map((l) =>
          JSON.parse(l)
        )
        : [];
      const context = `stdout:\n${run.stdout.slice(-6000)}\nstderr:\n${run.stderr}\naudit:\n${
        audit.map((r) => JSON.stringify(r)).join("\n")
      }\ntool results:\n${model.toolResults().join("\n")}`;
      body({ run, model, audit, cwd, dir, context });
    } finally {
      await model.close();
    }
  });
}

describe("acp: Claude Code's PreToolUse hook", () => {
  // The loopback hook (bash, /dev/tcp) where the agent shares termbridge's network; the
  // binary one (`termbridge _hook`) elsewhere, forced here with TERMBRIDGE_HOOK=binary.
  for (const way of ["loopback", "binary"]) {
    it(`claude: a denied command's reason (the rule) reaches the model (${way} hook)`, async () => {
      await runClaude(
        (cwd) => ({ calls: [shellCall("claude", `touch ${cwd}/denied`)], finalText: "All done." }),
        () => ({ policy: { deny: ["touch"] } }),
        ({ run, model, cwd, audit, context }) => {
          assert.equal(run.status.exitCode, 0, context);
          assert.equal(existsSync(join(cwd, "denied")), false, `touch ran:\n${context}`);
          assert.match(model.toolResults().join("\n"), /deny rule "touch"/, context);
          const permission = audit.filter((r) => r.event === "permission");
          assert.equal(permission.length, 1, context);
          assert.equal(permission[0].answer, "reject_once", context);
          assert.equal(permission[0].by, "policy", context);
          const denied = audit.filter((r) => r.event === "command" && r.decision === "deny");
          assert.equal(denied.length, 1, context);
        },
        way === "binary" ? { TERMBRIDGE_HOOK: "binary" } : {},
      );
    });
  }

  it("claude: a Read outside policy.read is refused with its reason", async () => {
    await runClaude(
      (_cwd, dir) => {
        writeFileSync(join(dir, "secret.txt"), "the-secret-words\n");
        return {
          calls: [{ name: "Read", input: { file_path: join(dir, "secret.txt") } }],
          finalText: "All done.",
        };
      },
      (cwd) => ({ policy: { read: [`${cwd}/**`] } }),
      ({ run, model, dir, audit, context }) => {
        assert.equal(run.status.exitCode, 0, context);
        const results = model.toolResults().join("\n");
        assert.doesNotMatch(results, /the-secret-words/, context);
        assert.match(results, /Denied by policy: cannot read/, context);
        const read = audit.find((r) => r.event === "read" && r.decision === "deny");
        assert.equal(read?.path, join(dir, "secret.txt"), context);
      },
    );
  });

  it("claude: a Grep without a path and a Glob with an absolute pattern are checked against policy.read", async () => {
    await runClaude(
      (cwd, dir) => {
        writeFileSync(join(cwd, "notes.txt"), "the-secret-words\n");
        mkdirSync(join(cwd, "sub"));
        writeFileSync(join(dir, "secret.txt"), "elsewhere\n");
        return {
          calls: [
            { name: "Grep", input: { pattern: "the-secret-words", output_mode: "content" } },
            { name: "Glob", input: { pattern: `${dir}/*.txt`, path: join(cwd, "sub") } },
          ],
          finalText: "All done.",
        };
      },
      (cwd) => ({ policy: { read: [`${cwd}/sub/**`] } }),
      ({ run, model, cwd, dir, audit, context }) => {
        assert.equal(run.status.exitCode, 0, context);
        const results = model.toolResults();
        assert.equal(results.length, 2, context);
        assert.doesNotMatch(results[0], /the-secret-words/, context);
        assert.match(results[0], /Denied by policy: cannot read/, context);
        assert.doesNotMatch(results[1], /secret\.txt/, context);
        assert.match(results[1], /Denied by policy: cannot read/, context);
        const denied = audit.filter((r) => r.event === "read" && r.decision === "deny");
        assert.deepEqual(denied.map((r) => r.path), [cwd, dir], context);
      },
    );
  });

  it("claude: an allowed command still runs and is audited once", async () => {
    await runClaude(
      (cwd) => ({ calls: [shellCall("claude", `touch ${cwd}/made`)], finalText: "All done." }),
      () => ({ policy: { allow: ["touch"] } }),
      ({ run, cwd, audit, context }) => {
        assert.equal(run.status.exitCode, 0, context);
        assert.equal(existsSync(join(cwd, "made")), true, context);
        const commands = audit.filter((r) => r.event === "command" && r.origin === "agent");
        assert.equal(commands.length, 1, context);
        assert.equal(commands[0].decision, "allow", context);
        assert.equal(audit.filter((r) => r.event === "permission").length, 1, context);
      },
    );
  });

  it("claude: a zsh user's Bash line runs in bash, the grammar the hook checks (zsh's ${(e)x} runs no denied touch)", async () => {
    // Left alone, Claude Code runs its Bash tool in $SHELL when that is zsh. The line below is not
    // bash, so the policy can only ask (--yes says yes), and zsh's (e) flag would run the touch.
    await runClaude(
      (cwd) => ({
        calls: [shellCall("claude", `x='$(touch ${cwd}/by-zsh)'; echo \${(e)x}; echo "rc=$?"`)],
        finalText: "All done.",
      }),
      () => ({ policy: { deny: ["touch"] } }),
      ({ run, model, cwd, context }) => {
        assert.equal(run.status.exitCode, 0, context);
        assert.equal(existsSync(join(cwd, "by-zsh")), false, `zsh ran the touch:\n${context}`);
        assert.match(model.toolResults().join("\n"), /bad substitution/, context);
      },
      { SHELL: "/usr/bin/zsh", CLAUDE_CODE_SHELL: "/usr/bin/zsh" },
    );
  });

  it("the hook refuses (fails closed) when it cannot reach termbridge acp", () => {
    const [command, ...args] = termbridgeUnderTest();
    const gone = "/nonexistent/termbridge-hook/hook.sock";
    const result = spawnSync(command, [...args, "_hook", "--connect", gone], {
      input: JSON.stringify({ tool_name: "Bash", tool_input: { command: "echo hi" } }),
      encoding: "utf8",
    });
    assert.equal(result.status, 0, result.stderr);
    const answer = JSON.parse(result.stdout).hookSpecificOutput;
    assert.equal(answer.permissionDecision, "deny", result.stdout);
    assert.match(answer.permissionDecisionReason, /cannot reach termbridge acp at/);
  });
});
