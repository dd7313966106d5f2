/**
 * Keeping MCP results to a size a model can read: command output keeps its
 * tail, screen text keeps whole lines, and what was left out is counted so
 * the result can say so.
 * @module
 */

/** Most bytes of text one tool result carries unless configured otherwise. */
export const DEFAULT_RESULT_LIMIT = 100_000;

const encoder = new TextEncoder();

/** The UTF-8 size of `text` in bytes. */
export function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** What is left of a text cut to a size, and what went. */
export interface Cut {
  text: string;
  /** Bytes left out (0 when the text fitted). */
  omittedBytes: number;
}

/**
 * The last `maxBytes` bytes of `text` at most, cut on a character boundary
 * and, when a line starts soon after the cut, at that line.
 * @example tail("one\ntwo\nthree\n", 10) // { text: "three\n", omittedBytes: 8 }
 */
export function tail(text: string, maxBytes: number): Cut {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, omittedBytes: 0 };
  let start = bytes.length - maxBytes;
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++; // Inside a character.
  const newline = bytes.indexOf(0x0a, start);
  if (newline !== -1 && newline - start < 1024 && newline + 1 < bytes.length) start = newline + 1;
  return { text: new TextDecoder().decode(bytes.subarray(start)), omittedBytes: start };
}

/** A slice of lines that fits a size. */
export interface LineWindow {
  text: string;
  /** Index of the first line given. */
  from: number;
  /** Index after the last line given. */
  to: number;
  total: number;
}

/**
 * Whole lines of `lines` that fit in `maxBytes` (at least one, cut if it alone
 * is too long): from `from` onward when given, else the last ones.
 */
export function lineWindow(lines: string[], maxBytes: number, from?: number): LineWindow {
  const total = lines.length;
  let size = 0;
  if (from !== undefined) {
    const start = Math.min(Math.max(0, from), total);
    let end = start;
    while (end < total && (end === start || size + byteLength(lines[end]) + 1 <= maxBytes)) {
      size += byteLength(lines[end++]) + 1;
    }
    return {
      text: clip(lines.slice(start, end).join("\n"), maxBytes),
      from: start,
      to: end,
      total,
    };
  }
  let start = total;
  while (start > 0 && (start === total || size + byteLength(lines[start - 1]) + 1 <= maxBytes)) {
    size += byteLength(lines[--start]) + 1;
  }
  return { text: clip(lines.slice(start).join("\n"), maxBytes), from: start, to: total, total };
}

/** `text` cut to its first `maxBytes` bytes (on a character boundary) when longer. */
function clip(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}
