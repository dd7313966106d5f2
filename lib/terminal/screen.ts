/**
 * Reading text out of an emulator buffer.
 * @module
 */

import type xterm from "@xterm/headless";

/** `"visible"`: the rows on screen; `"all"`: scrollback and screen. */
export type ScreenScope = "visible" | "all";

/** What an empty screen reads as. */
export const EMPTY_SCREEN = "(empty terminal)";

/** Row `y`'s text without trailing blanks; `line` is xterm's view of it. */
export type RowText = (y: number, line: xterm.IBufferLine) => string;

/** Row text read afresh from xterm. */
export const freshText: RowText = (_y, line) => line.translateToString(true).trimEnd();

/**
 * Returns the lines of `buffer` with trailing spaces (written or not) and
 * trailing blank lines removed. Wide characters come out once, without padding for their second
 * cell. With `joinWrapped`, a line the terminal soft-wrapped is joined to the
 * line it continues. `rowText` may give rows read before (see `RowTexts`).
 */
export function readLines(
  buffer: xterm.IBuffer,
  rows: number,
  scope: ScreenScope,
  joinWrapped: boolean,
  rowText: RowText = freshText,
): string[] {
  const start = scope === "visible" ? buffer.viewportY : 0;
  const end = scope === "visible" ? buffer.viewportY + rows : buffer.length;
  const lines: string[] = [];
  for (let y = start; y < end; y++) {
    const line = buffer.getLine(y);
    if (line === undefined) break;
    // A row that wraps onto the next one is full: its trailing spaces are text.
    const wrapsOn = joinWrapped && y + 1 < end && buffer.getLine(y + 1)?.isWrapped === true;
    const text = wrapsOn ? line.translateToString(false) : rowText(y, line);
    if (joinWrapped && line.isWrapped && y > start) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Joins lines into the text a reader gets, `"(empty terminal)"` when there are none. */
export function linesToText(lines: string[]): string {
  return lines.length === 0 ? EMPTY_SCREEN : lines.join("\n");
}
