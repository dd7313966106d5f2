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

/** Bytes one UTF-16 code unit takes in a JSON string (escaped, UTF-8); a surrogate pair counts 2 + 2. */
function escapedUnitBytes(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2; // \" and \\
  if (code < 0x20) {
    return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d
      ? 2
      : 6;
  }
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdfff) return 2; // Half of a pair (4 bytes); a lone one is \uXXXX (6): close enough.
  return 3;
}

/** The size in bytes of `text` as a JSON string's contents (escaped, UTF-8), without the quotes. */
export function escapedLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) bytes += escapedUnitBytes(text.charCodeAt(i));
  return bytes;
}

/**
 * The end of `text` whose size inside a JSON string (escaped, as a client
 * receives it: a quote or a tab takes two bytes, a control character six) is
 * at most `maxBytes`, started at a line when one starts soon after the cut.
 * `omittedBytes` counts the UTF-8 bytes of the text left out.
 */
export function tailEscaped(text: string, maxBytes: number): Cut {
  let size = 0;
  let start = text.length;
  while (start > 0) {
    const unit = escapedUnitBytes(text.charCodeAt(start - 1));
    if (size + unit > maxBytes) break;
    size += unit;
    start--;
  }
  if (start === 0) return { text, omittedBytes: 0 };
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start++; // The second half of a pair whose first was cut.
  const newline = text.indexOf("\n", start);
  if (newline !== -1 && newline - start < 1024 && newline + 1 < text.length) start = newline + 1;
  return { text: text.slice(start), omittedBytes: byteLength(text.slice(0, start)) };
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
