/**
 * The renderer for a person at a terminal: colours, dimmed thoughts, and each
 * running embedded terminal shown live (the last lines of its screen) below
 * the text, redrawn in place at most every {@linkcode REDRAW_MS} ms.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { TerminalEvent } from "../../service/terminal_service.ts";
import { ANSI_STYLE, PLAIN_STYLE } from "./style.ts";
import { TerminalBoard } from "./terminal_board.ts";
import { Transcript } from "./transcript.ts";
import { TtyOutput } from "./tty_output.ts";
import { LIVE_LINES, LiveTerminals } from "./tty_terminals.ts";
import type { ConversationEvent, PermissionDecision, Renderer, RenderTarget } from "./types.ts";

/** Shortest time between two redraws of the live area. */
export const REDRAW_MS = 50;

/** Settings of a {@linkcode TtyRenderer}. */
export interface TtyRendererOptions {
  /** Use ANSI colours (default true); false keeps the live regions but no colour. */
  color?: boolean;
  /** Lines of output each running terminal shows (default 6). */
  liveLines?: number;
  /** Shortest time between redraws, in ms (default 50). */
  redrawMs?: number;
}

/**
 * Renders a conversation on a terminal, with live regions for running commands.
 *
 * @example
 * ```ts
 * const renderer = new TtyRenderer({ write: (t) => process.stdout.write(t), columns: 100 });
 * service.onEvent((event) => renderer.terminal(event));
 * // ... renderer.update(notification) for each session/update ...
 * await renderer.close();
 * ```
 */
export class TtyRenderer implements Renderer {
  readonly #output: TtyOutput;
  readonly #terminals: LiveTerminals;
  readonly #board: TerminalBoard;
  readonly #transcript: Transcript;
  readonly #redrawMs: number;
  /** The one pending redraw; floods of output only mark regions dirty. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  /**
   * @param target The terminal; `columns` cuts long lines of the live area.
   * @param options Colours, region size and redraw rate.
   */
  constructor(target: RenderTarget, options: TtyRendererOptions = {}) {
    const style = options.color === false ? PLAIN_STYLE : ANSI_STYLE;
    this.#redrawMs = options.redrawMs ?? REDRAW_MS;
    const schedule = () => this.#schedule();
    this.#output = new TtyOutput(target, style, schedule);
    this.#terminals = new LiveTerminals(
      this.#output,
      style,
      schedule,
      options.liveLines ?? LIVE_LINES,
    );
    this.#board = new TerminalBoard(this.#terminals);
    this.#transcript = new Transcript({ style, output: this.#output, terminals: this.#board });
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

  /**
   * Takes the live regions off the screen so that something else can use the
   * terminal (an interactive permission prompt, say); output that arrives
   * meanwhile is written straight, without live regions.
   *
   * @returns A function that puts the live regions back.
   */
  suspend(): () => void {
    if (this.#closed) return () => {};
    this.#output.suspend();
    let resumed = false;
    return () => {
      if (resumed || this.#closed) return;
      resumed = true;
      this.#terminals.refresh();
      this.#output.resume();
    };
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#board.close(); // Ends the cards of terminals whose end the agent never reported.
      this.#terminals.close();
      this.#output.finish();
    }
    return Promise.resolve();
  }

  #schedule(): void {
    if (this.#closed || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (!this.#closed) this.#terminals.refresh();
    }, this.#redrawMs);
  }
}
