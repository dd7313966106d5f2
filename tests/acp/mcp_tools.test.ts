/**
 * termbridge's own MCP terminal tools offered to the agent of `termbridge
 * acp` (the built binary when current): the scripted mcp_agent starts the
 * offered stdio server with the official MCP SDK client, as real agents do,
 * and its calls are served by the acp process itself (a private socket):
 * real PTYs, the run's policy and audit log, terminal cards.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { Terminal } from "../../lib/terminal/terminal.ts";
import { BASH } from "../helpers.ts";
import {
  type AcpResult,
  agentArgv,
  findDeep,
  reportsOf,
  runAcp,
  termbridgeUnderTest,
  withTempDir,
} from "./acp_run.ts";

const MCP_AGENT = agentArgv("mcp_agent");

function show(run: AcpResult): string {
  return `${run.stdout}\n--- stderr ---\n${run.stderr}`;
}

interface Offered {
  name: string;
  command: string;
  args: string[];
  modes: { dir: string; socket: string } | null;
}

/** The result the agent reported for its last `run` prompt, parsed. */
function result(run: AcpResult): { isError: boolean; text: string } {
  const value = reportsOf(run.events).get("result") as { isError: boolean; text: string };
  assert.ok(value, show(run));
  return value;
}

/**
 * A configuration file for the tools' shells: bash without start-up files
 * (a user's ~/.bashrc can take seconds), with `policy` when given.
 */
function config(dir: string, policy?: Record<string, unknown>): string {
  const path = join(dir, "termbridge-test.jsonc");
  writeFileSync(path, JSON.stringify({ shell: BASH, ...(policy ? { policy } : {}) }));
  return path;
}

describe("acp: termbridge's terminal tools for the agent", () => {
  it("acp mcp: session/new offers the tools' stdio server on a private socket, with every tool", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(MCP_AGENT, { cwd, prompts: ["servers"], flags: ["--yes"] });
      assert.equal(run.status.exitCode, 0, show(run));
      const [server] = reportsOf(run.events).get("servers") as Offered[];
      assert.equal(server.name, "termbridge");
      assert.deepEqual(server.args.slice(-3, -1), ["mcp", "--connect"]);
      assert.deepEqual(server.modes, { dir: "700", socket: "600" });
      const tools = reportsOf(run.events).get("tools") as string[];
      for (const tool of ["terminal_execute", "type", "sendKey", "getContent", "wait"]) {
        assert.ok(tools.includes(tool), `${tool} in ${tools}`);
      }
      const socket = server.args.at(-1)!;
      assert.equal(existsSync(dirname(socket)), false, "the socket's directory is gone at the end");

      const none = await runAcp(MCP_AGENT, {
        cwd,
        prompts: ["servers"],
        flags: ["--yes", "--terminals", "agent"],
      });
      assert.equal(none.status.exitCode, 0, show(none));
      assert.deepEqual(reportsOf(none.events).get("servers"), []);
      const bad = await runAcp(MCP_AGENT, { cwd, prompts: ["x"], flags: ["--terminals", "mine"] });
      assert.equal(bad.status.exitCode, 2, show(bad));
      assert.match(
        bad.stderr,
        /Cannot use --terminals "mine": expected one of termbridge, agent, both/,
      );
    });
  });

  it("acp mcp: terminal_execute runs in a PTY, audited, and is shown as a card on the agent's tool call", async () => {
    await withTempDir(async (cwd) => {
      const audit = join(cwd, "audit.jsonl");
      const run = await runAcp(MCP_AGENT, {
        cwd,
        prompts: ["run tty"],
        flags: ["--yes", "--config", config(cwd), "--audit", audit],
      });
      assert.equal(run.status.exitCode, 0, show(run));
      const answer = JSON.parse(result(run).text);
      assert.match(answer.content, /^\/dev\/pts\/\d+\n$/, "tty names a pseudo-terminal");
      assert.equal(answer.exit_code, 0);
      // The card: on the agent's own tool call, with the command, its output and its exit.
      const metas = findDeep(run.events, (o) => o.toolCallId === "call-1" && o._meta !== undefined)
        .map((o) => o._meta as Record<string, Record<string, unknown>>);
      const info = metas.find((m) => m.terminal_info)?.terminal_info;
      assert.deepEqual(info, { terminal_id: "mcp-1", cwd, command: "tty" });
      const output = metas.filter((m) => m.terminal_output).map((m) => m.terminal_output.data)
        .join("");
      assert.match(output, /^\/dev\/pts\/\d+\n$/, `the output without the echo: ${output}`);
      assert.deepEqual(metas.find((m) => m.terminal_exit)?.terminal_exit, {
        terminal_id: "mcp-1",
        exit_code: 0,
      });
      const records = readFileSync(audit, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const exec = records.find((r) => r.event === "command" && r.origin === "exec");
      assert.ok(exec, readFileSync(audit, "utf8"));
      assert.equal(exec.line, "tty");
      assert.equal(exec.decision, "allow");
      assert.equal(exec.mode, "acp");
      assert.match(exec.client, /^agent mcp pid \d+$/);
    });
  });

  it("acp mcp: a command the policy denies is refused, never runs, and the refusal is audited", async () => {
    await withTempDir(async (cwd) => {
      const audit = join(cwd, "audit.jsonl");
      const marker = join(cwd, "marker");
      const run = await runAcp(MCP_AGENT, {
        cwd,
        prompts: [`run touch ${marker}`],
        flags: [
          "--yes",
          "--config",
          config(cwd, { default: "allow", deny: ["touch"] }),
          "--audit",
          audit,
        ],
      });
      assert.equal(run.status.exitCode, 0, show(run));
      const { isError, text } = result(run);
      assert.equal(isError, true, text);
      assert.match(text, /touch/);
      assert.match(text, /[Dd]enied by policy|policy/);
      assert.equal(existsSync(marker), false, "the denied command did not run");
      const records = readFileSync(audit, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const refused = records.find((r) => r.event === "command" && r.decision === "deny");
      assert.ok(refused, readFileSync(audit, "utf8"));
      assert.equal(refused.line, `touch ${marker}`);
      assert.match(refused.client, /^agent mcp pid \d+$/);
      assert.equal(
        findDeep(run.events, (o) => o.terminal_info !== undefined).length,
        0,
        "no card for a command that never ran",
      );
    });
  });

  it("acp mcp tty: the command is a terminal card, not JSON text", async () => {
    await withTempDir(async (cwd) => {
      const terminal = Terminal.spawn({
        argv: [
          ...termbridgeUnderTest(),
          "acp",
          "--yes",
          "--config",
          config(cwd),
          "--cwd",
          cwd,
          "--prompt",
          "run printf 'one\\ntwo\\n'; (exit 3)",
          "--",
          ...MCP_AGENT,
        ],
        env: { ...runtime.env(), NO_COLOR: "" },
        cols: 100,
        rows: 50,
      });
      try {
        await terminal.wait();
        const lines = terminal.lines({ scope: "all" });
        const screen = lines.join("\n");
        const start = lines.findIndex((l) => l.startsWith("  ┌ [") && l.includes("$ printf"));
        assert.ok(start >= 0, screen);
        assert.deepEqual(lines.slice(start + 1, start + 3), ["  │ one", "  │ two"], screen);
        assert.match(lines[start + 3], /^ {2}└ \[.*\] exit 3 in \d+\.\ds$/, screen);
        assert.doesNotMatch(screen, /"exit_code"/, "the JSON result is not printed");
      } finally {
        await terminal.dispose();
      }
    });
  });
});
