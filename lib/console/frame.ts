/**
 * Drawing a session's screen for a person: in a box as wide as the
 * terminal, with the cursor marked.
 * @module
 */

/** What to draw. */
export interface FrameInput {
  /** The screen's lines (trailing blank lines may be missing). */
  lines: string[];
  /** Size of the terminal. */
  cols: number;
  rows: number;
  /** Where the cursor is, as an index into `lines` and a cell column; null to leave it unmarked. */
  cursor: { x: number; y: number } | null;
  /** Words for the top edge: the session's name, size, title... */
  label: string;
  /** A note for the bottom edge. */
  note?: string;
}

/** Reverse video, for the cursor on a terminal. */
const REVERSE = "\x1b[7m";
const NO_REVERSE = "\x1b[27m";
/** The cursor in plain text. */
const BLOCK = "█";

/**
 * Draws lines in a box as wide as the terminal, the cursor shown in reverse
 * video (`styled`) or as `█`. Rows below both the last text and the cursor
 * are left out and counted in the bottom edge.
 * @example
 * ```ts
 * frame({ lines: ["$ ls"], cols: 10, rows: 3, cursor: { x: 4, y: 0 }, label: "main" }, false);
 * // ┌─ main ───┐
 * // │$ ls█     │
 * // └─ 2 blank rows ┘  (the edges are as wide as the box)
 * ```
 */
export function frame(input: FrameInput, styled: boolean): string {
  const width = Math.max(input.cols, ...input.lines.map(displayWidth));
  const shown = Math.max(input.lines.length, (input.cursor?.y ?? -1) + 1);
  const body: string[] = [];
  for (let y = 0; y < shown; y++) {
    const line = input.lines[y] ?? "";
    const pad = " ".repeat(Math.max(0, width - displayWidth(line)));
    const text = input.cursor?.y === y
      ? markCursor(line + pad, input.cursor.x, styled)
      : line + pad;
    body.push(`│${text}│`);
  }
  const blank = Math.max(0, input.rows - shown);
  const notes = [
    blank > 0 ? `${blank} blank row${blank === 1 ? "" : "s"}` : "",
    input.note ?? "",
  ].filter((n) => n !== "").join(", ");
  return [edge("┌", input.label, "┐", width), ...body, edge("└", notes, "┘", width)].join("\n");
}

function edge(left: string, label: string, right: string, width: number): string {
  if (label === "") return left + "─".repeat(width) + right;
  const text = `─ ${label} `;
  const fitted = displayWidth(text) > width ? text.slice(0, Math.max(0, width - 1)) + "…" : text;
  return left + fitted + "─".repeat(Math.max(0, width - displayWidth(fitted))) + right;
}

/** Replaces (or, styled, highlights) the character in cell `x` of `line`. */
function markCursor(line: string, x: number, styled: boolean): string {
  let cell = 0;
  const chars = [...line];
  for (let i = 0; i < chars.length; i++) {
    const width = charWidth(chars[i].codePointAt(0)!);
    if (cell + width > x && width > 0) {
      const before = chars.slice(0, i).join("");
      const after = chars.slice(i + 1).join("");
      const mark = styled ? REVERSE + chars[i] + NO_REVERSE : BLOCK + (width === 2 ? " " : "");
      return before + mark + after;
    }
    cell += width;
  }
  return line; // The cursor is beyond the drawn width (it cannot be: lines are padded).
}

/** Cells a string takes on a terminal. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const c of text) width += charWidth(c.codePointAt(0)!);
  return width;
}

const ZERO_WIDTH = /[\p{Mn}\p{Me}\u200b-\u200f\ufe00-\ufe0f]/u;
const EMOJI = /\p{Emoji_Presentation}/u;

/** Cells one character takes: 0 for combining marks, 2 for wide East Asian characters and emoji. */
function charWidth(code: number): number {
  if (code < 0x300) return code < 0x20 || code === 0x7f ? 0 : 1;
  const char = String.fromCodePoint(code);
  if (ZERO_WIDTH.test(char)) return 0;
  const wide = (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0x303e) ||
    (code >= 0x3041 && code <= 0x33ff) || (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x4e00 && code <= 0x9fff) || (code >= 0xa000 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x20000 && code <= 0x3fffd) ||
    EMOJI.test(char);
  return wide ? 2 : 1;
}
