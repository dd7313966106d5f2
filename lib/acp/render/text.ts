/**
 * Text an agent sends, made safe and fitted for a terminal: control sequences
 * removed, widths measured in terminal columns, long lines cut.
 * @module
 */

import { PlainTextStream } from "../../terminal/text_stream.ts";

// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

const encoder = new TextEncoder();

/**
 * Removes control characters and escape sequences (keeping tab and line
 * feed), so that what an agent sends cannot move the cursor or change colours.
 *
 * @example
 * ```ts
 * sanitize("\x1b[31mred\x1b[0m\r\n"); // "red\n"
 * ```
 */
export function sanitize(text: string): string {
  if (!CONTROL.test(text)) return text;
  const stream = new PlainTextStream();
  return stream.push(encoder.encode(text)) + stream.end();
}

/** Columns a code point takes: 0 for combining marks, 2 for wide characters, else 1. */
export function charWidth(code: number): number {
  if (code < 0x300) return 1;
  if (
    (code >= 0x300 && code <= 0x36f) || (code >= 0x1ab0 && code <= 0x1aff) ||
    (code >= 0x1dc0 && code <= 0x1dff) || (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x20d0 && code <= 0x20ff) || (code >= 0xfe00 && code <= 0xfe0f) ||
    (code >= 0xfe20 && code <= 0xfe2f)
  ) return 0;
  if (
    (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) || (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) || (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1f64f) ||
    (code >= 0x1f900 && code <= 0x1f9ff) || (code >= 0x20000 && code <= 0x3fffd)
  ) return 2;
  return 1;
}

/** Columns `text` takes on one line (tabs count as one: expand them first). */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char.codePointAt(0)!);
  return width;
}

/** Replaces tabs by spaces up to the next multiple of eight columns. */
export function expandTabs(text: string): string {
  if (!text.includes("\t")) return text;
  let column = 0;
  let result = "";
  for (const char of text) {
    if (char === "\t") {
      const spaces = 8 - (column % 8);
      result += " ".repeat(spaces);
      column += spaces;
    } else {
      result += char;
      column += charWidth(char.codePointAt(0)!);
    }
  }
  return result;
}

/**
 * The start of `text` that fits in `width` columns, ending in "…" when cut.
 *
 * @example
 * ```ts
 * fitStart("abcdef", 4); // "abc…"
 * ```
 */
export function fitStart(text: string, width: number): string {
  if (width <= 0) return "";
  if (text.length <= width && textWidth(text) <= width) return text;
  let used = 0;
  let end = 0;
  for (const char of text) {
    const w = charWidth(char.codePointAt(0)!);
    if (used + w > width - 1) break;
    used += w;
    end += char.length;
  }
  if (end === text.length) return text;
  return text.slice(0, end) + "…";
}

/**
 * The end of `text` that fits in `width` columns, starting with "…" when cut:
 * for a line still being typed, whose newest part matters.
 */
export function fitEnd(text: string, width: number): string {
  if (width <= 0) return "";
  if (text.length <= width && textWidth(text) <= width) return text;
  // Only the end can show; a character takes at most two code units.
  let cut = false;
  if (text.length > width * 4) {
    text = text.slice(-width * 4).replace(/^[\udc00-\udfff]/, "");
    cut = true;
  }
  const chars = Array.from(text);
  let used = 0;
  let start = chars.length;
  while (start > 0) {
    const w = charWidth(chars[start - 1].codePointAt(0)!);
    if (used + w > width - 1) break;
    used += w;
    start--;
  }
  if (start === 0 && !cut) return text;
  return "…" + chars.slice(start).join("");
}

/** Shortens a tool call title into a label for the lines of its terminals. */
export function label(title: string, width = 40): string {
  return fitStart(sanitize(title).replace(/\s+/g, " ").trim(), width) || "tool";
}
