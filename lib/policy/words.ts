/**
 * Shell words as the shell would pass them: quotes and escapes removed, `~`
 * expanded, and a flag for words whose value is only known when the line runs
 * (an expansion, a substitution, an unquoted glob or brace expansion).
 * @module
 */

import { PolicyError } from "./errors.ts";
import type { SyntaxNode } from "./parser.ts";

/** A word's value, or its source text when the value cannot be known before it runs. */
export interface Word {
  text: string;
  /** True when the shell computes the value at run time (`$X`, `$(...)`, `*.txt`, `{a,b}`). */
  dynamic: boolean;
  /** A plain unquoted glob (`/tmp/*.o`): `text` is the pattern the shell expands. */
  glob?: boolean;
  /**
   * The word may become no word or several when the line runs: an unquoted
   * expansion (empty, or split), glob or brace list, `"$@"`, `"${a[@]}"`. The
   * words after it may then stand elsewhere than they are written.
   */
  fields?: boolean;
}

/**
 * The value of a word node (a command name or argument).
 * @param home what an unquoted leading `~` expands to
 */
export function wordOf(node: SyntaxNode, home: string): Word {
  const word: Word = { text: "", dynamic: false };
  appendNode(word, node, home, true);
  if (word.dynamic && node.type === "word" && !/[\\$`{]/.test(node.text)) word.glob = true;
  return word;
}

function appendNode(word: Word, node: SyntaxNode, home: string, first: boolean): void {
  const type = node.type;
  if (type === "command_name") {
    const inner = node.namedChild(0);
    if (inner !== null) appendNode(word, inner, home, first);
    return;
  }
  if (type === "word" || type === "number") return appendUnquoted(word, node.text, home, first);
  if (type === "raw_string") {
    word.text += node.text.slice(1, -1);
    return;
  }
  if (type === "ansi_c_string") {
    word.text += ansiC(node.text.slice(2, -1));
    return;
  }
  if (type === "string" || type === "translated_string") return appendDoubleQuoted(word, node);
  if (type === "concatenation") {
    let at = node.startIndex;
    const source = node.text;
    for (const child of node.namedChildren) {
      if (child === null) continue;
      // Text between parts (rare) is unquoted word text.
      if (child.startIndex > at) {
        appendUnquoted(
          word,
          source.slice(at - node.startIndex, child.startIndex - node.startIndex),
          home,
          false,
        );
      }
      appendNode(word, child, home, first && child.startIndex === node.startIndex);
      at = child.endIndex;
    }
    if (at < node.endIndex) appendUnquoted(word, source.slice(at - node.startIndex), home, false);
    return;
  }
  // Expansions, substitutions, brace expressions and anything else: only known at run time.
  word.text += node.text;
  word.dynamic = true;
  word.fields = true;
}

/** Unquoted text: backslashes escape, `~` expands at the start, globs and braces are dynamic. */
function appendUnquoted(word: Word, text: string, home: string, first: boolean): void {
  if (first && text.startsWith("~") && (text.length === 1 || text[1] === "/")) {
    word.text += home;
    text = text.slice(1);
  }
  let braces = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") {
      if (text[i + 1] === "\n") i++; // A line continuation disappears.
      else if (i + 1 < text.length) word.text += text[++i];
      continue;
    }
    if (char === "*" || char === "?" || char === "[") word.dynamic = word.fields = true;
    if (char === "{") braces = true;
    if (braces && (char === "," || (char === "." && text[i + 1] === "."))) {
      word.dynamic = word.fields = true;
    }
    if (char === "$" || char === "`") word.dynamic = word.fields = true;
    word.text += char;
  }
}

/** A double-quoted string: `\` escapes only `$`, backquote, `"`, `\` and newline; expansions are dynamic. */
function appendDoubleQuoted(word: Word, node: SyntaxNode): void {
  const source = node.text;
  const open = source.startsWith("$") ? 2 : 1;
  let at = node.startIndex + open;
  const end = node.endIndex - (source.endsWith('"') ? 1 : 0);
  for (const child of node.namedChildren) {
    if (child === null) continue;
    if (child.type === "string_content") continue; // Covered by the gaps below.
    appendQuotedText(word, source.slice(at - node.startIndex, child.startIndex - node.startIndex));
    word.text += child.text;
    word.dynamic = true;
    // "$@" and "${a[@]}" are as many words as there are values, none when there are none.
    if (/^\$(?:@|\{[^}]*@)/.test(child.text)) word.fields = true;
    at = child.endIndex;
  }
  if (at < end) appendQuotedText(word, source.slice(at - node.startIndex, end - node.startIndex));
}

function appendQuotedText(word: Word, text: string): void {
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\\" && i + 1 < text.length && '$`"\\\n'.includes(text[i + 1])) {
      if (text[i + 1] !== "\n") word.text += text[i + 1];
      i++;
      continue;
    }
    word.text += char;
  }
}

const ANSI_C: Record<string, string> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** The body of a `$'...'` string with its escapes decoded. */
function ansiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (_, escape: string) => {
      const kind = escape[0];
      if (kind === "x" || kind === "u" || kind === "U") {
        return String.fromCodePoint(parseInt(escape.slice(1), 16));
      }
      if (/[0-7]/.test(kind)) return String.fromCharCode(parseInt(escape, 8) & 0xff);
      if (kind === "c" && escape.length === 2) {
        return String.fromCharCode(escape.charCodeAt(1) & 0x1f);
      }
      return ANSI_C[escape] ?? `\\${escape}`;
    },
  );
}

/** A shell-quoted word split into pieces: literal text, or unquoted text where globs count. */
export interface RuleWordPiece {
  text: string;
  quoted: boolean;
}

/**
 * Splits a rule (`git push --force`, `rm '-rf'`, `dd of=/dev/*`) into words the
 * way a shell would, keeping which parts were quoted (a quoted `*` is literal).
 * @throws {Error} for an unterminated quote
 */
export function splitRuleWords(rule: string): RuleWordPiece[][] {
  const words: RuleWordPiece[][] = [];
  let current: RuleWordPiece[] | null = null;
  const push = (text: string, quoted: boolean) => {
    current ??= [];
    const last = current[current.length - 1];
    if (last !== undefined && last.quoted === quoted) last.text += text;
    else current.push({ text, quoted });
  };
  for (let i = 0; i < rule.length; i++) {
    const char = rule[i];
    if (char === " " || char === "\t" || char === "\n") {
      if (current !== null) words.push(current);
      current = null;
    } else if (char === "\\" && i + 1 < rule.length) {
      push(rule[++i], true);
    } else if (char === "'" || char === '"') {
      const end = rule.indexOf(char, i + 1);
      if (end < 0) {
        throw new PolicyError(`Cannot read the rule ${JSON.stringify(rule)}: unterminated ${char}`);
      }
      push(rule.slice(i + 1, end), true);
      if (end === i + 1) current ??= [];
      i = end;
    } else {
      push(char, false);
    }
  }
  if (current !== null) words.push(current);
  return words;
}
