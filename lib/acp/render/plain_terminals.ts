/**
 * Embedded terminals as plain lines, for logs and pipes: a header, each line
 * of output as it arrives marked with its tool call, and a summary at exit.
 * @module
 */

import { PlainTextStream } from "../../terminal/text_stream.ts";
import {
  type ExitInfo,
  formatBriefExit,
  formatBriefStart,
  formatExit,
  succeeded,
} from "./format.ts";
import { LineSplitter } from "./line_splitter.ts";
import type { Style } from "./style.ts";
import { sanitize } from "./text.ts";
import type { ShownTerminal, TerminalDisplay } from "./terminal_board.ts";

interface Feed {
  shown: ShownTerminal;
  /** Absolute offset in the terminal's text log up to which output was shown. */
  offset: number;
  lines: LineSplitter;
  /** Strips control sequences from `_meta` output (a live terminal's text log has none). */
  plain?: PlainTextStream;
  exited: boolean;
  /** The header waits for a `_meta` terminal's command (claude-agent-acp names it a moment later). */
  headerPending: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Shows terminals as lines:
 * ```text
 *   ┌ [Run tests] $ npm test
 *   │ [Run tests] ok 1 - adds
 *   └ [Run tests] exit 0 in 1.2s
 * ```
 */
export class PlainTerminals implements TerminalDisplay {
  readonly #write: (lines: readonly string[]) => void;
  readonly #style: Style;
  readonly #feeds = new Map<string, Feed>();

  /**
   * @param write Writes whole lines (ending any streamed line first).
   * @param style Colours for the markers; the output itself is never coloured.
   */
  constructor(write: (lines: readonly string[]) => void, style: Style) {
    this.#write = write;
    this.#style = style;
  }

  open(shown: ShownTerminal): void {
    this.#feeds.set(shown.id, {
      shown,
      offset: 0,
      lines: new LineSplitter(),
      plain: shown.terminal === undefined ? new PlainTextStream() : undefined,
      exited: false,
      headerPending: shown.terminal === undefined && shown.command === undefined,
    });
    if (shown.terminal !== undefined || shown.command !== undefined) this.#header(shown);
  }

  named(shown: ShownTerminal): void {
    const feed = this.#feeds.get(shown.id);
    if (feed === undefined || !feed.headerPending || shown.command === undefined) return;
    feed.headerPending = false;
    this.#header(shown);
  }

  #header(shown: ShownTerminal): void {
    const command = shown.command === undefined ? "" : ` $ ${sanitize(shown.command)}`;
    const cwd = shown.cwd === undefined ? "" : `  in ${sanitize(shown.cwd)}`;
    this.#write([
      `  ${this.#style.cyan("┌")} ${this.#name(shown)}${this.#style.dim(command + cwd)}`,
    ]);
  }

  /** Writes a pending header before anything else of its terminal. */
  #headerFirst(feed: Feed): void {
    if (!feed.headerPending) return;
    feed.headerPending = false;
    this.#header(feed.shown);
  }

  output(shown: ShownTerminal, data?: string): void {
    const feed = this.#feeds.get(shown.id);
    if (feed === undefined) return;
    this.#headerFirst(feed);
    const shownLines: string[] = [];
    let text: string;
    if (data === undefined) {
      text = this.#read(shown, feed, shownLines);
    } else {
      text = feed.plain?.push(encoder.encode(data)) ?? sanitize(data);
    }
    for (const line of feed.lines.push(text)) shownLines.push(this.#line(shown, line));
    if (shownLines.length > 0) this.#write(shownLines);
  }

  exit(shown: ShownTerminal, exit: ExitInfo): void {
    const feed = this.#feeds.get(shown.id);
    if (feed === undefined || feed.exited) return;
    this.#headerFirst(feed);
    if (shown.terminal !== undefined) this.output(shown); // Anything not yet seen.
    feed.exited = true;
    const paint = succeeded(exit) ? this.#style.green : this.#style.red;
    this.#write([
      ...this.#rest(shown, feed),
      `  ${paint("└")} ${this.#name(shown)} ${paint(formatExit(exit))}`,
    ]);
  }

  release(shown: ShownTerminal): void {
    this.#feeds.delete(shown.id);
  }

  brief(shown: ShownTerminal, exit?: ExitInfo): void {
    this.#write([
      exit === undefined
        ? formatBriefStart(this.#style, shown.id, shown.command)
        : formatBriefExit(this.#style, shown.id, exit, shown.command),
    ]);
  }

  /** Ends the display: the held lines of terminals still running, each with a note that it still runs. */
  close(): void {
    for (const feed of this.#feeds.values()) {
      if (feed.exited) continue;
      this.#headerFirst(feed);
      if (feed.shown.terminal !== undefined) this.output(feed.shown);
      const name = this.#name(feed.shown);
      this.#write([
        ...this.#rest(feed.shown, feed),
        `  ${this.#style.yellow("└")} ${name} still running`,
      ]);
    }
    this.#feeds.clear();
  }

  #name(shown: ShownTerminal): string {
    return this.#style.bold(`[${shown.label}]`);
  }

  #line(shown: ShownTerminal, line: string): string {
    return `  ${this.#style.dim("│")} ${this.#style.dim(`[${shown.label}]`)} ${line}`;
  }

  /** The text appended to a live terminal's log since last time; notes bytes dropped in between. */
  #read(shown: ShownTerminal, feed: Feed, notes: string[]): string {
    const log = shown.terminal?.textLog;
    if (log === undefined) return "";
    const keptFrom = log.totalBytes - log.byteLength;
    if (keptFrom > feed.offset) {
      notes.push(this.#line(shown, this.#style.dim(`... ${keptFrom - feed.offset} bytes dropped`)));
    }
    const bytes = log.since(feed.offset);
    feed.offset = log.totalBytes;
    return decoder.decode(bytes);
  }

  /** The held incomplete line (and the end of a `_meta` stream), as lines. */
  #rest(shown: ShownTerminal, feed: Feed): string[] {
    const lines = feed.plain === undefined ? [] : feed.lines.push(feed.plain.end());
    const held = feed.lines.flush();
    if (held !== undefined) lines.push(held);
    return lines.map((line) => this.#line(shown, line));
  }
}
