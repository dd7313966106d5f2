/**
 * `--json`'s view of agent-owned terminals (the `_meta` extensions of agents
 * that run commands themselves): one `agent_terminal` event when a command
 * is known to run, one when it ends, with the command (from a later
 * `tool_call_update`'s `rawInput`), its cwd and its exit (also a failure the
 * agent states only as text), and an end saying "unreported" for one whose
 * end never came before the run ended.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import { commandOf } from "../tool_intent.ts";
import { commandText, exitCodeInText, readTerminalMeta } from "./meta.ts";

/** An `agent_terminal` event of `--json`. */
export interface AgentTerminalEvent {
  type: "agent_terminal";
  event: "started" | "exited";
  sessionId: string;
  toolCallId: string;
  terminalId: string;
  command?: string;
  cwd?: string;
  /** For "exited": the code, the signal, and the tool call's status. */
  exitCode?: number | null;
  signal?: string | null;
  status?: string;
}

interface Call {
  sessionId: string;
  toolCallId: string;
  terminalId?: string;
  command?: string;
  cwd?: string;
  started: boolean;
  ended: boolean;
}

type Fields = Record<string, unknown>;

function record(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Fields
    : undefined;
}

function statedText(update: Fields): string {
  const parts = typeof update.rawOutput === "string" ? [update.rawOutput] : [];
  for (const item of Array.isArray(update.content) ? update.content : []) {
    const text = record(record(item)?.content)?.text;
    if (typeof text === "string") parts.push(text);
  }
  return parts.join("\n");
}

/** Follows tool calls and emits `agent_terminal` events for their `_meta` terminals. */
export class AgentTerminalEvents {
  readonly #emit: (event: AgentTerminalEvent) => void;
  readonly #calls = new Map<string, Call>();

  constructor(emit: (event: AgentTerminalEvent) => void) {
    this.#emit = emit;
  }

  /** Takes one `session/update`. */
  update(notification: acp.SessionNotification): void {
    const update = record(notification?.update);
    const kind = update?.sessionUpdate;
    const id = update?.toolCallId;
    if (kind !== "tool_call" && kind !== "tool_call_update" || typeof id !== "string") return;
    const key = `${notification.sessionId}\0${id}`;
    const metas = readTerminalMeta(update!._meta, id);
    let call = this.#calls.get(key);
    if (call === undefined) {
      if (metas.length === 0) return; // Not an agent-owned terminal (yet).
      call = { sessionId: notification.sessionId, toolCallId: id, started: false, ended: false };
      this.#calls.set(key, call);
    }
    const command = commandOf(record(update!.rawInput));
    if (command !== undefined) call.command = commandText(command);
    let exit: { exitCode: number | null; signal: string | null } | undefined;
    let ran = command !== undefined;
    for (const meta of metas) {
      call.terminalId ??= meta.terminalId;
      if (meta.kind === "info") {
        call.cwd = meta.cwd ?? call.cwd;
        call.command ??= meta.command; // When no input names it (ACP v2's terminals).
      } else {
        ran = true;
      }
      if (meta.kind === "exit") exit = { exitCode: meta.exitCode, signal: meta.signal };
    }
    const status = typeof update!.status === "string" ? update!.status : undefined;
    if (ran || status === "in_progress") this.#start(call);
    if (exit === undefined && (status === "completed" || status === "failed")) {
      exit = { exitCode: exitCodeInText(statedText(update!)) ?? null, signal: null };
    }
    if (exit !== undefined) this.#end(call, { ...exit, status: status ?? "completed" });
  }

  /** The run ends: a command whose end never came ends "unreported". */
  close(): void {
    for (const call of this.#calls.values()) {
      if (call.started) this.#end(call, { exitCode: null, signal: null, status: "unreported" });
    }
    this.#calls.clear();
  }

  #base(call: Call) {
    return {
      type: "agent_terminal" as const,
      sessionId: call.sessionId,
      toolCallId: call.toolCallId,
      terminalId: call.terminalId ?? call.toolCallId,
      ...(call.command === undefined ? {} : { command: call.command }),
      ...(call.cwd === undefined ? {} : { cwd: call.cwd }),
    };
  }

  #start(call: Call): void {
    if (call.started) return;
    call.started = true;
    this.#emit({ ...this.#base(call), event: "started" });
  }

  #end(
    call: Call,
    exit: { exitCode: number | null; signal: string | null; status: string },
  ): void {
    if (call.ended) return;
    this.#start(call);
    call.ended = true;
    this.#emit({ ...this.#base(call), event: "exited", ...exit });
  }
}
