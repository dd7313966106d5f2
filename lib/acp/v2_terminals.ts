/**
 * ACP v2's agent-owned terminals, shown by a v1 client. In the v2 draft a
 * tool call shows a terminal by embedding `{type: "terminal", terminalId}`
 * (in its `content`, or one `tool_call_content_chunk` at a time), and two `session/update` kinds carry its state: `terminal_update` (the
 * command, cwd, exit status and an output snapshot, each patched when
 * present) and `terminal_output_chunk` (base64 bytes appended). A v1
 * connection of the SDK drops both (they fail its schema); termbridge's own
 * stream check passes update kinds newer than v1 on (agent_stream.ts), so an
 * agent that sends them anyway reaches this module, which turns each into
 * what agents of today send for the same thing: the `_meta` terminal
 * extensions (`terminal_info`, `terminal_output`, `terminal_exit`) on the
 * tool call that embeds the terminal, or on a tool call of its own (kind
 * `execute`, the command in `rawInput`) when none does yet. Every renderer
 * then shows them as cards, and the audit records their commands.
 * @module
 */

import { Buffer } from "node:buffer";
import type * as acp from "@agentclientprotocol/sdk";

type Fields = Record<string, unknown>;

/** `_meta` key marking the updates this module makes (its value: the v2 kind they come from). */
export const TRANSLATED = "termbridge_translated";

/** Most v2 terminals followed at once; the oldest are forgotten past it. */
const FOLLOWED = 256;

interface Followed {
  /** The tool call its card is on (an embedding one, or its own). */
  toolCallId?: string;
  /** Its own tool call (none embedded it before its first update). */
  own: boolean;
  command?: string;
  cwd?: string;
  /** Its output as text so far, to tell what a replacing snapshot adds. */
  shown: string;
  decoder: TextDecoder;
  exited: boolean;
}

function record(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Fields
    : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Follows v2 terminals and tool calls; translates the v2 terminal updates of one run. */
export class V2Terminals {
  readonly #terminals = new Map<string, Followed>();
  /** Terminals tool calls embedded before any update of theirs: key -> tool call id. */
  readonly #embedded = new Map<string, string>();

  /**
   * Takes one `session/update` (valid, or of a kind newer than v1) and
   * returns the updates that show it in v1's terms: none for most kinds;
   * for `terminal_update` and `terminal_output_chunk`, `tool_call(_update)`s
   * with the `_meta` terminal extensions. Never throws; malformed ones give none.
   */
  translate(notification: acp.SessionNotification): acp.SessionNotification[] {
    const update = record(record(notification)?.update);
    if (update === undefined) return [];
    const sessionId = String(notification.sessionId ?? "");
    const kind = update.sessionUpdate;
    if (kind === "tool_call" || kind === "tool_call_update") {
      this.#embeds(sessionId, update.toolCallId, update.content);
      return [];
    }
    if (kind === "tool_call_content_chunk") {
      this.#embeds(sessionId, update.toolCallId, [update.content]);
      return [];
    }
    const terminalId = str(update.terminalId);
    if (terminalId === undefined) return [];
    if (kind === "terminal_update") return this.#update(sessionId, terminalId, update);
    if (kind === "terminal_output_chunk") {
      const data = str(update.data);
      if (data === undefined) return [];
      const terminal = this.#follow(sessionId, terminalId);
      const text = terminal.decoder.decode(Buffer.from(data, "base64"), { stream: true });
      return this.#show(sessionId, terminalId, terminal, { output: text }, kind);
    }
    return [];
  }

  /** Notes which terminals a tool call embeds (the first to embed one gets its card). */
  #embeds(sessionId: string, id: unknown, content: unknown): void {
    const toolCallId = str(id);
    if (toolCallId === undefined || !Array.isArray(content)) return;
    for (const item of content) {
      const fields = record(item);
      const terminalId = fields?.type === "terminal" ? str(fields.terminalId) : undefined;
      if (terminalId === undefined) continue;
      const key = `${sessionId}\0${terminalId}`;
      const terminal = this.#terminals.get(key);
      if (terminal !== undefined) terminal.toolCallId ??= toolCallId;
      else if (!this.#embedded.has(key)) this.#embedded.set(key, toolCallId);
    }
  }

  #update(sessionId: string, terminalId: string, update: Fields): acp.SessionNotification[] {
    const terminal = this.#follow(sessionId, terminalId);
    const change: Change = {};
    const command = str(update.command);
    const cwd = str(update.cwd);
    if (command !== undefined && command !== terminal.command) change.command = command;
    if (cwd !== undefined && cwd !== terminal.cwd) change.cwd = cwd;
    const snapshot = str(record(update.output)?.data);
    if (snapshot !== undefined) {
      // A replacement: what extends the output shown is new; anything else is shown whole.
      const text = new TextDecoder().decode(Buffer.from(snapshot, "base64"));
      terminal.decoder = new TextDecoder();
      change.output = text.startsWith(terminal.shown) ? text.slice(terminal.shown.length) : text;
      change.snapshot = text;
    }
    const exit = record(update.exitStatus);
    if (exit !== undefined && !terminal.exited) {
      const code = exit.exitCode;
      change.exit = {
        exitCode: typeof code === "number" && Number.isFinite(code) ? code : null,
        signal: str(exit.signal) ?? null,
      };
    }
    return this.#show(sessionId, terminalId, terminal, change, "terminal_update");
  }

  #follow(sessionId: string, terminalId: string): Followed {
    const key = `${sessionId}\0${terminalId}`;
    let terminal = this.#terminals.get(key);
    if (terminal === undefined) {
      const toolCallId = this.#embedded.get(key);
      this.#embedded.delete(key);
      terminal = { toolCallId, own: false, shown: "", decoder: new TextDecoder(), exited: false };
      this.#terminals.set(key, terminal);
      if (this.#terminals.size > FOLLOWED) {
        this.#terminals.delete(this.#terminals.keys().next().value!);
      }
    }
    return terminal;
  }

  /** The updates that put `change` on the terminal's card (its own tool call made first). */
  #show(
    sessionId: string,
    terminalId: string,
    terminal: Followed,
    change: Change,
    from: string,
  ): acp.SessionNotification[] {
    if (change.command !== undefined) terminal.command = change.command;
    if (change.cwd !== undefined) terminal.cwd = change.cwd;
    const meta: Fields = {};
    if (change.command !== undefined || change.cwd !== undefined) {
      meta.terminal_info = {
        terminal_id: terminalId,
        ...(terminal.command === undefined ? {} : { command: terminal.command }),
        ...(terminal.cwd === undefined ? {} : { cwd: terminal.cwd }),
      };
    }
    if (change.output !== undefined && change.output !== "") {
      meta.terminal_output = { terminal_id: terminalId, data: change.output };
    }
    terminal.shown = change.snapshot ?? terminal.shown + (change.output ?? "");
    if (change.exit !== undefined) {
      terminal.exited = true;
      meta.terminal_exit = {
        terminal_id: terminalId,
        exit_code: change.exit.exitCode,
        signal: change.exit.signal,
      };
    }
    if (Object.keys(meta).length === 0) return [];
    const made: acp.SessionNotification[] = [];
    if (terminal.toolCallId === undefined) {
      terminal.own = true;
      terminal.toolCallId = `termbridge-v2-${terminalId}`;
      made.push(this.#ownCall(sessionId, terminal));
    }
    // Its own tool call learns a command it was made without.
    const rawInput = terminal.own && made.length === 0 && change.command !== undefined
      ? { rawInput: { command: terminal.command } }
      : {};
    made.push(
      this.#callUpdate(sessionId, terminal, {
        ...rawInput,
        _meta: { [TRANSLATED]: from, ...meta },
      }),
    );
    if (terminal.own && change.exit !== undefined) {
      // Its own tool call ends with it (after its output and exit are shown).
      const status = change.exit.exitCode === 0 ? "completed" : "failed";
      made.push(this.#callUpdate(sessionId, terminal, { status, _meta: { [TRANSLATED]: from } }));
    }
    return made;
  }

  #callUpdate(sessionId: string, terminal: Followed, fields: Fields): acp.SessionNotification {
    return {
      sessionId,
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: terminal.toolCallId!,
        ...fields,
      } as acp.SessionUpdate,
    };
  }

  /** The tool call of a terminal no tool call embeds: titled by its command, kind execute. */
  #ownCall(sessionId: string, terminal: Followed): acp.SessionNotification {
    return {
      sessionId,
      update: {
        sessionUpdate: "tool_call",
        toolCallId: terminal.toolCallId!,
        title: terminal.command ?? "Terminal",
        kind: "execute",
        status: "in_progress",
        ...(terminal.command === undefined ? {} : { rawInput: { command: terminal.command } }),
        _meta: { [TRANSLATED]: "terminal_update" },
      },
    };
  }
}

/** What one v2 update changes about a terminal. */
interface Change {
  command?: string;
  cwd?: string;
  /** Text to append to the card. */
  output?: string;
  /** After a replacing snapshot: the whole output as now known. */
  snapshot?: string;
  exit?: { exitCode: number | null; signal: string | null };
}
