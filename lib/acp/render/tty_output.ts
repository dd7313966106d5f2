/**
 * A terminal screen with scrolling output above and a live area at the
 * bottom that is redrawn in place (cursor up, erase down). While the live
 * area shows, an unfinished streamed line is held back and shown as its first
 * row, so the area always starts at the beginning of a line.
 * @module
 */

import { MAX_HELD_LINE } from "./line_splitter.ts";
import { StreamFormatter, type StreamKind, type TranscriptOutput } from "./stream_formatter.ts";
import type { Style } from "./style.ts";
import { expandTabs, fitEnd } from "./text.ts";
import type { RenderTarget } from "./types.ts";

/** Width assumed when the target does not say. */
export const DEFAULT_COLUMNS = 80;

// deno-lint-ignore no-control-regex -- removing our own SGR sequences is the point
const SGR = /\x1b\[[0-9;]*m/g;

/** Erases a live area of `rows` rows drawn with the cursor on its last row. */
function erase(rows: number): string {
  if (rows === 0) return "";
  return `\r${rows > 1 ? `\x1b[${rows - 1}A` : ""}\x1b[J`;
}

/** Line feeds as CR LF, right even when the terminal's output processing is off (raw mode). */
function crlf(text: string): string {
  return text.replace(/\r?\n/g, "\r\n");
}

/** Scrolling output and a live area on a terminal. */
export class TtyOutput implements TranscriptOutput {
  readonly #target: RenderTarget;
  readonly #formatter: StreamFormatter;
  readonly #onHeldChange: () => void;
  /** The unfinished streamed line (with its SGR) kept off screen while the live area shows. */
  #held = "";
  /** Rows of the live area below it (already fitted to the width). */
  #live: string[] = [];
  /** Rows of the live area on screen now. */
  #drawn = 0;
  /** While suspended, the live area stays off screen and output is written straight. */
  #suspended = false;

  /**
   * @param target The terminal.
   * @param style Colours.
   * @param onHeldChange Called when the held line changed without a redraw (to schedule one).
   */
  constructor(target: RenderTarget, style: Style, onHeldChange: () => void) {
    this.#target = target;
    this.#formatter = new StreamFormatter(style);
    this.#onHeldChange = onHeldChange;
  }

  /** Usable width: one column short of the terminal's, so rows never wrap. */
  get width(): number {
    const columns = this.#target.columns;
    return Math.max(10, (columns !== undefined && columns > 0 ? columns : DEFAULT_COLUMNS) - 1);
  }

  stream(kind: StreamKind, text: string): void {
    this.#emit(this.#formatter.stream(kind, text));
  }

  lines(lines: readonly string[]): void {
    this.#emit(this.#formatter.lines(lines));
  }

  /**
   * Replaces the live rows and redraws. Rows must contain no line feeds and
   * fit in {@linkcode TtyOutput.width} columns.
   */
  setLive(rows: readonly string[]): void {
    if (rows.length > 0 && !this.#formatter.atLineStart && this.#held === "") {
      // A streamed line is open on screen: the live area must start on a line of its own.
      this.#emit(this.#formatter.end());
    }
    this.#live = [...rows];
    this.redraw();
  }

  /** Writes whole lines above the live area and replaces its rows, in one redraw. */
  commit(lines: readonly string[], rows: readonly string[]): void {
    this.#live = [...rows];
    if (lines.length > 0) this.lines(lines);
    else this.redraw();
  }

  /**
   * Takes the live area off the screen and ends any open line, so that
   * something else (a prompt) can write; {@linkcode TtyOutput.resume} puts it back.
   */
  suspend(): void {
    this.#suspended = true;
    this.redraw();
    this.#emit(this.#formatter.end());
  }

  /** Shows the live area again after {@linkcode TtyOutput.suspend}. */
  resume(): void {
    this.#suspended = false;
    this.redraw();
  }

  /** Draws the live area again (after the held line changed). */
  redraw(): void {
    if (!this.#showing() && this.#held !== "") {
      // Nothing live any more: the held line goes back on screen, still open.
      const held = this.#held;
      this.#held = "";
      this.#target.write(erase(this.#drawn) + held);
      this.#drawn = 0;
      return;
    }
    const out = erase(this.#drawn) + this.#draw();
    if (out !== "") this.#target.write(out);
  }

  /** Ends an open streamed line and removes the live area. */
  finish(): void {
    this.#live = [];
    this.#emit(this.#formatter.end());
    this.redraw();
  }

  #emit(text: string): void {
    if (text === "") return;
    if (this.#drawn === 0 && !this.#showing() && this.#held === "") {
      this.#target.write(crlf(text));
      return;
    }
    const all = this.#held + text;
    const cut = all.lastIndexOf("\n");
    this.#held = all.slice(cut + 1);
    if (this.#held.length > MAX_HELD_LINE) {
      // A very long line without an end: let it scroll up as it is.
      this.#held = "";
      this.#target.write(erase(this.#drawn) + crlf(all) + "\r\n" + this.#draw());
      return;
    }
    if (cut < 0) {
      this.#onHeldChange();
      return;
    }
    const complete = all.slice(0, cut + 1);
    if (!this.#showing() && this.#held !== "") {
      // The live area went away: write everything, the open line included.
      const held = this.#held;
      this.#held = "";
      this.#target.write(erase(this.#drawn) + crlf(complete) + held);
      this.#drawn = 0;
      return;
    }
    this.#target.write(erase(this.#drawn) + crlf(complete) + this.#draw());
  }

  /** Whether a live area is to be shown. */
  #showing(): boolean {
    return !this.#suspended && this.#live.length > 0;
  }

  /** The live area's characters; sets `#drawn`. Assumes the cursor starts a line. */
  #draw(): string {
    const rows = !this.#showing()
      ? []
      : this.#held === ""
      ? this.#live
      : [fitEnd(expandTabs(this.#held.replace(SGR, "")), this.width), ...this.#live];
    this.#drawn = rows.length;
    return rows.join("\r\n");
  }
}
