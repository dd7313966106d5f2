/**
 * A session's output read back as text from its terminal's text log: a
 * command's slice of it, and the plain text without the line editor's
 * redraws of a line already shown.
 * @module
 */

import type { OutputLog } from "../terminal/output_log.ts";
import type { Redraw } from "./shell_state.ts";

/**
 * The text of `log` from offset `from` up to offset `to` (undefined: to the
 * end), and whether some of it is no longer held (dropped from the front).
 */
export function logSlice(
  log: OutputLog,
  range: { from: number; to: number | undefined },
): { text: string; truncated: boolean } {
  const { from, to } = range;
  const bytes = log.since(from);
  const firstKept = log.totalBytes - log.byteLength;
  const length = to === undefined ? bytes.length : Math.max(0, to - Math.max(from, firstKept));
  return {
    text: new TextDecoder().decode(bytes.subarray(0, length)),
    truncated: from < firstKept,
  };
}

/**
 * The output of `log` as plain text from offset `from` (clamped to what the
 * log still holds), without the line editor's `redraws` of a line already
 * shown: bash draws the prompt and the typed line again after its
 * typed-line check, which a terminal overwrites in place but plain text
 * would show twice, glued together.
 * @returns the text, and the offset it reaches
 */
export function plainOutput(
  log: OutputLog,
  redraws: readonly Redraw[],
  from: number,
): { text: string; end: number } {
  const first = log.totalBytes - log.byteLength;
  const start = Math.max(from, first);
  const held = log.since(first);
  const bytes = held.subarray(start - first);
  const end = log.totalBytes;
  const kept: Uint8Array[] = [];
  let at = start;
  for (const redraw of redraws) {
    if (redraw.at < start) continue;
    const hidden = redrawnRange(held, first, redraw);
    if (hidden === undefined || hidden.to <= at) continue;
    if (hidden.from > at) kept.push(bytes.subarray(at - start, hidden.from - start));
    at = hidden.to;
  }
  kept.push(bytes.subarray(at - start));
  const decoder = new TextDecoder();
  return {
    text: kept.map((part) => decoder.decode(part, { stream: true })).join("") + decoder.decode(),
    end,
  };
}

/**
 * The text-log range a redraw repeats, when it repeats the prompt's last line
 * and the line typed after it exactly; undefined otherwise (the line was
 * replaced, or the log no longer holds it). `held` is the log from `first`.
 */
function redrawnRange(
  held: Uint8Array,
  first: number,
  redraw: Redraw,
): { from: number; to: number } | undefined {
  const promptEnd = redraw.promptEnd - first;
  const typedFrom = redraw.typedFrom - first;
  const at = redraw.at - first;
  if (promptEnd < 0 || at > held.length) return undefined;
  const prompt = promptEnd - (held.lastIndexOf(0x0a, promptEnd - 1) + 1); // Its last line.
  const redrawStart = at - prompt;
  const typed = redrawStart - typedFrom; // The line typed after the prompt, before the redraw.
  if (typed < 0 || at + typed > held.length) return undefined;
  if (!sameBytes(held, promptEnd - prompt, redrawStart, prompt)) return undefined;
  if (!sameBytes(held, typedFrom, at, typed)) return undefined;
  return { from: first + redrawStart, to: first + at + typed };
}

/** Whether `bytes` holds the same `length` bytes at `a` and at `b`. */
function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) {
    if (bytes[a + i] !== bytes[b + i]) return false;
  }
  return true;
}
