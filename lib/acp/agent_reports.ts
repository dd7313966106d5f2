/**
 * The audit of what an agent reports having run on its own: agents of today
 * (claude-agent-acp >= 0.18, codex-acp) run commands themselves and only
 * report them in `tool_call`/`tool_call_update` (kind `execute`,
 * `_meta.terminal_info`, the command in `rawInput`). Each such command is
 * written to the audit log once termbridge knows it ran, with the verdict it
 * got when the agent asked (and who decided), or the policy's verdict on it
 * and "the agent (not asked)" when it did not ask; its end follows.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { AccessOf, PermissionGate } from "./permission_gate.ts";
import { exitCodeInText, readTerminalMeta } from "./render/meta.ts";
import { commandOf, type IntendedCommand, toolNameOf } from "./tool_intent.ts";

/** Who let a command run that the agent never asked about. */
export const NOT_ASKED = "the agent (not asked)";

interface Call {
  sessionId: string;
  id: string;
  tool?: string;
  title?: string;
  command?: IntendedCommand;
  cwd?: string;
  /** A command tool call: kind execute, or a terminal extension. */
  isCommand: boolean;
  /** Something shows the command ran (output, an exit, in_progress, an end). */
  ran: boolean;
  status?: string;
  exitCode?: number | null;
  signal?: string | null;
  /** Written: the command (a promise, the verdict may take a moment), then its end. */
  written?: Promise<void>;
  ended: boolean;
}

type Fields = Record<string, unknown>;

function record(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Fields
    : undefined;
}

/** The text of a tool call's content items and raw output, for an exit code stated in words. */
function reportedText(update: Fields): string {
  const parts: string[] = [];
  if (typeof update.rawOutput === "string") parts.push(update.rawOutput);
  for (const item of Array.isArray(update.content) ? update.content : []) {
    const text = record(record(item)?.content)?.text;
    if (typeof text === "string") parts.push(text);
  }
  return parts.join("\n");
}

/** How many tool calls are followed at once; the oldest are dropped past it. */
const FOLLOWED = 1000;

/** Writes the agent's reported commands to the audit log. */
export class AgentReports {
  readonly #gate: PermissionGate;
  readonly #accessOf: AccessOf;
  readonly #calls = new Map<string, Call>();

  constructor(gate: PermissionGate, accessOf: AccessOf) {
    this.#gate = gate;
    this.#accessOf = accessOf;
  }

  /** Takes one `session/update` (anything but tool calls is ignored). */
  update(notification: acp.SessionNotification): void {
    const update = record(notification.update);
    const kind = update?.sessionUpdate;
    if (update === undefined || (kind !== "tool_call" && kind !== "tool_call_update")) return;
    const id = update.toolCallId;
    if (typeof id !== "string") return;
    const call = this.#call(notification.sessionId, id);
    const toolCall = update as acp.ToolCallUpdate;
    call.tool = toolNameOf(toolCall) ?? call.tool;
    if (typeof update.title === "string") call.title = update.title;
    if (update.kind === "execute") call.isCommand = true;
    const command = commandOf(record(update.rawInput)) ?? commandOf(record(update.rawOutput));
    if (command !== undefined) call.command = command;
    call.cwd = command?.cwd ?? call.cwd;
    for (const meta of readTerminalMeta(update._meta, id)) {
      call.isCommand = true;
      if (meta.kind === "info") {
        call.cwd = meta.cwd ?? call.cwd;
        // The command the terminal names, when no input of the call does (ACP v2's terminals).
        if (meta.command !== undefined) call.command ??= { line: meta.command };
      } else {
        call.ran = true;
      }
      if (meta.kind === "exit") {
        call.exitCode = meta.exitCode;
        call.signal = meta.signal;
      }
    }
    const rawExit = record(update.rawOutput)?.exit_code;
    if (typeof rawExit === "number") call.exitCode = rawExit;
    if (typeof update.status === "string") {
      call.status = update.status;
      if (update.status !== "pending") {
        call.ran ||= update.status !== "failed" || this.#allowed(call);
      }
      if (update.status === "failed" && call.exitCode === undefined) {
        call.exitCode = exitCodeInText(reportedText(update)) ?? null;
      }
    }
    this.#write(call);
  }

  /**
   * The agent is gone or the run ends: every command known but not yet
   * written is written, and every one not ended ends as "unknown".
   */
  finish(): Promise<void> {
    for (const call of this.#calls.values()) {
      if (!call.isCommand || call.command === undefined) continue;
      call.ran = true; // Reported and maybe running: on record rather than lost.
      if (call.status !== "completed" && call.status !== "failed") {
        call.status = "unknown (the agent is gone)";
      }
      this.#write(call, true);
    }
    return Promise.all([...this.#calls.values()].map((c) => c.written)).then(() => {});
  }

  #allowed(call: Call): boolean {
    return this.#gate.verdictFor(call.id)?.allowed ?? true;
  }

  #call(sessionId: string, id: string): Call {
    const key = `${sessionId}\0${id}`;
    let call = this.#calls.get(key);
    if (call === undefined) {
      call = { sessionId, id, isCommand: false, ran: false, ended: false };
      this.#calls.set(key, call);
      if (this.#calls.size > FOLLOWED) this.#calls.delete(this.#calls.keys().next().value!);
    }
    return call;
  }

  #write(call: Call, finishing = false): void {
    if (!call.isCommand || call.command === undefined || !call.ran) return;
    const gate = this.#gate.verdictFor(call.id);
    if (gate !== undefined && !gate.allowed) return; // Refused: the permission event says so.
    call.written ??= this.#writeCommand(call);
    const ending = call.status === "completed" || call.status === "failed" ||
      call.exitCode !== undefined || (finishing && call.status !== undefined);
    if (!ending || call.ended) return;
    call.ended = true;
    call.written = call.written.then(() => {
      const access = this.#accessOf(call.sessionId);
      access.guard.record(access.guard.actor({ session: call.sessionId }), {
        event: "agent_command_end",
        toolCallId: call.id,
        status: call.status ?? "ended",
        exitCode: call.exitCode ?? null,
        signal: call.signal ?? null,
      });
    });
  }

  async #writeCommand(call: Call): Promise<void> {
    const access = this.#accessOf(call.sessionId);
    const command = call.command!;
    const cwd = call.cwd ?? access.cwd;
    const gate = this.#gate.verdictFor(call.id);
    const verdict = gate ?? await this.#judge(command, cwd, access.env, access);
    access.guard.record(access.guard.actor({ session: call.sessionId }), {
      event: "agent_command",
      toolCallId: call.id,
      ...(call.tool === undefined ? {} : { tool: call.tool }),
      ...(command.line !== undefined ? { line: command.line } : { argv: command.argv }),
      cwd,
      decision: verdict.decision,
      rule: verdict.rule,
      reason: verdict.reason,
      by: gate?.by ?? NOT_ASKED,
    });
  }

  async #judge(
    command: IntendedCommand,
    cwd: string,
    env: Record<string, string>,
    access: ReturnType<AccessOf>,
  ) {
    try {
      const verdict = await access.guard.judgeCommand({ ...command, cwd, env });
      return verdict === null
        ? { decision: "allow" as const, rule: null, reason: "no policy" }
        : { decision: verdict.decision, rule: verdict.rule, reason: verdict.reason };
    } catch (error) {
      return {
        decision: "ask" as const,
        rule: null,
        reason: `the policy could not check it: ${error}`,
      };
    }
  }
}
