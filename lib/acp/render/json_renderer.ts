/**
 * `--json`: instead of rendering, one JSON object per line for every update,
 * terminal event, piece of terminal output, permission decision and
 * conversation event, for scripts.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import { AgentTerminalEvents } from "./agent_terminal_events.ts";
import type { TerminalEvent } from "../../service/terminal_service.ts";
import type { Terminal } from "../../terminal/terminal.ts";
import type { ConversationEvent, PermissionDecision, Renderer, RenderTarget } from "./types.ts";

interface Follow {
  sessionId: string;
  terminal: Terminal;
  /** Absolute offset in the text log up to which output was emitted. */
  offset: number;
  unsubscribe: () => void;
}

const decoder = new TextDecoder();

/**
 * Writes JSON lines:
 * - `{"type":"update","sessionId","update"}`: a `session/update` as received;
 * - `{"type":"terminal","event":"created"|"exited"|"killed"|"released","terminalId","sessionId",...}`:
 *   `created` has `command`, `cwd`, `via`; `exited` has `exitCode`, `signal`,
 *   `durationMs`; `released` has the final `output` and `truncated`;
 * - `{"type":"terminal_output","terminalId","sessionId","data"}`: output as
 *   it arrives (plain text, append-only; `dropped` counts bytes the output
 *   limit dropped before they could be sent);
 * - `{"type":"agent_terminal","event":"started"|"exited","sessionId","toolCallId","terminalId","command","cwd",...}`:
 *   a command an agent runs itself (its `_meta` terminal); `exited` has
 *   `exitCode`, `signal` and `status` (`unreported` when the run ended first);
 * - `{"type":"permission",...}`: the decision, with the chosen `optionId`;
 * - `{"type":"file_read","sessionId","path","line"?,"limit"?,"lines","bytes"}` (or `error`)
 *   and `{"type":"file_written","sessionId","path","bytes"}` (or `error`): each
 *   `fs/*` request of the agent and its outcome;
 * - `{"type":"agent"|"session"|"prompt"|"stop"|"notice"|"warning"|"error",...}`.
 *
 * @example
 * ```ts
 * const renderer = new JsonRenderer({ write: (line) => process.stdout.write(line) });
 * renderer.event({ type: "stop", sessionId: "s", stopReason: "end_turn" });
 * // {"type":"stop","sessionId":"s","stopReason":"end_turn"}
 * ```
 */
export class JsonRenderer implements Renderer {
  readonly #target: RenderTarget;
  readonly #follows = new Map<string, Follow>();
  readonly #agentTerminals = new AgentTerminalEvents((event) => this.#emit({ ...event }));
  #closed = false;

  /** @param target Where the lines go (stdout). */
  constructor(target: RenderTarget) {
    this.#target = target;
  }

  update(notification: acp.SessionNotification): void {
    if (this.#closed) return;
    const meta = notification?._meta;
    this.#emit({
      type: "update",
      sessionId: notification?.sessionId,
      update: notification?.update,
      ...(meta === undefined || meta === null ? {} : { _meta: meta }),
    });
    this.#agentTerminals.update(notification);
  }

  terminal(event: TerminalEvent): void {
    if (this.#closed) return;
    const base = {
      type: "terminal",
      event: event.type,
      terminalId: event.id,
      sessionId: event.sessionId,
    };
    switch (event.type) {
      case "created":
        this.#emit({ ...base, command: event.command, cwd: event.cwd, via: event.via });
        this.#follow(event.id, event.sessionId, event.terminal);
        break;
      case "exited":
        this.#drain(event.id);
        this.#emit({
          ...base,
          exitCode: event.status.exitCode,
          signal: event.status.signal,
          durationMs: Math.round(event.durationMs),
        });
        break;
      case "released": {
        const follow = this.#follows.get(event.id);
        this.#drain(event.id);
        this.#unfollow(event.id);
        const output = follow?.terminal.output();
        this.#emit(
          output === undefined
            ? base
            : { ...base, output: output.text, truncated: output.truncated },
        );
        break;
      }
      default:
        this.#emit(base);
    }
  }

  permission(decision: PermissionDecision): void {
    if (this.#closed) return;
    this.#emit({ type: "permission", ...decision, optionId: decision.option?.optionId ?? null });
  }

  event(event: ConversationEvent): void {
    if (!this.#closed) this.#emit({ ...event });
  }

  /** Sends the output not yet sent, then stops following terminals. */
  /** Nothing is live here: nothing to take off the screen. */
  suspend(): () => void {
    return () => {};
  }

  close(): Promise<void> {
    if (!this.#closed) {
      for (const id of [...this.#follows.keys()]) {
        this.#drain(id);
        this.#unfollow(id);
      }
      this.#agentTerminals.close();
      this.#closed = true;
    }
    return Promise.resolve();
  }

  #emit(object: Record<string, unknown>): void {
    this.#target.write(JSON.stringify(object) + "\n");
  }

  #follow(id: string, sessionId: string, terminal: Terminal): void {
    this.#unfollow(id);
    const follow: Follow = { sessionId, terminal, offset: 0, unsubscribe: () => {} };
    this.#follows.set(id, follow);
    follow.unsubscribe = terminal.onChange(() => this.#drain(id));
    this.#drain(id);
  }

  #unfollow(id: string): void {
    this.#follows.get(id)?.unsubscribe();
    this.#follows.delete(id);
  }

  /** Emits what the terminal's text log gained since the last time. */
  #drain(id: string): void {
    const follow = this.#follows.get(id);
    if (follow === undefined) return;
    const log = follow.terminal.textLog;
    if (log.totalBytes === follow.offset) return;
    const keptFrom = log.totalBytes - log.byteLength;
    const dropped = Math.max(0, keptFrom - follow.offset);
    const data = decoder.decode(log.since(follow.offset));
    follow.offset = log.totalBytes;
    this.#emit({
      type: "terminal_output",
      terminalId: id,
      sessionId: follow.sessionId,
      data,
      ...(dropped > 0 ? { dropped } : {}),
    });
  }
}
