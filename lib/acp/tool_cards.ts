/**
 * Commands the agent runs through termbridge's own MCP tools, shown as
 * terminal cards: each is put on the agent's tool call for it (found by the
 * id its MCP request carried, else by the command in the call's input) as
 * the `_meta` terminal extensions the renderers already show (`terminal_info`
 * with the command and cwd, `terminal_output`, `terminal_exit`), marked
 * `_meta.termbridge` so that the call's JSON result is not printed as text. A
 * command no tool call can be found for gets a tool call of its own.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { ToolCommandEvent } from "./host.ts";

type Fields = Record<string, unknown>;

interface AgentCall {
  id: string;
  rawInput?: unknown;
  done: boolean;
}

interface Card {
  toolCallId: string;
  own: boolean;
}

/** Most agent tool calls remembered for linking. */
const REMEMBERED = 64;

/** Whether `value` holds the string `text` anywhere (an MCP call's input holds its arguments). */
function holds(value: unknown, text: string, depth = 0): boolean {
  if (typeof value === "string") return value === text;
  if (value === null || typeof value !== "object" || depth > 4) return false;
  return Object.values(value as Fields).some((child) => holds(child, text, depth + 1));
}

/** Turns {@linkcode ToolCommandEvent}s into `session/update` notifications for the renderer. */
export class ToolCards {
  readonly #show: (notification: acp.SessionNotification) => void;
  readonly #sessionId: () => string;
  readonly #calls: AgentCall[] = [];
  readonly #cards = new Map<string, Card>();

  /**
   * @param show Renders a notification (the renderer's `update`).
   * @param sessionId The run's session.
   */
  constructor(show: (notification: acp.SessionNotification) => void, sessionId: () => string) {
    this.#show = show;
    this.#sessionId = sessionId;
  }

  /** Follows the agent's tool calls, to find the one a command belongs to. */
  observe(notification: acp.SessionNotification): void {
    const update = notification.update as Fields;
    if (update.sessionUpdate !== "tool_call" && update.sessionUpdate !== "tool_call_update") return;
    const id = update.toolCallId;
    if (typeof id !== "string") return;
    let call = this.#calls.find((c) => c.id === id);
    if (call === undefined) {
      call = { id, done: false };
      this.#calls.push(call);
      if (this.#calls.length > REMEMBERED) this.#calls.shift();
    }
    if (update.rawInput !== undefined && update.rawInput !== null) call.rawInput = update.rawInput;
    if (update.status === "completed" || update.status === "failed") call.done = true;
  }

  /** Shows what a command run through the tools did. */
  event(event: ToolCommandEvent): void {
    if (event.kind === "start") return this.#start(event);
    const card = this.#cards.get(event.id);
    if (card === undefined) return;
    if (event.kind === "output") {
      return this.#update(card, { terminal_output: { terminal_id: event.id, data: event.data } });
    }
    this.#cards.delete(event.id);
    if (event.status === "running") return; // The run ended first: the card says "still running".
    const exit = event.exitCode === null
      ? {}
      : { terminal_exit: { terminal_id: event.id, exit_code: event.exitCode } };
    const status = card.own
      ? { status: event.status === "completed" && event.exitCode === 0 ? "completed" : "failed" }
      : {};
    this.#update(card, exit, status);
  }

  #start(event: ToolCommandEvent & { kind: "start" }): void {
    const linked = event.toolCallId ??
      this.#calls.findLast((c) => !c.done && holds(c.rawInput, event.command))?.id;
    const card: Card = linked === undefined
      ? { toolCallId: `termbridge-${event.id}`, own: true }
      : { toolCallId: linked, own: false };
    this.#cards.set(event.id, card);
    const meta = {
      termbridge: { tool: "terminal_execute", session: event.session, command: event.command },
      terminal_info: { terminal_id: event.id, cwd: event.cwd, command: event.command },
    };
    if (!card.own) return this.#update(card, meta);
    this.#show({
      sessionId: this.#sessionId(),
      update: {
        sessionUpdate: "tool_call",
        toolCallId: card.toolCallId,
        title: "terminal_execute",
        kind: "execute",
        status: "in_progress",
        rawInput: { command: event.command },
        _meta: meta,
      },
    });
  }

  #update(card: Card, meta: Fields, fields: Fields = {}): void {
    this.#show({
      sessionId: this.#sessionId(),
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: card.toolCallId,
        ...fields,
        _meta: { termbridge: { tool: "terminal_execute" }, ...meta },
      } as acp.SessionUpdate,
    });
  }
}
