/**
 * Command rules: a prefix written as shell words (`git push --force`,
 * `dd of=/dev/*`), matched against a simple command's words. A word may hold
 * `*` (any text) and `?` (one character) unless quoted; a leading `~` is the
 * home directory. The program word matches by name, or by path when the rule
 * gives one.
 * @module
 */

import { PolicyError } from "./errors.ts";
import { splitRuleWords } from "./words.ts";
import type { Word } from "./words.ts";
import { basename } from "node:path";
import { readValued } from "./option_values.ts";
import {
  type CommandOptions,
  commandOptions,
  hasOption,
  isOptionWord,
  type OptionPattern,
  optionPattern,
} from "./rule_options.ts";

/** One rule, ready to match. */
export interface CompiledRule {
  list: "deny" | "ask" | "allow";
  pattern: string;
  /** The program word, then every word as written. */
  words: WordPattern[];
  /** The operands after the program word, matched in order as a prefix. */
  operands: WordPattern[];
  /** The options, matched as a set wherever they are (see `rule_options.ts`). */
  options: OptionPattern[];
  /** The program word's name, for how its options are read. */
  program: string;
}

/** One word of a rule. */
interface WordPattern {
  /** Matches the whole word (after `~` was replaced by the home directory). */
  regex: RegExp;
  /** Exact text when the word holds no glob, for the fast path. */
  exact: string | null;
  /** The word starts with an unquoted `~`, expanded at match time. */
  tilde: boolean;
  /** The program word names a path (`/bin/rm`), not just a name. */
  path: boolean;
  /** The word as written, quotes removed. */
  text: string;
}

/**
 * Compiles one rule of `list`.
 * @throws {Error} for an empty rule or an unterminated quote, naming the rule
 */
export function compileRule(list: CompiledRule["list"], pattern: string): CompiledRule {
  const split = splitRuleWords(pattern);
  if (split.length === 0) {
    throw new PolicyError(
      `Cannot use the ${list} rule ${JSON.stringify(pattern)}: it names no command`,
    );
  }
  const words = split.map((pieces, index) => {
    let source = "";
    let exact: string | null = "";
    let tilde = false;
    pieces.forEach((piece, p) => {
      let text = piece.text;
      if (!piece.quoted && p === 0 && (text === "~" || text.startsWith("~/"))) {
        tilde = true;
        text = text.slice(1);
      }
      if (piece.quoted) {
        source += escapeRegex(text);
        if (exact !== null) exact += text;
        return;
      }
      for (const char of text) {
        if (char === "*") source += ".*";
        else if (char === "?") source += ".";
        else source += escapeRegex(char);
        if (char === "*" || char === "?") exact = null;
        else if (exact !== null) exact += char;
      }
    });
    const word = pieces.map((p) => p.text).join("");
    return {
      regex: new RegExp(`^${source}$`, "s"),
      exact,
      tilde,
      path: index === 0 && word.includes("/"),
      text: word,
    };
  });
  const program = basename(words[0].text) || words[0].text;
  const operands: WordPattern[] = [];
  const options: OptionPattern[] = [];
  let ended = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    const valued = ended || word.tilde ? undefined : readValued(program, word.text);
    if (word.text === "--") ended = true;
    else if (valued !== undefined) {
      // `git -C DIR push`: the option, with its value (the next word when not attached).
      options.push(...[...valued.letters].map((letter) => ({ kind: "short" as const, letter })));
      const value = valued.value === undefined ? words[++i]?.regex : literalRegex(valued.value);
      if (value !== undefined) options.push({ kind: "valued", names: valued.names, value });
    } else if (!ended && !word.tilde && isOptionWord(word.text)) {
      options.push(...optionPattern(word.text, word.exact === null ? word.regex : null, program));
    } else operands.push(word);
  }
  return { list, pattern, words, operands, options, program };
}

function literalRegex(text: string): RegExp {
  return new RegExp(`^${escapeRegex(text)}$`, "s");
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** How a command's program may be named: as written, its basename, its real file. */
export interface ProgramNames {
  /** Bare names: the basename as written and, when resolved, the real file's basename. */
  names: string[];
  /** Paths: as written (absolute, made so against the cwd) and the real file. */
  paths: string[];
  /** The real file it runs, found through PATH and symlinks, when there is one. */
  real: string | null;
}

/** A match result: `maybe` when a word known only at run time could make it match. */
export type Match = "yes" | "maybe" | "no";

/**
 * Whether `rule` matches a command.
 * @param words the command's words (the program first)
 * @param open more arguments are added at run time (xargs)
 */
export function matchRule(
  rule: CompiledRule,
  program: ProgramNames,
  words: Word[],
  options: { home: string; open?: boolean },
): Match {
  const first = rule.words[0];
  const candidates = first.path ? program.paths : program.names;
  if (!candidates.some((name) => matchWord(first, name, options.home))) return "no";
  const split = splitWords(words, rule.program);
  const operands = split.operands;
  let result: Match = "yes";
  // Operands first: they rule most rules out at once.
  for (let i = 0; i < rule.operands.length; i++) {
    const word = operands[i];
    if (word === undefined) return options.open ? "maybe" : "no";
    if (word.dynamic) {
      const could = couldMatch(rule.operands[i], word, options.home);
      if (could === "no") return "no";
      if (could === "maybe") result = "maybe";
      continue;
    }
    if (!matchWord(rule.operands[i], word.text, options.home)) {
      // An operand known only at run time before this one could shift it.
      return result === "maybe" && operands.slice(0, i).some((w) => w.dynamic) ? "maybe" : "no";
    }
  }
  if (rule.options.length > 0) {
    const held = optionsOf(split, rule.program);
    for (const option of rule.options) {
      if (hasOption(held, option, rule.program)) continue;
      if (!split.unknownOption && !options.open) return "no";
      result = "maybe";
    }
  }
  return result;
}

/** The command's options as `program` reads them, read once per command and program. */
function optionsOf(split: SplitWords, program: string): CommandOptions {
  split.options ??= new Map();
  let held = split.options.get(program);
  if (held === undefined) {
    held = commandOptions(split.optionWords, program, split.values);
    split.options.set(program, held);
  }
  return held;
}

/** A command's words split for matching: read once per command, whatever the number of rules. */
interface SplitWords {
  operands: Word[];
  /** Option words before `--`. */
  optionWords: string[];
  /** A word known only at run time before `--` could be an option. */
  unknownOption: boolean;
  /** The values of options that take one (option_values.ts), by the option's first name. */
  values: Map<string, string[]>;
  /** The options read, by the program whose reading was used. */
  options?: Map<string, CommandOptions>;
}

/** Splits by command (its words) and by the program whose options are read. */
const splits = new WeakMap<Word[], Map<string, SplitWords>>();

function splitWords(words: Word[], program: string): SplitWords {
  let byProgram = splits.get(words);
  if (byProgram === undefined) splits.set(words, byProgram = new Map());
  const known = byProgram.get(program);
  if (known !== undefined) return known;
  const split: SplitWords = {
    operands: [],
    optionWords: [],
    unknownOption: false,
    values: new Map(),
  };
  let ended = false;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    const valued = ended || word.dynamic ? undefined : readValued(program, word.text);
    if (!ended && !word.dynamic && word.text === "--") ended = true;
    else if (valued !== undefined) {
      // `git -C DIR push`: DIR is the option's value, not an operand.
      split.optionWords.push(word.text);
      const value = valued.value ?? words[++i]?.text;
      if (value !== undefined) {
        const key = valued.names[0];
        split.values.set(key, [...(split.values.get(key) ?? []), value]);
      }
    } else if (!ended && !word.dynamic && isOptionWord(word.text)) {
      split.optionWords.push(word.text);
    } else {
      if (!ended && word.dynamic && !(word.glob && !word.text.startsWith("-"))) {
        split.unknownOption = true;
      }
      split.operands.push(word);
    }
  }
  byProgram.set(program, split);
  return split;
}

/** A word known only at run time against a rule word: a plain glob can rule some out. */
function couldMatch(pattern: WordPattern, word: Word, home: string): Match {
  if (!word.glob || pattern.exact === null) return "maybe";
  const literal = (pattern.tilde ? home : "") + pattern.exact;
  if (literal === word.text) return "yes";
  return globRegex(word.text).test(literal) ? "maybe" : "no";
}

function globRegex(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*") source += ".*";
    else if (char === "?") source += ".";
    else if (char === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) source += "\\[";
      else {
        source += `[${glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else source += escapeRegex(char);
  }
  return new RegExp(`^${source}$`, "s");
}

function matchWord(pattern: WordPattern, text: string, home: string): boolean {
  if (pattern.tilde) {
    if (!text.startsWith(home)) return false;
    text = text.slice(home.length);
  }
  return pattern.exact !== null ? pattern.exact === text : pattern.regex.test(text);
}

/**
 * Rules indexed by the program they name, so a command is matched only
 * against the rules that could name it (and those with a glob, `~` or a path
 * as their program word). Keeps the rules' order: deny, ask, allow.
 */
export class RuleIndex {
  readonly #byName = new Map<string, { rule: CompiledRule; order: number }[]>();
  readonly #always: { rule: CompiledRule; order: number }[] = [];
  readonly size: number;
  /** Every rule, in order. */
  readonly all: readonly CompiledRule[];

  constructor(rules: CompiledRule[]) {
    this.all = rules;
    rules.forEach((rule, order) => {
      const first = rule.words[0];
      if (first.exact === null || first.tilde || first.path) {
        this.#always.push({ rule, order });
        return;
      }
      const list = this.#byName.get(first.exact) ?? [];
      list.push({ rule, order });
      this.#byName.set(first.exact, list);
    });
    this.size = rules.length;
  }

  /** Whether some rule may match a program named `name` (cheaper than `candidates`). */
  mayName(name: string): boolean {
    return this.#always.length > 0 || this.#byName.has(name);
  }

  /** Whether a rule names the program `name` exactly (not by a glob or a path). */
  hasName(name: string): boolean {
    return this.#byName.has(name);
  }

  /** The rules that may match a program known by `names`, in their order. */
  candidates(names: string[]): CompiledRule[] {
    const found = [...this.#always];
    for (const name of names) found.push(...(this.#byName.get(name) ?? []));
    if (names.length > 1 || this.#always.length > 0) found.sort((a, b) => a.order - b.order);
    return found.map((entry) => entry.rule);
  }
}
