/**
 * Embedded terminals as live regions of a TTY: while a command runs, the last
 * lines of its screen under a header, redrawn in place; when it ends, a card
 * that stays in the scrollback: the header, its last lines and how it ended.
 * @module
 */

import { PlainTextStream } from "../../terminal/text_stream.ts";
import { type ExitInfo, formatExit, succeeded } from "./format.ts";
import { LineSplitter } from "./line_splitter.ts";
import type { Paint, Style } from "./style.ts";
import type { ShownTerminal, TerminalDisplay } from "./terminal_board.ts";
import { expandTabs, fitStart, sanitize, textWidth } from "./text.ts";
import type { TtyOutput } from "./tty_output.ts";

/** Lines of output a region shows by default. */
export const LIVE_LINES = 6;

/** Most rows all regions take together; with many terminals each shows fewer lines. */
export const MAX_LIVE_ROWS = 24;

const encoder = new TextEncoder();

/** The last lines of a `_meta` terminal's output, its control sequences removed. */
class LineTail {
  readonly #plain = new PlainTextStream();
  readonly #splitter = new LineSplitter(4096);
  readonly #max: number;
  #lines: string[] = [];

  constructor(max: number) {
    this.#max = max;
  }

  push(data: string): void {
    const complete = this.#splitter.push(this.#plain.push(encoder.encode(data)));
    if (complete.length >= this.#max) this.#lines = complete.slice(-this.#max);
    else this.#lines = [...this.#lines, ...complete].slice(-this.#max);
  }

  lines(): string[] {
    const held = this.#splitter.held;
    return held === "" ? this.#lines : [...this.#lines, held].slice(-this.#max);
  }
}

interface Region {
  shown: ShownTerminal;
  tail?: LineTail;
  /** The last lines read, kept for redraws between reads. */
  lines: string[];
  dirty: boolean;
}

/** Pieces of a row, each cut to what is left of `width` and painted. */
function fitPieces(width: number, pieces: [string, Paint?][]): string {
  let left = width;
  let row = "";
  for (const [text, paint] of pieces) {
    if (left <= 0) break;
    const fitted = fitStart(expandTabs(text), left);
    left -= textWidth(fitted);
    row += paint === undefined ? fitted : paint(fitted);
  }
  return row;
}

/** Shows running terminals as live regions of a {@linkcode TtyOutput}. */
export class LiveTerminals implements TerminalDisplay {
  readonly #output: TtyOutput;
  readonly #style: Style;
  readonly #schedule: () => void;
  readonly #lines: number;
  readonly #regions = new Map<string, Region>();

  /**
   * @param output The screen.
   * @param style Colours.
   * @param schedule Asks for a {@linkcode LiveTerminals.refresh} soon (throttled by the caller).
   * @param lines Lines of output per region.
   */
  constructor(output: TtyOutput, style: Style, schedule: () => void, lines = LIVE_LINES) {
    this.#output = output;
    this.#style = style;
    this.#schedule = schedule;
    this.#lines = Math.max(1, lines);
  }

  open(shown: ShownTerminal): void {
    const tail = shown.terminal === undefined ? new LineTail(this.#lines) : undefined;
    this.#regions.set(shown.id, { shown, tail, lines: [], dirty: true });
    this.refresh();
  }

  output(shown: ShownTerminal, data?: string): void {
    const region = this.#regions.get(shown.id);
    if (region === undefined) return;
    if (data !== undefined) region.tail?.push(data);
    region.dirty = true;
    this.#schedule();
  }

  /**
   * The region becomes a card that stays in the scrollback, as Zed keeps a
   * terminal card: its header, its last lines of output and how it ended.
   */
  exit(shown: ShownTerminal, exit: ExitInfo): void {
    const region = this.#regions.get(shown.id);
    if (region === undefined) return;
    this.#regions.delete(shown.id);
    const paint = succeeded(exit) ? this.#style.green : this.#style.red;
    this.#output.commit(this.#card(region, paint, formatExit(exit)), this.#rows());
  }

  named(shown: ShownTerminal): void {
    const region = this.#regions.get(shown.id);
    if (region === undefined) return;
    region.dirty = true;
    this.#schedule();
  }

  release(_shown: ShownTerminal): void {
    // The region collapsed at exit, which the board reports before release.
  }

  brief(shown: ShownTerminal, exit?: ExitInfo): void {
    const command = shown.command === undefined ? "" : `  $ ${sanitize(shown.command)}`;
    const paint = exit === undefined
      ? this.#style.dim
      : succeeded(exit)
      ? this.#style.green
      : this.#style.red;
    const line = fitPieces(this.#output.width, [
      ["  "],
      [exit === undefined ? "▸ " : "▪ ", paint],
      [sanitize(shown.id), this.#style.bold],
      [exit === undefined ? "" : ` ${formatExit(exit)}`, paint],
      [command, this.#style.dim],
    ]);
    this.#output.commit([line], this.#rows());
  }

  /** Reads the terminals that changed and redraws the live area. */
  refresh(): void {
    this.#output.setLive(this.#rows());
  }

  /** Turns the regions of terminals still running into cards that say so. */
  close(): void {
    const lines = [...this.#regions.values()].flatMap((region) =>
      this.#card(region, this.#style.yellow, "still running")
    );
    this.#regions.clear();
    this.#output.commit(lines, []);
  }

  /** Header, the last lines of output (and how many came before), and `what` became of it. */
  #card(region: Region, paint: Paint, what: string): string[] {
    const width = this.#output.width;
    const { lines, hidden } = this.#final(region);
    const rows = [this.#header(region.shown)];
    if (hidden > 0) {
      const more = `… ${hidden} earlier line${hidden === 1 ? "" : "s"}`;
      rows.push(fitPieces(width, [["  "], ["│ ", this.#style.dim], [more, this.#style.dim]]));
    }
    for (const line of lines) {
      rows.push(fitPieces(width, [["  "], ["│ ", this.#style.dim], [line]]));
    }
    rows.push(fitPieces(width, [
      ["  "],
      ["└ ", paint],
      [`[${region.shown.label}] `, this.#style.bold],
      [what, paint],
    ]));
    return rows;
  }

  /** The last lines of a terminal's output as it ended, and how many lines came before them. */
  #final(region: Region): { lines: string[]; hidden: number } {
    if (region.tail !== undefined) return { lines: region.tail.lines(), hidden: 0 };
    const terminal = region.shown.terminal;
    if (terminal === undefined || terminal.disposed) return { lines: region.lines, hidden: 0 };
    const all = terminal.lines({ scope: "all" });
    return { lines: all.slice(-this.#lines), hidden: Math.max(0, all.length - this.#lines) };
  }

  #header(shown: ShownTerminal): string {
    return fitPieces(this.#output.width, [
      ["  "],
      ["┌ ", this.#style.cyan],
      [`[${shown.label}]`, this.#style.bold],
      [shown.command === undefined ? "" : ` $ ${sanitize(shown.command)}`, this.#style.dim],
      [shown.cwd === undefined ? "" : `  in ${sanitize(shown.cwd)}`, this.#style.dim],
    ]);
  }

  #rows(): string[] {
    if (this.#regions.size === 0) return [];
    const width = this.#output.width;
    const perRegion = Math.min(this.#lines, Math.floor(MAX_LIVE_ROWS / this.#regions.size) - 1);
    const rows: string[] = [];
    for (const region of this.#regions.values()) {
      if (region.dirty) {
        region.lines = this.#read(region);
        region.dirty = false;
      }
      rows.push(this.#header(region.shown));
      if (perRegion <= 0) continue;
      for (const line of region.lines.slice(-perRegion)) {
        rows.push(fitPieces(width, [["  "], ["│ ", this.#style.dim], [line]]));
      }
    }
    return rows;
  }

  /** The last lines of a region's terminal: its visible screen, or the tail of its `_meta` output. */
  #read(region: Region): string[] {
    if (region.tail !== undefined) return region.tail.lines();
    const terminal = region.shown.terminal;
    if (terminal === undefined || terminal.disposed) return region.lines;
    return terminal.lines({ scope: "visible" }).slice(-this.#lines);
  }
}
