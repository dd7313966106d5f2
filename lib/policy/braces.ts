/**
 * Brace expansion, as bash does it before anything else: `to{uch,}` is the
 * two words `touch` and `to`, `{a..c}` is `a b c`. The policy reads the words
 * the shell will pass, so a command name or argument built from braces is
 * checked as what it becomes.
 * @module
 */

import type { SyntaxNode } from "./parser.ts";
import { type Word, wordOf } from "./words.ts";

/** More words than this from one word: left as a word known only at run time. */
const MAX_WORDS = 256;

/**
 * The words one word node becomes after brace expansion (itself when it has
 * no brace expression; marked dynamic when the braces meet an expansion or a
 * glob, or make too many words).
 * @param home what an unquoted leading `~` expands to
 */
export function expandedWords(node: SyntaxNode, home: string): Word[] {
  const word = wordOf(node, home);
  if (!word.text.includes("{")) return [word];
  const source = { text: "", runtime: false };
  escapedSource(node, source);
  const expanded = expandBraces(source.text, [0]);
  if (expanded === null) return [word];
  if (source.runtime || expanded.length > MAX_WORDS) return [{ ...word, dynamic: true }];
  return expanded.map((text) => ({ text: text.replace(/\\(.)/gs, "$1"), dynamic: false }));
}

/** The word's text with every quoted character escaped by a backslash; `runtime` for `$`, globs. */
function escapedSource(node: SyntaxNode, out: { text: string; runtime: boolean }): void {
  const type = node.type;
  if (type === "command_name") {
    const inner = node.namedChild(0);
    if (inner !== null) escapedSource(inner, out);
  } else if (type === "word" || type === "number") {
    if (/(^|[^\\])[*?[$`]/.test(node.text)) out.runtime = true;
    out.text += node.text;
  } else if (type === "concatenation") {
    let at = node.startIndex;
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.startIndex > at) {
        out.text += node.text.slice(at - node.startIndex, child.startIndex - node.startIndex);
      }
      escapedSource(child, out);
      at = child.endIndex;
    }
    if (at < node.endIndex) out.text += node.text.slice(at - node.startIndex);
  } else if (type === "raw_string" || type === "ansi_c_string" || type === "string") {
    const word = wordOf(node, "");
    if (word.dynamic) out.runtime = true;
    out.text += word.text.replace(/[\\{},.]/g, "\\$&");
  } else {
    out.runtime = true;
    out.text += node.text;
  }
}

/**
 * The expansions of `text` (escaped source), or null when it holds no brace
 * expression. `count` caps the work across the recursion.
 */
function expandBraces(text: string, count: number[]): string[] | null {
  for (let open = 0; open < text.length; open++) {
    if (text[open] === "\\") {
      open++;
      continue;
    }
    if (text[open] !== "{" || text[open - 1] === "$") continue;
    const parts = braceParts(text, open);
    if (parts === null) continue;
    const prefix = text.slice(0, open);
    const suffix = text.slice(parts.end + 1);
    const out: string[] = [];
    for (const alternative of parts.alternatives) {
      const joined = prefix + alternative + suffix;
      const more = expandBraces(joined, count) ?? [joined];
      out.push(...more);
      count[0] += more.length;
      if (count[0] > MAX_WORDS) return out;
    }
    return out;
  }
  return null;
}

/** The alternatives of the brace expression opening at `open` and where it closes, or null. */
function braceParts(
  text: string,
  open: number,
): { alternatives: string[]; end: number } | null {
  let depth = 0;
  const commas: number[] = [];
  for (let i = open + 1; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") {
      i++;
    } else if (char === "{") {
      depth++;
    } else if (char === "}") {
      if (depth > 0) {
        depth--;
        continue;
      }
      const body = text.slice(open + 1, i);
      if (commas.length > 0) {
        const bounds = [open, ...commas, i];
        const alternatives = bounds.slice(1).map((end, k) => text.slice(bounds[k] + 1, end));
        return { alternatives, end: i };
      }
      const sequence = sequenceOf(body);
      return sequence === null ? null : { alternatives: sequence, end: i };
    } else if (char === "," && depth === 0) {
      commas.push(i);
    }
  }
  return null;
}

/** `1..5`, `a..e`, `10..1..3`: the sequence's words, or null. */
function sequenceOf(body: string): string[] | null {
  const match = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/.exec(body);
  if (match === null) return null;
  const [, from, to, by] = match;
  const numeric = /\d/.test(from);
  if (numeric !== /\d/.test(to)) return null;
  const start = numeric ? Number(from) : from.charCodeAt(0);
  const end = numeric ? Number(to) : to.charCodeAt(0);
  const step = Math.max(1, Math.abs(Number(by ?? 1))) * (end >= start ? 1 : -1);
  if (Math.abs(end - start) / Math.abs(step) > MAX_WORDS) return null;
  const out: string[] = [];
  for (let n = start; step > 0 ? n <= end : n >= end; n += step) {
    out.push(numeric ? String(n) : String.fromCharCode(n).replace(/[\\{},.]/g, "\\$&"));
  }
  return out;
}
