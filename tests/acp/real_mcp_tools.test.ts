/**
 * termbridge's own MCP terminal tools with the real adapters of today
 * (claude-agent-acp 0.23.1, codex-acp 0.16.0) driven offline by the fake
 * model APIs: the tools are in the tool list the model receives (and, with
 * the default `--terminals termbridge`, the agent's own shell is not), a
 * call runs in a real PTY and is audited, and the policy refuses a command
 * like any other.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASH } from "../helpers.ts";
import {
  FAKE_AGENTS,
  type FakeAgentName,
  startFakeAgent,
  type ToolCall,
} from "./fake_models/kit.ts";
import { type AcpResult, runAcp, withTempDir } from "./acp_run.ts";

/** The scripted call of termbridge's `terminal_execute` as each agent's model makes it. */
function executeCall(agent: FakeAgentName, command: string): ToolCall {
  return agent === "claude"
    ? { name: "mcp__termbridge__terminal_execute", input: { command } }
    : { name: "terminal_execute", namespace: "mcp__termbridge", input: { command } };
}

/** What the model is offered of termbridge's tools: Claude's tool, Codex's namespace. */
const OFFERED: Record<FakeAgentName, string> = {
  claude: "mcp__termbridge__terminal_execute",
  codex: "mcp__termbridge",
};

/** The agent's own shell tools, which the default takes away. */
const OWN_SHELL: Record<FakeAgentName, string[]> = {
  claude: ["Bash", "BashOutput", "KillShell"],
  codex: ["exec_command", "shell", "write_stdin"],
};

interface Ran {
  run: AcpResult;
  tools: string[];
  results: string[];
  audit: Record<string, unknown>[];
  cwd: string;
  context: string;
}

/** Runs `agent` calling `terminal_execute` with `command`, under `policy` when given. */
async function runWith(
  agent: FakeAgentName,
  command: (cwd: string) => string,
  policy: Record<string, unknown> | undefined,
  body: (ran: Ran) => void,
): Promise<void> {
  await withTempDir(async (dir) => {
    const cwd = join(dir, "work");
    mkdirSync(cwd);
    const auditFile = join(dir, "audit.jsonl");
    const configFile = join(dir, "termbridge.jsonc");
    // bash without start-up files: a user's ~/.bashrc can take seconds.
    writeFileSync(configFile, JSON.stringify({ shell: BASH, ...(policy ? { policy } : {}) }));
    const model = await startFakeAgent(agent, {
      calls: [executeCall(agent, command(cwd))],
      finalText: "All done.",
    });
    try {
      const run = await runAcp(model.argv, {
        cwd,
        prompts: ["go"],
        flags: ["--yes", "--config", configFile, "--audit", auditFile],
        env: model.env,
      });
      const audit = existsSync(auditFile)
        ? readFileSync(auditFile, "utf8").trim().split("\n").filter((l) => l).map((l) =>
          JSON.parse(l)
        )
        : [];
      const results = model.toolResults();
      const context = `stdout:\n${run.stdout.slice(-6000)}\nstderr:\n${run.stderr}\nresults:\n${
        results.join("\n")
      }\naudit:\n${audit.map((r) => JSON.stringify(r)).join("\n")}`;
      body({ run, tools: model.tools(), results, audit, cwd, context });
    } finally {
      await model.close();
    }
  });
}

describe("acp: termbridge's tools with the real adapters", () => {
  for (const agent of FAKE_AGENTS) {
    it(`${agent}: the model is offered termbridge's tools and not its own shell; tty runs in a PTY, audited`, async () => {
      await runWith(agent, () => "tty", undefined, ({ run, tools, results, audit, context }) => {
        assert.equal(run.status.exitCode, 0, context);
        assert.ok(tools.includes(OFFERED[agent]), `${OFFERED[agent]} in ${tools}`);
        for (const own of OWN_SHELL[agent]) {
          assert.ok(!tools.includes(own), `${own} is not offered: ${tools}`);
        }
        assert.match(results.join("\n"), /\/dev\/pts\/\d+/, context);
        const exec = audit.find((r) => r.event === "command" && r.origin === "exec");
        assert.ok(exec, context);
        assert.equal(exec.line, "tty");
        assert.equal(exec.decision, "allow");
        assert.match(String(exec.client), /^agent mcp pid \d+$/);
      });
    });

    it(`${agent}: a command the policy denies through termbridge's tools never runs; the model is told`, async () => {
      await runWith(
        agent,
        (cwd) => `touch ${join(cwd, "marker")}`,
        { default: "allow", deny: ["touch"] },
        ({ run, results, audit, cwd, context }) => {
          assert.equal(existsSync(join(cwd, "marker")), false, context);
          assert.notEqual(run.status.exitCode, 1, context);
          assert.match(results.join("\n"), /polic|denied|refused|reject/i, context);
          const denied = audit.filter((r) => JSON.stringify(r).includes("touch"))
            .filter((r) => r.decision === "deny" || r.approved === false);
          assert.ok(denied.length > 0, `a refusal of touch in the audit log:\n${context}`);
        },
      );
    });
  }
});
