/**
 * ACP v2's agent-owned terminals (`terminal_update`, `terminal_output_chunk`)
 * sent to termbridge over a v1 connection by an agent built on the SDK
 * (agents/v2_terminal_agent.ts): shown as the same cards as the `_meta`
 * terminals of agents of today, in `--json`, piped and TTY output, and their
 * commands audited like other commands agents report.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { Terminal } from "../../lib/terminal/terminal.ts";
import { V2Terminals } from "../../lib/acp/v2_terminals.ts";
import { agentArgv, runAcp, termbridgeUnderTest, withTempDir } from "./acp_run.ts";

const AGENT = agentArgv("v2_terminal_agent");

/** The `_meta` of each update `V2Terminals` makes of `updates`, with its tool call id. */
function translated(updates: Record<string, unknown>[]): [string, Record<string, unknown>][] {
  const v2 = new V2Terminals();
  return updates.flatMap((update) =>
    v2.translate({ sessionId: "s", update } as never).map((made) => {
      const fields = made.update as unknown as Record<string, unknown>;
      const { termbridge_translated: _, ...meta } = fields._meta as Record<string, unknown>;
      return [fields.toolCallId as string, meta] as [string, Record<string, unknown>];
    })
  );
}

const b64 = (text: string) => btoa(text);

function ofType(events: Record<string, unknown>[], type: string): Record<string, unknown>[] {
  return events.filter((event) => event.type === type);
}

describe("acp: ACP v2 agent-owned terminals", () => {
  it("V2Terminals: a replacing snapshot adds what extends the output shown, else shows itself whole", () => {
    const made = translated([
      {
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "c",
        content: { type: "terminal", terminalId: "t" },
      },
      { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: b64("one\n") },
      { sessionUpdate: "terminal_update", terminalId: "t", output: { data: b64("one\ntwo\n") } },
      { sessionUpdate: "terminal_update", terminalId: "t", output: { data: b64("cleared\n") } },
      { sessionUpdate: "terminal_update", terminalId: "t", exitStatus: { signal: "SIGTERM" } },
      { sessionUpdate: "terminal_update", terminalId: "t", exitStatus: { exitCode: 0 } },
    ]);
    assert.deepEqual(made, [
      ["c", { terminal_output: { terminal_id: "t", data: "one\n" } }],
      ["c", { terminal_output: { terminal_id: "t", data: "two\n" } }],
      ["c", { terminal_output: { terminal_id: "t", data: "cleared\n" } }],
      ["c", { terminal_exit: { terminal_id: "t", exit_code: null, signal: "SIGTERM" } }],
    ]);
  });

  it("V2Terminals: malformed v2 updates and other kinds make nothing", () => {
    assert.deepEqual(
      translated([
        { sessionUpdate: "terminal_update" },
        { sessionUpdate: "terminal_output_chunk", terminalId: "t", data: 42 },
        { sessionUpdate: "terminal_update", terminalId: "t" },
        { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
        { sessionUpdate: "tool_call", toolCallId: "c", content: "not a list" },
      ]),
      [],
    );
  });

  it("acp --json: terminal_update and terminal_output_chunk become agent_terminal events and cards, and are audited", async () => {
    await withTempDir(async (cwd) => {
      const audit = join(cwd, "audit.jsonl");
      const run = await runAcp(AGENT, { cwd, prompts: ["go"], flags: ["--audit", audit] });
      assert.equal(run.status.exitCode, 0, run.stderr);
      const terminals = ofType(run.events, "agent_terminal").map((
        { sessionId: _, ...event },
      ) => event);
      assert.deepEqual(terminals, [
        {
          type: "agent_terminal",
          toolCallId: "v2-call",
          terminalId: "v2-make",
          command: "make check",
          cwd,
          event: "started",
        },
        {
          type: "agent_terminal",
          toolCallId: "v2-call",
          terminalId: "v2-make",
          command: "make check",
          cwd,
          event: "exited",
          exitCode: 2,
          signal: null,
          status: "completed",
        },
        {
          type: "agent_terminal",
          toolCallId: "termbridge-v2-v2-lone",
          terminalId: "v2-lone",
          command: "sleep 0",
          cwd,
          event: "started",
        },
        {
          type: "agent_terminal",
          toolCallId: "termbridge-v2-v2-lone",
          terminalId: "v2-lone",
          command: "sleep 0",
          cwd,
          event: "exited",
          exitCode: 0,
          signal: null,
          status: "completed",
        },
      ]);
      // The updates as received stay in the record; the output is whole across the split "é".
      const kinds = ofType(run.events, "update").map((event) =>
        (event.update as { sessionUpdate: string }).sessionUpdate
      );
      assert.equal(kinds.filter((kind) => kind === "terminal_update").length, 4);
      assert.equal(kinds.filter((kind) => kind === "terminal_output_chunk").length, 2);
      const output = ofType(run.events, "update").flatMap((event) => {
        const meta = (event.update as { _meta?: { terminal_output?: { data: string } } })._meta;
        return meta?.terminal_output === undefined ? [] : [meta.terminal_output.data];
      });
      assert.deepEqual(output, ["checking caf", "é\nboom\n", "lone output\n"]);

      const records = readFileSync(audit, "utf8").trim().split("\n").map((line) =>
        JSON.parse(line)
      );
      const commands = records.filter((r) => r.event === "agent_command");
      assert.deepEqual(commands.map((r) => [r.toolCallId, r.line, r.cwd, r.by]), [
        ["v2-call", "make check", cwd, "the agent (not asked)"],
        ["termbridge-v2-v2-lone", "sleep 0", cwd, "the agent (not asked)"],
      ]);
      const ends = records.filter((r) => r.event === "agent_command_end");
      assert.deepEqual(ends.map((r) => [r.toolCallId, r.status, r.exitCode]), [
        ["v2-call", "failed", 2],
        ["termbridge-v2-v2-lone", "completed", 0],
      ]);
    });
  });

  it("acp piped: each v2 terminal is a card with its command, cwd, output and exit", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(AGENT, { cwd, json: false, prompts: ["go"] });
      assert.equal(run.status.exitCode, 0, run.stderr);
      // Durations vary with the machine's load.
      const lines = run.stdout.replace(/ in \d+\.\ds$/gm, " in Ns").split("\n");
      const card = (label: string) => lines.filter((line) => line.includes(`[${label}]`));
      assert.deepEqual(card("Run the checks"), [
        `  ┌ [Run the checks] $ make check  in ${cwd}`,
        "  │ [Run the checks] checking café",
        "  │ [Run the checks] boom",
        "  └ [Run the checks] exit 2 in Ns",
      ]);
      assert.deepEqual(card("sleep 0"), [
        `  ┌ [sleep 0] $ sleep 0  in ${cwd}`,
        "  │ [sleep 0] lone output",
        "  └ [sleep 0] exit 0 in Ns",
      ]);
    });
  });

  it("acp tty: the v2 terminal's card names its command and shows its output and exit", async () => {
    await withTempDir(async (cwd) => {
      const terminal = Terminal.spawn({
        argv: [...termbridgeUnderTest(), "acp", "--cwd", cwd, "--prompt", "go", "--", ...AGENT],
        env: { ...runtime.env(), NO_COLOR: "" },
        cols: 100,
        rows: 40,
      });
      try {
        const status = await terminal.wait();
        const screen = terminal.lines({ scope: "all" }).join("\n");
        assert.equal(status.exitCode, 0, screen);
        assert.match(screen, /\$ make check/);
        assert.match(screen, /checking café\n.*boom/);
        assert.match(screen, /exit 2/);
        assert.match(screen, /\$ sleep 0/);
        assert.match(screen, /lone output/);
        assert.doesNotMatch(screen, /still running/);
      } finally {
        await terminal.dispose();
      }
    });
  });
});
