/**
 * The renderer for logs, pipes and `NO_COLOR`: readable plain lines without
 * a single escape sequence; embedded terminals' output written as plain lines
 * marked with their tool call, as it arrives.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { TerminalEvent } from "../../service/terminal_service.ts";
import { PlainTerminals } from "./plain_terminals.ts";
import { StreamFormatter, type StreamKind, type TranscriptOutput } from "./stream_formatter.ts";
import { PLAIN_STYLE } from "./style.ts";
import { TerminalBoard } from "./terminal_board.ts";
import { Transcript } from "./transcript.ts";
import type { ConversationEvent, PermissionDecision, Renderer, RenderTarget } from "./types.ts";

/** Writes a transcript straight to a target. */
class PlainOutput implements TranscriptOutput {
  readonly #target: RenderTarget;
  readonly #formatter = new StreamFormatter(PLAIN_STYLE);

  constructor(target: RenderTarget) {
    this.#target = target;
  }

  stream(kind: StreamKind, text: string): void {
    this.#write(this.#formatter.stream(kind, text));
  }

  lines(lines: readonly string[]): void {
    this.#write(this.#formatter.lines(lines));
  }

  /** Ends a streamed line left open. */
  finish(): void {
    this.#write(this.#formatter.end());
  }

  #write(text: string): void {
    if (text !== "") this.#target.write(text);
  }
}

/**
 * Renders a conversation as plain text lines.
 *
 * @example
 * ```ts
 * const renderer = new PlainRenderer({ write: (text) => process.stdout.write(text) });
 * renderer.update({
 *   sessionId: "s",
 *   update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "Hi" } },
 * });
 * await renderer.close(); // "Hi\n"
 * ```
 */
export class PlainRenderer implements Renderer {
  readonly #output: PlainOutput;
  readonly #terminals: PlainTerminals;
  readonly #board: TerminalBoard;
  readonly #transcript: Transcript;
  #closed = false;

  /** @param target Where the lines go. */
  constructor(target: RenderTarget) {
    this.#output = new PlainOutput(target);
    this.#terminals = new PlainTerminals((lines) => this.#output.lines(lines), PLAIN_STYLE);
    this.#board = new TerminalBoard(this.#terminals);
    this.#transcript = new Transcript({
      style: PLAIN_STYLE,
      output: this.#output,
      terminals: this.#board,
    });
  }

  update(notification: acp.SessionNotification): void {
    if (!this.#closed) this.#transcript.update(notification);
  }

  terminal(event: TerminalEvent): void {
    if (!this.#closed) this.#board.terminalEvent(event);
  }

  permission(decision: PermissionDecision): void {
    if (!this.#closed) this.#transcript.permission(decision);
  }

  event(event: ConversationEvent): void {
    if (!this.#closed) this.#transcript.event(event);
  }

  /** Nothing is live here: nothing to take off the screen. */
  suspend(): () => void {
    return () => {};
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#board.close(); // Ends the cards of terminals whose end the agent never reported.
      this.#terminals.close();
      this.#output.finish();
    }
    return Promise.resolve();
  }
}
