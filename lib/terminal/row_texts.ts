/**
 * The text of the visible rows, kept between reads. A wait checks the screen
 * after every chunk of output, and reading a full 120x40 screen from xterm
 * cost 30-55 us, as much as parsing an echo (bench/terminal.ts's round trip):
 * most chunks change a row or two, so only those are read again.
 *
 * What changed is known from xterm's own bookkeeping, which its renderer
 * relies on: the parser marks every row whose cells it changes and every row
 * the cursor visits (relative to the row base, between `start` and `end` of
 * its dirty-row tracker), and the buffer service reports each scroll. A line
 * keeps its text when it moves (lines are objects, kept by object here), so
 * a scroll only brings in one changed line, at the bottom of the scroll
 * region (forgotten at the scroll too, in case no mark covers it). xterm also
 * marks the whole scroll region on each scroll, for a renderer to repaint
 * it; that mark is undone here (headless xterm has no renderer), else every
 * scroll would forget every row. At most two screenfuls of rows are kept.
 * tests/terminal/row_texts.test.ts compares every read with xterm read
 * afresh, over random output.
 * @module
 */

import type xterm from "@xterm/headless";
import { freshText } from "./screen.ts";

/** A line of xterm's buffer, as the cache knows it: only as a key. */
type Line = object;

/** The parts of xterm's core the cache reads (internal: the version is pinned and tested). */
export interface RowTextsCore {
  buffer: {
    ybase: number;
    ydisp: number;
    scrollBottom: number;
    lines: { length: number; get(index: number): Line | undefined };
  };
  _inputHandler: { _dirtyRowTracker?: { start: number; end: number } };
  _bufferService?: { scroll?(eraseAttributes: unknown, isWrapped?: boolean): void };
}

/** Texts of the visible rows last read, forgotten where a write may have changed them. */
export class RowTexts {
  #core: RowTextsCore;
  #rows: () => number;
  #texts = new LineTexts();
  /** Scrolls during the write under way. */
  #scrolls = 0;
  /** False where xterm lacks what the cache relies on: every read is then fresh. */
  #enabled: boolean;

  constructor(core: RowTextsCore, rows: () => number) {
    this.#core = core;
    this.#rows = rows;
    const handler = core._inputHandler;
    const service = core._bufferService;
    const scroll = service?.scroll;
    const tracker = handler._dirtyRowTracker;
    this.#enabled = tracker !== undefined && typeof scroll === "function";
    if (!this.#enabled) return;
    // Each scroll is followed by wrapping the buffer service's method, which undoes the
    // region-wide repaint mark xterm's own listener adds. (A second listener of the scroll
    // event, or a no-op in place of the input handler's markRangeDirty, each raised the peak
    // RSS of a server under a `yes` flood by 10 to 50 MB.)
    service!.scroll = (eraseAttributes, isWrapped) => {
      const { start, end } = tracker!;
      scroll!.call(service, eraseAttributes, isWrapped);
      tracker!.start = start;
      tracker!.end = end;
      this.#scrolled();
    };
  }

  /** Runs `parse` (one write to xterm), then forgets the rows it may have changed. */
  write(parse: () => void): void {
    const buffer = this.#core.buffer;
    this.#scrolls = 0;
    parse();
    if (this.#texts.size === 0) return;
    const now = this.#core.buffer;
    const tracker = this.#core._inputHandler._dirtyRowTracker;
    if (now !== buffer || tracker === undefined) {
      this.forget(); // The other screen (or a reset): other lines altogether.
      return;
    }
    // A row marked before a scroll has moved up since (lines scroll out into the scrollback,
    // or up inside a scroll region); rows that moved down were marked with their whole region.
    // (Not bounded by the buffer's length: after the alternate screen shrinks, xterm's screen
    // may end past it, where its list still hands out, and writes, a line left there.)
    const from = Math.max(0, now.ybase + tracker.start - this.#scrolls);
    const to = now.ybase + tracker.end;
    if (to - from >= this.#rows()) {
      this.forget();
      return;
    }
    for (let i = from; i <= to; i++) {
      const line = now.lines.get(i);
      if (line !== undefined) this.#texts.delete(line);
    }
  }

  /** How many rows' texts are kept (at most two screenfuls). */
  get size(): number {
    return this.#texts.size;
  }

  /** Forgets every row (a resize re-wraps them all). */
  forget(): void {
    this.#texts.clear();
  }

  /** Row `y`'s text without trailing blanks (`line` is xterm's public view of it). */
  text(y: number, line: xterm.IBufferLine): string {
    const buffer = this.#core.buffer;
    const visible = this.#enabled && y >= buffer.ydisp && y < buffer.ydisp + this.#rows();
    const key = visible ? buffer.lines.get(y) : undefined;
    const known = key === undefined ? undefined : this.#texts.get(key);
    if (known !== undefined) return known;
    const text = freshText(y, line);
    if (key === undefined) return text;
    // Lines xterm drops without a scroll (inserted or deleted lines, a screen left) stay keys
    // here until the next forget: bounded by starting over.
    if (this.#texts.size >= 2 * this.#rows()) this.forget();
    this.#texts.set(key, text);
    return text;
  }

  #scrolled(): void {
    // A flood scrolls a thousand lines per chunk: once a screenful went by, nothing kept is
    // on it any more, and the rest of the chunk's scrolls cost a count.
    if (++this.#scrolls > this.#rows()) {
      if (this.#texts.size > 0) this.forget();
      return;
    }
    if (this.#texts.size === 0) return;
    const buffer = this.#core.buffer;
    // The line the scroll brought in (a new one, or the oldest of a full scrollback, blanked).
    const entered = buffer.lines.get(buffer.ybase + buffer.scrollBottom);
    if (entered !== undefined) this.#texts.delete(entered);
    // The line that left the screen for the scrollback: kept texts are the screen's only.
    const left = buffer.ybase > 0 ? buffer.lines.get(buffer.ybase - 1) : undefined;
    if (left !== undefined) this.#texts.delete(left);
  }
}

/**
 * Texts kept by line object, in two arrays: at most two screenfuls, so a
 * lookup is a short `indexOf`. Not a Map: a JavaScriptCore Map keyed by
 * xterm's line objects and cleared after every chunk of a flood kept memory
 * the collector never gave back (a session server under a `yes` flood, with
 * a `wait` checking the screen after each chunk: +2 to 3 MB of RSS a second,
 * +93 MB after 40 s; flat with these arrays).
 */
class LineTexts {
  #lines: Line[] = [];
  #texts: string[] = [];

  get size(): number {
    return this.#lines.length;
  }

  get(line: Line): string | undefined {
    const at = this.#lines.indexOf(line);
    return at === -1 ? undefined : this.#texts[at];
  }

  set(line: Line, text: string): void {
    const at = this.#lines.indexOf(line);
    if (at !== -1) {
      this.#texts[at] = text;
      return;
    }
    this.#lines.push(line);
    this.#texts.push(text);
  }

  delete(line: Line): void {
    const at = this.#lines.indexOf(line);
    if (at === -1) return;
    const last = this.#lines.length - 1; // The last entry takes the deleted one's place.
    this.#lines[at] = this.#lines[last];
    this.#texts[at] = this.#texts[last];
    this.#lines.length = last;
    this.#texts.length = last;
  }

  clear(): void {
    this.#lines.length = 0;
    this.#texts.length = 0;
  }
}
