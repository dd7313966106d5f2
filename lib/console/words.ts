/**
 * Reading a command's words: options, durations, sizes, text-or-regex
 * patterns, and "did you mean" suggestions.
 * @module
 */

import { MAX_TIMER_MS } from "../base/timing.ts";
import { CommandError } from "./errors.ts";

/** What a command accepts after its name. */
export interface ArgSpec {
  /** Option names (without `--`): a flag, an option with a value, or one that may repeat. */
  options?: Readonly<Record<string, "flag" | "value" | "list">>;
  /** Keep the words after `--` apart (as `rest`) instead of reading them as positionals. */
  rest?: boolean;
  /** For commands that take the rest of the line: the options may also end it. */
  trailing?: boolean;
}

/** A command's words, sorted. */
export interface ParsedArgs {
  options: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** The words after `--`, when the spec keeps them apart and there was a `--`. */
  rest?: string[];
}

/**
 * Sorts `words` into options and positionals. Options may come anywhere
 * before `--`; `--name value` and `--name=value` both work.
 * @throws {CommandError} for an unknown option or a missing value
 */
export function parseArgs(command: string, words: readonly string[], spec: ArgSpec): ParsedArgs {
  const known = spec.options ?? {};
  const parsed: ParsedArgs = { options: {}, positionals: [] };
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === "--") {
      if (spec.rest) parsed.rest = words.slice(i + 1);
      else parsed.positionals.push(...words.slice(i + 1));
      break;
    }
    if (!word.startsWith("--") || word.length === 2) {
      parsed.positionals.push(word);
      continue;
    }
    const { name, kind, inline } = optionWord(command, word, known);
    if (kind === "flag") {
      parsed.options[name] = true;
      continue;
    }
    const value = inline ?? words[++i];
    if (value === undefined) throw missingValue(command, name);
    if (kind === "list") {
      parsed.options[name] = [...(parsed.options[name] as string[] | undefined ?? []), value];
    } else {
      parsed.options[name] = value;
    }
  }
  return parsed;
}

/**
 * Reads one option word (`--name` or `--name=value`) of `command`: its name,
 * its kind in `known` and the value written after `=`, if any.
 * @throws {CommandError} for an option `command` does not know, or a value given to a flag
 */
export function optionWord(
  command: string,
  word: string,
  known: NonNullable<ArgSpec["options"]>,
): { name: string; kind: "flag" | "value" | "list"; inline: string | undefined } {
  const body = word.slice(2);
  const at = body.indexOf("=");
  const name = at === -1 ? body : body.slice(0, at);
  const inline = at === -1 ? undefined : body.slice(at + 1);
  const kind = known[name];
  if (kind === undefined) throw unknownOption(command, word, Object.keys(known));
  if (kind === "flag" && inline !== undefined) {
    throw new CommandError(`Cannot use "${word}" in "${command}": --${name} takes no value`);
  }
  return { name, kind, inline };
}

/** The error for an option written without the value it needs. */
export function missingValue(command: string, name: string): CommandError {
  return new CommandError(`Cannot use --${name} in "${command}": it needs a value after it`);
}

/** The error for an option `command` does not know, with the nearest known one. */
function unknownOption(command: string, word: string, known: string[]): CommandError {
  if (known.length === 0) {
    return new CommandError(
      `Unknown option "${word}" for "${command}": it takes none (put "--" before words that start with --)`,
    );
  }
  const near = closest(word.slice(2).split("=")[0], known);
  const hint = near === undefined ? "" : `; did you mean "--${near}"?`;
  return new CommandError(
    `Unknown option "${word}" for "${command}": expected ${
      known.map((k) => `--${k}`).join(", ")
    }${hint}`,
  );
}

/** Units of a duration, in milliseconds. */
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000 };

/**
 * Reads a duration: a number in `unit` (seconds or milliseconds), or with
 * its own unit (`500ms`, `2s`, `1.5s`, `1m`). Returns milliseconds.
 * @throws {CommandError} naming `what` when it is not a duration >= 0
 */
export function parseDuration(value: string, unit: "s" | "ms", what: string): number {
  const match = /^(\d+(?:\.\d+)?|\.\d+)(ms|s|m)?$/.exec(value.trim());
  if (match === null) {
    throw new CommandError(
      `Cannot read ${what} ${JSON.stringify(value)}: expected a number of ${
        unit === "s" ? "seconds" : "milliseconds"
      } such as ${unit === "s" ? '"5", "2.5" or "500ms"' : '"500", "500ms" or "2s"'}`,
    );
  }
  const ms = Math.round(Number(match[1]) * UNITS[match[2] ?? unit]);
  if (ms > MAX_TIMER_MS) {
    throw new CommandError(
      `Cannot read ${what} ${JSON.stringify(value)}: at most ${
        unit === "s" ? `${Math.floor(MAX_TIMER_MS / 1000)} s` : `${MAX_TIMER_MS} ms`
      } (about 24 days), the longest a timer can wait`,
    );
  }
  return ms;
}

/**
 * Reads a size such as `80x24`.
 * @throws {CommandError} when it is not COLSxROWS within 2x1 and 1000x1000
 */
export function parseSize(value: string): { cols: number; rows: number } {
  const match = /^(\d{1,4})[xX](\d{1,4})$/.exec(value);
  const cols = Number(match?.[1]);
  const rows = Number(match?.[2]);
  if (match === null || cols < 2 || rows < 1 || cols > 1000 || rows > 1000) {
    throw new CommandError(
      `Cannot read size ${
        JSON.stringify(value)
      }: expected COLSxROWS such as "80x24" (2x1 to 1000x1000)`,
    );
  }
  return { cols, rows };
}

/** Text to find, or a regular expression. */
export type Pattern = { text: string } | { regex: string };

/**
 * Reads `/REGEX/` as a regular expression and anything else as text.
 * @throws {CommandError} for empty text or an invalid regular expression
 */
export function parsePattern(word: string): Pattern {
  if (word.length >= 2 && word.startsWith("/") && word.endsWith("/")) {
    return { regex: checkRegex(word.slice(1, -1)) };
  }
  if (word === "") throw new CommandError("Cannot look for empty text: give the text to look for");
  return { text: word };
}

/**
 * Checks that `source` compiles as a JavaScript regular expression.
 * @throws {CommandError} with the compiler's complaint
 */
export function checkRegex(source: string): string {
  if (source === "") throw new CommandError("Cannot use an empty regular expression //");
  try {
    new RegExp(source, "m");
  } catch (error) {
    throw new CommandError(
      `Cannot use /${source}/: ${
        (error as Error).message
      } (quote it with '...' if the shell-style escapes got in the way)`,
    );
  }
  return source;
}

/** Describes a pattern for messages: `"ready"` or `/\d+ ms/`. */
export function describePattern(pattern: Pattern): string {
  return "text" in pattern ? JSON.stringify(pattern.text) : `/${pattern.regex}/`;
}

/** Finds a pattern in `text`; returns what matched, or undefined. */
export function findPattern(pattern: Pattern, text: string): string | undefined {
  if ("text" in pattern) return text.includes(pattern.text) ? pattern.text : undefined;
  return new RegExp(pattern.regex, "m").exec(text)?.[0];
}

/**
 * The candidate closest to `word` (case-insensitive), if one is close: a
 * prefix of it, or within a small edit distance.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  if (lower === "") return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  const allowed = Math.max(1, Math.floor(lower.length / 3));
  if (best !== undefined && bestDistance <= allowed) return best;
  return lower.length >= 2
    ? candidates.find((candidate) => candidate.toLowerCase().startsWith(lower))
    : undefined;
}

/** Levenshtein distance, with a swap of two neighbours counting as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
      }
    }
  }
  return rows[a.length][b.length];
}
