/**
 * `termbridge acp` with the real adapters of today (claude-agent-acp,
 * codex-acp) driven offline by the fake model APIs of `fake_models/`: their
 * permission requests go through the policy, and what they report running
 * is in the audit log.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  FAKE_AGENTS,
  type FakeAgent,
  type FakeAgentName,
  type ModelScript,
  shellCall,
  startFakeAgent,
  writeCall,
} from "./fake_models/kit.ts";
import { type AcpResult, agentText, findDeep, runAcp, withTempDir } from "./acp_run.ts";

/** One run of `termbridge acp --json --yes` with a real adapter and a config. */
interface RealRun {
  run: AcpResult;
  model: FakeAgent;
  /** The audit log's records. */
  audit: Record<string, unknown>[];
  cwd: string;
  /** What the run printed, for assertion messages. */
  context: string;
}

/** Runs `agent` with `script` in a new directory; `config` is written as termbridge.jsonc. */
async function runReal(
  agent: FakeAgentName,
  script: (cwd: string) => ModelScript,
  config: (cwd: string) => unknown = () => ({}),
  body: (result: RealRun) => void | Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    const cwd = join(dir, "work");
    const auditFile = join(dir, "audit.jsonl");
    const configFile = join(dir, "termbridge.jsonc");
    writeFileSync(configFile, JSON.stringify(config(cwd)));
    await import("node:fs").then((fs) => fs.mkdirSync(cwd));
    const model = await startFakeAgent(agent, script(cwd));
    try {
      const run = await runAcp(model.argv, {
        cwd,
        prompts: ["go"],
        // The agent's own shell under the policy: it keeps it (the default, termbridge, takes it away).
        flags: ["--yes", "--terminals", "both", "--config", configFile, "--audit", auditFile],
        env: model.env,
      });
      const audit = existsSync(auditFile)
        ? readFileSync(auditFile, "utf8").split("\n").filter((l) => l !== "").map((l) =>
          JSON.parse(l)
        )
        : [];
      const context = `stdout:\n${run.stdout.slice(-6000)}\nstderr:\n${run.stderr}\naudit:\n${
        audit.map((r) => JSON.stringify(r)).join("\n")
      }`;
      await body({ run, model, audit, cwd, context });
    } finally {
      await model.close();
    }
  });
}

function ofEvent(audit: Record<string, unknown>[], event: string): Record<string, unknown>[] {
  return audit.filter((record) => record.event === event);
}

/** The text of a reported command: its line, or its argv joined. */
function commandText(record: Record<string, unknown>): string {
  return (record.line as string | undefined) ?? (record.argv as string[]).join(" ");
}

describe("acp with the real adapters", () => {
  for (const agent of FAKE_AGENTS) {
    it(`${agent}: a scripted shell "echo" runs end to end and the model gets its output`, async () => {
      await runReal(
        agent,
        () => ({
          calls: [shellCall(agent, "echo hi-from-tb")],
          finalText: "All done.",
        }),
        undefined,
        ({ run, model, context }) => {
          assert.equal(run.status.exitCode, 0, context);
          assert.match(agentText(run.events), /All done\./, context);
          const calls = findDeep(
            run.events,
            (o) => o.toolCallId !== undefined && o.kind === "execute",
          );
          assert.ok(calls.length > 0, `an execute tool call in ${context}`);
          assert.match(model.toolResults().join("\n"), /hi-from-tb/);
        },
      );
    });

    it(`${agent}: a command the policy denies is refused under --yes, nobody asked, and the model told`, async () => {
      await runReal(
        agent,
        (cwd) => ({
          // Codex asks only for a command that leaves its sandbox.
          calls: [shellCall(agent, `touch ${cwd}/denied`, { escalated: true })],
          finalText: "All done.",
        }),
        () => ({ policy: { deny: ["touch"] } }),
        ({ run, model, cwd, audit, context }) => {
          assert.equal(existsSync(join(cwd, "denied")), false, `touch ran:\n${context}`);
          if (agent === "codex") {
            // Claude's is refused by termbridge's PreToolUse hook before it asks (real_hook.test.ts).
            const [answer] = run.events.filter((e) => e.type === "permission");
            assert.ok(answer, `a permission event in ${context}`);
            assert.equal(answer.source, "policy", context);
            assert.equal((answer.option as { kind: string }).kind, "reject_once", context);
            assert.match(String(answer.note), /deny rule "touch"/);
          }
          const [permission] = ofEvent(audit, "permission");
          assert.equal(permission.answer, "reject_once", context);
          assert.equal(permission.by, "policy");
          const denied = ofEvent(audit, "command").find((r) => r.origin === "agent");
          assert.equal(denied?.decision, "deny", context);
          assert.deepEqual(
            ofEvent(audit, "agent_command"),
            [],
            "a refused command is not reported as run",
          );
          if (agent === "claude") {
            // termbridge's hook refuses it with the policy's reason, which the model is sent.
            assert.match(model.toolResults().join("\n"), /deny rule "touch"/, context);
          } else {
            // codex-acp's reject aborts the turn: termbridge tells it why in the next one.
            assert.match(
              model.conversation(),
              /\[termbridge\] The policy refused[^"]*deny rule/,
              context,
            );
            assert.equal(run.status.exitCode, 0, context);
          }
        },
      );
    });

    it(`${agent}: the audit log lists every command the agent ran, with its verdict and exit`, async () => {
      const lines = ["echo first-one", "sh -c 'exit 3'", "echo last-one"];
      await runReal(
        agent,
        () => ({
          calls: lines.map((line) => shellCall(agent, line)),
          finalText: "All done.",
        }),
        () => ({ policy: { ask: ["sh"] } }),
        ({ audit, context }) => {
          const ran = ofEvent(audit, "agent_command");
          assert.equal(ran.length, 3, context);
          lines.forEach((line, i) => assert.ok(commandText(ran[i]).includes(line), context));
          // Claude Code asks for every command (termbridge made it); Codex runs them in its sandbox unasked.
          const by = agent === "claude" ? "--yes" : "the agent (not asked)";
          assert.deepEqual(ran.map((r) => r.by), [by, by, by], context);
          assert.equal(
            ran[1].decision,
            "ask",
            `the ask rule "sh" applies to ${commandText(ran[1])}`,
          );
          const ends = ofEvent(audit, "agent_command_end");
          assert.deepEqual(ends.map((r) => r.toolCallId), ran.map((r) => r.toolCallId), context);
          assert.deepEqual(ends.map((r) => r.exitCode), [0, 3, 0], context);
        },
      );
    });
  }

  it("claude: echo, which Claude Code runs without asking, is asked about, policy-checked and audited", async () => {
    await runReal(
      "claude",
      () => ({
        calls: [shellCall("claude", "echo allowed-one"), shellCall("claude", "echo secret-one")],
        finalText: "All done.",
      }),
      () => ({ policy: { deny: ["echo secret-one"] } }),
      ({ audit, model, context }) => {
        const checked = ofEvent(audit, "command").filter((r) => r.origin === "agent");
        assert.deepEqual(checked.map((r) => [r.line, r.decision]), [
          ["echo allowed-one", "allow"],
          ["echo secret-one", "deny"],
        ], context);
        assert.deepEqual(ofEvent(audit, "permission").map((r) => [r.answer, r.by]), [
          ["allow_once", "--yes"],
          ["reject_once", "policy"],
        ], context);
        assert.deepEqual(ofEvent(audit, "agent_command").map((r) => r.line), ["echo allowed-one"]);
        const results = model.toolResults();
        assert.match(results[0], /allowed-one/);
        assert.doesNotMatch(results[1], /secret-one\s*$/, "the denied echo did not run");
      },
    );
  });

  it("codex: a command Codex runs without asking is audited with the policy's verdict", async () => {
    await runReal(
      "codex",
      () => ({
        calls: [shellCall("codex", "echo secret-two")],
        finalText: "All done.",
      }),
      () => ({ policy: { deny: ["echo secret-two"] } }),
      ({ audit, context }) => {
        const [ran] = ofEvent(audit, "agent_command");
        assert.ok(ran, context);
        assert.equal(ran.decision, "deny", context);
        assert.equal(ran.by, "the agent (not asked)");
      },
    );
  });

  it("claude: a Write outside policy.write is refused; one inside is done", async () => {
    const outside = mkdtempSync(join(tmpdir(), "tb-outside-"));
    try {
      await runReal(
        "claude",
        (cwd) => ({
          calls: [
            writeCall(join(outside, "escaped.txt"), "no"),
            writeCall(join(cwd, "ok.txt"), "yes"),
          ],
          finalText: "All done.",
        }),
        (cwd) => ({ policy: { write: [`${cwd}/**`] } }),
        ({ audit, cwd, context }) => {
          assert.equal(
            existsSync(join(outside, "escaped.txt")),
            false,
            `the write escaped:\n${context}`,
          );
          assert.equal(readFileSync(join(cwd, "ok.txt"), "utf8"), "yes", context);
          const writes = ofEvent(audit, "write");
          assert.deepEqual(writes.map((r) => r.decision), ["deny", "allow"], context);
          assert.deepEqual(ofEvent(audit, "permission").map((r) => r.answer), [
            "reject_once",
            "allow_once",
          ]);
        },
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
