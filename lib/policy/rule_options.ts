/**
 * Options in rules match as sets, as a program reads them: `rm -rf` matches
 * `rm -fr x`, `rm -r -f build`, `rm -Rf x` and `rm --recursive --force x`.
 * A rule's operands (words not starting with `-`) still match in order, as a
 * prefix of the command's operands; its options may come anywhere before
 * `--`, in any order, grouped or not, among others.
 * @module
 */

/** One option a rule requires. */
export type OptionPattern =
  /** A short option letter (`-rf` is `r` and `f`). */
  | { kind: "short"; letter: string }
  /** A long option without a value (`--force`). */
  | { kind: "long"; name: string }
  /** An option word matched as written (`--output=x`, `-?f`, `-name` of find). */
  | { kind: "word"; regex: RegExp };

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
  if (glob !== null) return [{ kind: "word", regex: glob }];
  if (text.startsWith("--")) {
    if (text.includes("=")) return [{ kind: "word", regex: literal(text) }];
    return [{ kind: "long", name: text.slice(2) }];
  }
  if (WORD_OPTIONS.has(program) || !/^-[a-zA-Z0-9]+$/.test(text)) {
    return [{ kind: "word", regex: literal(text) }];
  }
  return [...text.slice(1)].map((letter) => ({ kind: "short", letter }));
}

function literal(text: string): RegExp {
  return new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "s");
}

/** Collects a command's options from its option words. */
export function commandOptions(words: string[], program: string): CommandOptions {
  const options: CommandOptions = { letters: new Set(), longs: new Set(), words };
  const clusters = !WORD_OPTIONS.has(program);
  for (const text of words) {
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      options.longs.add(eq < 0 ? text.slice(2) : text.slice(2, eq));
    } else if (clusters) {
      for (const letter of text.slice(1)) options.letters.add(letter);
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
  const own = pattern.kind === "short" ? pattern.letter : pattern.name;
  const group = SAME[program]?.find((names) => names.includes(own)) ?? [own];
  return group.some((name) =>
    name.length === 1 ? options.letters.has(name) : options.longs.has(name)
  );
}
