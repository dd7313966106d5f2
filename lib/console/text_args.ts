/**
 * The one quoting rule of the commands that take the rest of their line as
 * text (exec, input, type, paste, expect, expect-output, wait): their options
 * first (and, for most, also at the end), then the text exactly as written;
 * a text that is wholly one quoted string loses its quotes.
 * @module
 */

import { CommandError } from "./errors.ts";
import { tokenize } from "./tokenize.ts";
import { type ArgSpec, closest, missingValue, optionWord } from "./words.ts";

/**
 * What a text-taking command accepts besides its text: its options (a flag
 * or one with a value) and whether they may also end the line (`expect ready
 * --timeout 5`; not for `exec`, whose line belongs to the shell: `pytest
 * --timeout 5`).
 */
export type TextSpec = Pick<ArgSpec, "options" | "trailing">;

/** A text-taking command's options and its text. */
export interface TextArgs {
  options: Record<string, string | true | undefined>;
  /** The text: as written, or without its quotes when it was wholly quoted. */
  text: string;
  /** Whether the text was wholly one quoted string. */
  quoted: boolean;
}

/**
 * Reads the rest of a line (after the command's name) as options and text.
 *
 * - Options come first: `--name`, `--name VALUE` or `--name=VALUE`; `--`
 *   ends them. With `trailing`, known options may also end the line.
 * - The text is the rest of the line, exactly as written: quotes, `#` and
 *   backslashes stay (`input print("hi")` sends `print("hi")`).
 * - A text that is wholly one quoted string, `"..."` or `'...'`, is read as
 *   one word of the language: the quotes go, and in `"..."` the escapes `\n`,
 *   `\t`, `\r`, `\e` and `\xHH` work (`type "ls\n"`).
 *
 * @throws {CommandError} for an unknown option, an option without its value,
 *   or a text that opens a quote it never closes
 * @example
 * ```ts
 * parseTextArgs("expect", "'a  b' --timeout 5", { options: { timeout: "value" }, trailing: true });
 * // { options: { timeout: "5" }, text: "a  b", quoted: true }
 * ```
 */
export function parseTextArgs(command: string, raw: string, spec: TextSpec = {}): TextArgs {
  const known = spec.options ?? {};
  const options: TextArgs["options"] = {};
  let rest = raw.trim();
  for (;;) {
    const word = /^\S+/.exec(rest)?.[0];
    if (word === undefined || !word.startsWith("--")) break;
    rest = rest.slice(word.length).trimStart();
    if (word === "--") break;
    const { name, kind, inline } = optionWord(command, word, known);
    if (kind === "flag") {
      options[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      value = /^\S+/.exec(rest)?.[0];
      rest = rest.slice(value?.length ?? 0).trimStart();
    }
    if (value === undefined || value === "") throw missingValue(command, name);
    options[name] = value;
  }
  if (spec.trailing) rest = takeTrailing(command, rest, known, options);
  return { options, ...unquoteWhole(rest) };
}

/** Removes the known options that end `rest` into `options`; returns what is left. */
function takeTrailing(
  command: string,
  rest: string,
  known: NonNullable<ArgSpec["options"]>,
  options: TextArgs["options"],
): string {
  for (let found = true; found;) {
    found = false;
    for (const [name, kind] of Object.entries(known)) {
      const pattern = kind === "flag"
        ? new RegExp(`(?:^|\\s)--${name}\\s*$`)
        : new RegExp(`(?:^|\\s)--${name}(?:=|\\s+)(\\S+)\\s*$`);
      const match = pattern.exec(rest);
      if (match === null) continue;
      options[name] ??= kind === "flag" ? true : match[1];
      rest = rest.slice(0, match.index).trimEnd();
      found = true;
    }
  }
  // A misspelt option at the end would silently become part of the text: say so.
  const last = /(?:^|\s)--([A-Za-z][\w-]*)(?:[=\s]\S*)?\s*$/.exec(rest);
  const near = last === null ? undefined : closest(last[1], Object.keys(known));
  if (last !== null && near !== undefined && near !== last[1]) {
    throw new CommandError(
      `Cannot read "--${
        last[1]
      }" at the end of "${command}": did you mean "--${near}"? (quote the text if it belongs to it)`,
    );
  }
  return rest;
}

/** The text without its quotes when it is wholly one quoted string; else as written. */
function unquoteWhole(text: string): { text: string; quoted: boolean } {
  const quote = text[0];
  if (quote !== '"' && quote !== "'") return { text, quoted: false };
  let end = 1;
  while (end < text.length && text[end] !== quote) {
    end += quote === '"' && text[end] === "\\" ? 2 : 1;
  }
  if (end >= text.length) {
    const hint = quote === '"' ? `close it, or write \\" for a quote` : "close it";
    throw new CommandError(
      `Cannot parse line: unclosed ${quote} at the start of the text ${text} (${hint})`,
    );
  }
  if (end !== text.length - 1) return { text, quoted: false };
  return { text: tokenize(text)[0] ?? "", quoted: true };
}
