/**
 * What a person reads of a conversation, shared by the plain and the TTY
 * renderer: `session/update` notifications, permission decisions and events
 * turned into streamed text and lines, tool call state kept across updates,
 * and embedded terminals handed to a terminal board.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import {
  contentText,
  formatDiff,
  formatEvent,
  formatPermission,
  formatPlan,
  formatToolCall,
  formatToolText,
  type ToolCallSummary,
} from "./format.ts";
import { commandText, exitCodeInText, readTerminalMeta, type TerminalMeta } from "./meta.ts";
import { commandOf } from "../tool_intent.ts";
import type { StreamKind, TranscriptOutput } from "./stream_formatter.ts";
import type { Style } from "./style.ts";
import { label, sanitize } from "./text.ts";
import type { ConversationEvent, PermissionDecision } from "./types.ts";

/** Where embedded terminals go (a {@linkcode TerminalBoard}). */
export interface TerminalSink {
  embed(terminalId: string, label: string): void;
  meta(event: TerminalMeta, label: string, toolCallId: string): void;
  toolCallEnded(toolCallId: string, status: "completed" | "failed", exitCode?: number): void;
  describe(toolCallId: string, label: string, command: string | undefined): void;
}

interface CallState extends ToolCallSummary {
  /** The command its `rawInput` names, as text. */
  command?: string;
  /** Hashes of the content items already printed (content is resent with each update). */
  printed: Set<number>;
  locations: string;
  /** A command of termbridge's own tools runs in it: its card shows it, not the JSON result. */
  ownCard?: boolean;
}

type Fields = Record<string, unknown>;

function record(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null ? value as Fields : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** FNV-1a over the UTF-16 code units of `parts`: a cheap identity for printed content. */
function hash(...parts: string[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    for (let i = 0; i < part.length; i++) h = Math.imul(h ^ part.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0xff, 0x01000193);
  }
  return h >>> 0;
}

/** Turns what happens in a conversation into output for people. */
export class Transcript {
  readonly #style: Style;
  readonly #output: TranscriptOutput;
  readonly #terminals: TerminalSink;
  readonly #calls = new Map<string, CallState>();
  readonly #plans = new Map<string, string>();
  /** The tool call the last lines were about, so a later update can skip its header. */
  #lastCall: string | undefined;

  constructor(options: { style: Style; output: TranscriptOutput; terminals: TerminalSink }) {
    this.#style = options.style;
    this.#output = options.output;
    this.#terminals = options.terminals;
  }

  /** Shows a `session/update`; unknown or malformed updates are ignored. */
  update(notification: acp.SessionNotification): void {
    const update = record(record(notification)?.update);
    if (update === undefined) return;
    const sessionId = String(notification.sessionId ?? "");
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        return this.#chunk("message", update.content);
      case "agent_thought_chunk":
        return this.#chunk("thought", update.content);
      case "user_message_chunk":
        return this.#chunk("user", update.content);
      case "tool_call":
        return this.#toolCall(sessionId, update, true);
      case "tool_call_update":
        return this.#toolCall(sessionId, update, false);
      case "plan":
        return this.#plan(sessionId, update.entries);
      case "current_mode_update":
        if (str(update.currentModeId)) {
          this.#lines([this.#style.dim(`Mode: ${sanitize(str(update.currentModeId)!)}`)]);
        }
        return;
      case "notice": {
        const title = sanitize(str(update.title) ?? "");
        const description = str(update.description);
        this.#lines([
          this.#style.yellow(`! ${title}${description ? `: ${sanitize(description)}` : ""}`),
        ]);
        return;
      }
      default:
        return; // Kinds we do not show, and kinds newer than this client.
    }
  }

  /** Shows a permission request and its answer. */
  permission(decision: PermissionDecision): void {
    const id = str(decision.toolCall?.toolCallId) ?? "";
    const title = str(decision.toolCall?.title) ??
      this.#calls.get(`${decision.sessionId}\0${id}`)?.title ?? "tool call";
    this.#lines([formatPermission(this.#style, decision, title)]);
  }

  /** Shows a conversation event. */
  event(event: ConversationEvent): void {
    this.#lines(formatEvent(this.#style, event));
  }

  #lines(lines: string[], call?: string): void {
    if (lines.length === 0) return;
    this.#output.lines(lines);
    this.#lastCall = call;
  }

  #chunk(kind: StreamKind, content: unknown): void {
    const text = contentText(content);
    if (text === "") return;
    this.#output.stream(kind, text);
    this.#lastCall = undefined;
  }

  #plan(sessionId: string, entries: unknown): void {
    if (!Array.isArray(entries)) return;
    const valid = entries.filter((e) => record(e) !== undefined) as acp.PlanEntry[];
    const key = JSON.stringify(valid.map((e) => [e.content, e.status]));
    if (this.#plans.get(sessionId) === key) return;
    if (valid.length === 0 && !this.#plans.has(sessionId)) return;
    this.#plans.set(sessionId, key);
    this.#lines(formatPlan(this.#style, valid));
  }

  #toolCall(sessionId: string, update: Fields, created: boolean): void {
    const id = str(update.toolCallId);
    if (id === undefined) return;
    const key = `${sessionId}\0${id}`;
    let call = this.#calls.get(key);
    let changed = false;
    if (call === undefined || created) {
      call = {
        title: str(update.title) ?? call?.title ?? "Tool call",
        kind: str(update.kind) ?? call?.kind,
        status: str(update.status) ?? call?.status,
        printed: call?.printed ?? new Set(),
        locations: call?.locations ?? "",
      };
      this.#calls.set(key, call);
      changed = true;
    } else {
      const { title, status } = call;
      call.title = str(update.title) ?? call.title;
      call.kind = str(update.kind) ?? call.kind;
      call.status = str(update.status) ?? call.status;
      changed = call.title !== title || call.status !== status;
    }
    if (record(update._meta)?.termbridge !== undefined) call.ownCard = true;
    const body: string[] = [];
    const embedded: string[] = [];
    if (Array.isArray(update.content)) {
      for (const item of update.content) this.#content(call, item, body, embedded);
    }
    if (Array.isArray(update.locations)) this.#locations(call, update.locations, body);
    if (changed || (body.length > 0 && this.#lastCall !== key)) {
      body.unshift(formatToolCall(this.#style, call));
    }
    this.#lines(body, key);
    const name = label(call.title);
    for (const terminalId of embedded) this.#terminals.embed(terminalId, name);
    for (const meta of readTerminalMeta(update._meta, id)) this.#terminals.meta(meta, name, id);
    const command = commandOf(record(update.rawInput));
    if (command !== undefined) call.command = commandText(command);
    if (command !== undefined || changed) this.#terminals.describe(id, name, call.command);
    if (call.status === "completed" || call.status === "failed") {
      const code = this.#exitCodeIn(update.content);
      this.#terminals.toolCallEnded(id, call.status, code);
    }
  }

  /** An exit code a tool call's text content states, if it states one. */
  #exitCodeIn(content: unknown): number | undefined {
    if (!Array.isArray(content)) return undefined;
    for (const item of content) {
      const fields = record(item);
      if (fields?.type !== "content") continue;
      const code = exitCodeInText(contentText(fields.content));
      if (code !== undefined) return code;
    }
    return undefined;
  }

  /** Adds the lines of one content item not printed before; collects terminal ids. */
  #content(call: CallState, item: unknown, body: string[], embedded: string[]): void {
    const fields = record(item);
    if (fields === undefined) return;
    if (fields.type === "terminal") {
      const terminalId = str(fields.terminalId) ?? str(fields.terminal_id);
      if (terminalId !== undefined) embedded.push(terminalId);
      return;
    }
    let lines: string[];
    let identity: number;
    if (fields.type === "diff") {
      const diff = fields as unknown as acp.Diff;
      identity = hash(
        "diff",
        String(diff.path),
        String(diff.oldText ?? "\0"),
        String(diff.newText),
      );
      lines = formatDiff(this.#style, diff);
    } else if (fields.type === "content") {
      if (call.ownCard && call.status !== "failed") return; // The card has it (errors still show).
      const text = contentText(fields.content);
      identity = hash("content", text);
      lines = formatToolText(this.#style, text);
    } else {
      return;
    }
    if (call.printed.has(identity)) return;
    call.printed.add(identity);
    body.push(...lines);
  }

  #locations(call: CallState, locations: unknown[], body: string[]): void {
    const places = locations.flatMap((location) => {
      const fields = record(location);
      const path = str(fields?.path);
      if (path === undefined) return [];
      const line = typeof fields?.line === "number" ? `:${fields.line}` : "";
      return [`${sanitize(path)}${line}`];
    });
    const key = places.join(", ");
    if (key === "" || key === call.locations) return;
    call.locations = key;
    body.push(this.#style.dim(`  ↳ ${key}`));
  }
}
