/**
 * Options in rules match as sets, as a program reads them: `rm -rf` matches
 * `rm -fr x`, `rm -r -f build`, `rm -Rf x` and `rm --recursive --force x`.
 * A rule's operands (words not starting with `-`) still match in order, as a
 * prefix of the command's operands; its options may come anywhere before
 * `--`, in any order, grouped or not, among others.
 * @module
 */

import { readValued } from "./option_values.ts";

/** One option a rule requires. */
export type OptionPattern =
  /** A short option letter (`-rf` is `r` and `f`). */
  | { kind: "short"; letter: string }
  /** A long option without a value (`--force`). */
  | { kind: "long"; name: string }
  /** An option word matched as written (`--output=x`, `-?f`, `-name` of find). */
  | { kind: "word"; regex: RegExp }
  /** An option with its value (`git -C DIR`, `kubectl -n prod`; see option_values.ts). */
  | { kind: "valued"; names: string[]; value: RegExp };

/** Programs whose single-dash options are whole words (`find -delete`), not letters. */
const WORD_OPTIONS = new Set([
  "find",
  "java",
  "gcc",
  "g++",
  "cc",
  "clang",
  "ld",
  "ffmpeg",
  "ffprobe",
  "tar",
  "ps",
  "xdotool",
  "go",
]);

/**
 * Options that mean the same to a program: short letters and long names
 * (`rm`'s `-r`, `-R` and `--recursive`).
 */
const SAME: Record<string, string[][]> = {
  rm: [["r", "R", "recursive"], ["f", "force"], ["d", "dir"], ["i", "interactive"]],
  cp: [["r", "R", "recursive"], ["f", "force"], ["a", "archive"]],
  mv: [["f", "force"]],
  ln: [["s", "symbolic"], ["f", "force"]],
  chmod: [["R", "recursive"]],
  chown: [["R", "recursive"]],
  chgrp: [["R", "recursive"]],
  git: [["f", "force"], ["n", "dry-run"]],
  mkdir: [["p", "parents"]],
  curl: [["k", "insecure"], ["X", "request"], ["o", "output"], ["d", "data"]],
  wget: [["O", "output-document"]],
  shred: [["u", "remove"], ["z", "zero"]],
  kill: [["s", "signal"]],
};

/** The options of a command, read from its words (before `--`). */
export interface CommandOptions {
  letters: Set<string>;
  longs: Set<string>;
  /** The option words as written. */
  words: string[];
  /** The values of the options that take one (option_values.ts), by their first name. */
  values: Map<string, string[]>;
}

/** Whether `text` is an option word (not `-`, `--`, or a negative number operand). */
export function isOptionWord(text: string): boolean {
  return text.length > 1 && text.startsWith("-") && text !== "--";
}

/** Reads a rule's option word into what it requires. */
export function optionPattern(
  text: string,
  glob: RegExp | null,
  program: string,
): OptionPattern[] {
  if (text.startsWith("--")) {
    const name = /^--([A-Za-z0-9][A-Za-z0-9_-]*)/.exec(text)?.[1] ?? "";
    const rest = text.slice(2 + name.length);
    if (glob === null && rest === "" && name !== "") return [{ kind: "long", name }];
    return [{ kind: "word", regex: abbreviated(glob ?? literal(text), name, rest, glob !== null) }];
  }
  if (glob !== null) return [{ kind: "word", regex: glob }];
  if (WORD_OPTIONS.has(program) || !/^-[a-zA-Z0-9]+$/.test(text)) {
    return [{ kind: "word", regex: literal(text) }];
  }
  return [...text.slice(1)].map((letter) => ({ kind: "short", letter }));
}

/**
 * A long option word's regex that also matches its abbreviations, as GNU
 * getopt_long (and git) read them: `--out=x` is `--output=x`, `--forc` may be
 * `--force*`. Any shorter prefix of the name counts, ambiguous or not.
 */
function abbreviated(full: RegExp, name: string, rest: string, glob: boolean): RegExp {
  if (name.length < 2) return full;
  const prefixes = [];
  for (let i = 1; i < name.length; i++) prefixes.push(escape(name.slice(0, i)));
  // After the name: the rule's value (`=x`), or, when the name may go on (`--force*`), any value.
  const after = rest.startsWith("=")
    ? (glob
      ? rest.split("").map((c) => c === "*" ? ".*" : c === "?" ? "." : escape(c)).join("")
      : escape(rest))
    : "(=.*)?";
  return new RegExp(`(?:${full.source})|(?:^--(?:${prefixes.join("|")})${after}$)`, "s");
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function literal(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "s");
}

/** Collects a command's options from its option words (and the values read with them). */
export function commandOptions(
  words: string[],
  program: string,
  values: Map<string, string[]> = new Map(),
): CommandOptions {
  const options: CommandOptions = { letters: new Set(), longs: new Set(), words, values };
  const clusters = !WORD_OPTIONS.has(program);
  for (const text of words) {
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      options.longs.add(eq < 0 ? text.slice(2) : text.slice(2, eq));
    } else if (clusters) {
      // Letters up to one that takes a value: the rest of the word is that value.
      const valued = readValued(program, text);
      const letters = valued === undefined
        ? text.slice(1)
        : text.slice(1, 2 + valued.letters.length);
      for (const letter of letters) options.letters.add(letter);
    }
  }
  return options;
}

/** Whether a command's options hold what `pattern` requires. */
export function hasOption(
  options: CommandOptions,
  pattern: OptionPattern,
  program: string,
): boolean {
  if (pattern.kind === "word") return options.words.some((w) => pattern.regex.test(w));
  if (pattern.kind === "valued") {
    return (options.values.get(pattern.names[0]) ?? []).some((value) => pattern.value.test(value));
  }
  const own = pattern.kind === "short" ? pattern.letter : pattern.name;
  const group = SAME[program]?.find((names) => names.includes(own)) ?? [own];
  return group.some((name) =>
    name.length === 1 ? options.letters.has(name) : options.longs.has(name) ||
      // GNU programs take any unambiguous prefix of a long option (`--recur`).
      [...options.longs].some((held) => held !== "" && name.startsWith(held))
  );
}
