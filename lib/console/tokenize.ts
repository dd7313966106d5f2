/**
 * Splitting a command line into words, with quoting as in a shell, and the
 * reverse: quoting a word so that it reads back the same.
 * @module
 */

import { CommandError } from "./errors.ts";

/** Escapes that stand for a control character, in and outside double quotes. */
const CONTROL_ESCAPES: Readonly<Record<string, string>> = {
  n: "\n",
  t: "\t",
  r: "\r",
  e: "\x1b",
};

/** Characters a backslash makes literal (the backslash itself is dropped). */
const LITERAL_ESCAPES = new Set([" ", "\t", '"', "'", "\\", "#", "$", "`"]);

/**
 * Splits a line into words.
 *
 * - Words are separated by spaces or tabs.
 * - `'...'` is literal.
 * - `"..."` and unquoted text take backslash escapes: `\n`, `\t`, `\r`, `\e`
 *   (Escape) and `\xHH` stand for those characters; a backslash before a
 *   space, a quote, `\`, `#`, `$` or a backtick makes it literal; before
 *   anything else it stays, so that regular expressions such as `\d+` or
 *   `\.` read as written.
 * - `#` at the start of a word starts a comment that runs to the end of the line.
 *
 * @param line One line of the command language.
 * @returns The words; empty for a blank or comment line.
 * @throws {CommandError} for an unclosed quote or a backslash at the end, naming the column
 * @example
 * ```ts
 * tokenize(`type "echo hi\\n"  # run it`); // ["type", "echo hi\n"]
 * tokenize("expect '/ready in \\d+ ms/'"); // ["expect", "/ready in \\d+ ms/"]
 * ```
 */
export function tokenize(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === " " || c === "\t") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
    } else if (c === "#" && !inWord) {
      break;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw unclosed("'", i);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      const start = i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === "\\" && i + 1 < line.length) {
          const [text, length] = escape(line, i);
          word += text;
          i += length;
        } else {
          word += line[i++];
        }
      }
      if (i >= line.length) throw unclosed('"', start);
      inWord = true;
      i++;
    } else if (c === "\\") {
      if (i + 1 >= line.length) {
        throw new CommandError(
          `Cannot parse line: a backslash ends the line at column ${
            i + 1
          } (write \\\\ for a backslash)`,
        );
      }
      const [text, length] = escape(line, i);
      word += text;
      inWord = true;
      i += length;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** The text of the escape at `line[at]` (a backslash) and how many characters it used. */
function escape(line: string, at: number): [string, number] {
  const next = line[at + 1];
  if (next in CONTROL_ESCAPES) return [CONTROL_ESCAPES[next], 2];
  if (LITERAL_ESCAPES.has(next)) return [next, 2];
  const hex = /^x([0-9a-fA-F]{2})/.exec(line.slice(at + 1, at + 4));
  if (hex) return [String.fromCharCode(parseInt(hex[1], 16)), 4];
  return ["\\" + next, 2];
}

function unclosed(quote: string, at: number): CommandError {
  const hint = quote === '"'
    ? `close it, or write \\" for a quote`
    : `close it, or write \\' outside quotes`;
  return new CommandError(`Cannot parse line: unclosed ${quote} at column ${at + 1} (${hint})`);
}

/** Words that need no quotes. */
/** The characters besides letters and digits a word needs no quotes for. */
const PLAIN_MARKS = "_@%+=:,./~^-";

/**
 * Whether `word` is letters, digits and {@linkcode PLAIN_MARKS} only (and not
 * empty). A loop, not a regular expression: a short-lived command's first one
 * costs it ~0.3 ms (issue 16).
 */
function isPlain(word: string): boolean {
  if (word.length === 0) return false;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alnum && !PLAIN_MARKS.includes(word[i])) return false;
  }
  return true;
}

/**
 * Quotes a word so that {@linkcode tokenize} reads it back unchanged.
 * @example
 * ```ts
 * quoteWord("ls"); // "ls"
 * quoteWord("a b"); // "'a b'"
 * quoteWord("line\n"); // "\"line\\n\""
 * ```
 */
export function quoteWord(word: string): string {
  if (isPlain(word) && !word.startsWith("#")) return word;
  // One quoted string, always: text commands (type, wait text) take such a word as it is, but
  // keep the quotes of one made of several pieces ('a'\''b'), so ' goes in double quotes.
  // deno-lint-ignore no-control-regex
  if (!/[\x00-\x1f\x7f']/.test(word)) return `'${word}'`;
  let quoted = '"';
  for (const c of word) {
    const control = Object.entries(CONTROL_ESCAPES).find(([, value]) => value === c);
    if (control) quoted += "\\" + control[0];
    else if (c === '"' || c === "\\" || c === "$" || c === "`") quoted += "\\" + c;
    else if (c < " " || c === "\x7f") {
      quoted += "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0");
    } else quoted += c;
  }
  return quoted + '"';
}
