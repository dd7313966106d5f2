/**
 * Reading a wrapper's own options (`sudo -u root`, `timeout -s KILL 5`) to
 * find where the program it runs begins, and what an option's value gives
 * (a word, a command string, a program).
 * @module
 */

import type { Word } from "./words.ts";
import type { Inner } from "./wrappers.ts";

/** How a wrapper's options are read: which short and long options take a value. */
export interface OptionSpec {
  /** Short options that take a value (`"un"`: `-u USER`, `-n5`). */
  values?: string;
  /**
   * Long options that take a value as the next word (`--user USER`; `--user=USER` always works).
   * As getopt_long does, an unambiguous abbreviation is read as the option (`--us USER`).
   */
  longValues?: string[];
  /**
   * Long options without a value whose name begins another's that has one
   * (nsenter's `--wd` and `--wdns DIR`): named exactly, they are not abbreviations.
   */
  longFlags?: string[];
  /** `-5` style numeric options (nice). */
  numeric?: boolean;
}

/**
 * Skips options from `start`; returns the index of the first operand and the
 * options seen, with their values (`true`: a flag, or a value missing at the
 * end of the words, which xargs may add when the line runs).
 */
export function skipOptions(
  words: Word[],
  start: number,
  spec: OptionSpec,
): { index: number; seen: Map<string, string | true> } {
  const seen = new Map<string, string | true>();
  let i = start;
  while (i < words.length) {
    const { text, dynamic } = words[i];
    if (text === "--") return { index: i + 1, seen };
    // An option built at run time (`-$X`) may be anything: read as the program, it is unknown.
    if (!text.startsWith("-") || text === "-" || dynamic) break;
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const written = eq < 0 ? text.slice(2) : text.slice(2, eq);
      const name = valueOption(written, spec);
      if (name === undefined) {
        seen.set(written, eq < 0 ? true : text.slice(eq + 1));
        i++;
      } else if (eq >= 0) {
        seen.set(name, text.slice(eq + 1));
        i++;
      } else {
        // A value missing here may be added at run time (xargs): no value is known.
        seen.set(name, words[i + 1]?.text ?? true);
        i += 2;
      }
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(text)) {
      i++;
      continue;
    }
    i++;
    for (let j = 1; j < text.length; j++) {
      const flag = text[j];
      if (spec.values?.includes(flag)) {
        const attached = text.slice(j + 1);
        seen.set(flag, attached !== "" ? attached : words[i]?.text ?? true);
        if (attached === "") i++;
        break;
      }
      seen.set(flag, true);
    }
  }
  return { index: i, seen };
}

/**
 * The value-taking long option a written name stands for: itself, or the one
 * it abbreviates (`--split` is `--split-string`); undefined when it is not
 * one. An abbreviation of several is kept as written: the program reads it as
 * one of them or refuses it.
 */
function valueOption(written: string, spec: OptionSpec): string | undefined {
  const values = spec.longValues ?? [];
  if (values.includes(written)) return written;
  if (written === "" || spec.longFlags?.includes(written)) return undefined;
  const matches = values.filter((name) => name.startsWith(written));
  if (matches.length === 0) return undefined;
  return matches.length === 1 ? matches[0] : written;
}

/**
 * The words from `index` as the program a wrapper runs (none when there are
 * none). A word of the wrapper's own before it that may become no word or
 * several (`env -u $x echo touch m` runs `touch m` when x is empty) moves
 * the program elsewhere when the line runs: that is unknown too.
 */
export function argv(words: Word[], index: number, via: string, open = false): Inner[] {
  const shifting = words.slice(1, index).find((word) => word.fields === true);
  const moved: Inner[] = shifting === undefined ? [] : [{
    kind: "unknown",
    reason:
      `"${shifting.text}" may become no word or several when the line runs, so where the program ${via} runs begins is not known`,
  }];
  if (index >= words.length) return moved;
  return [{ kind: "argv", words: words.slice(index), via, open }, ...moved];
}

/**
 * An option's value as a word: dynamic when the word that gave it was
 * (`-a "$N"`, `--argv0=$N`).
 * @param after what stands before the value in a word that holds more (`=`:
 *   `--command=VALUE`; "": any word that ends in the value)
 */
export function optionWord(words: Word[], value: string, after = ""): Word {
  const given = words.find((w) => w.text === value || w.text.endsWith(`${after}${value}`));
  return { text: value, dynamic: given?.dynamic ?? false };
}

/** A command string an option gave (`-c STRING`), dynamic when its word was. */
export function optionScript(words: Word[], text: string, via: string): Inner & { kind: "script" } {
  return { kind: "script", text: optionWord(words, text, "="), via };
}

/**
 * A program an option names (`--dbus-daemon=PROG`, `fakeroot --faked PROG`):
 * it runs with arguments the wrapper adds, so more may follow when it runs.
 */
export function optionProgram(words: Word[], value: string, via: string): Inner[] {
  return [{ kind: "argv", words: [optionWord(words, value, "=")], via, open: true }];
}

/** A wrapper whose program follows its options (`nice -n 5 CMD`), read as `spec` says. */
export function afterOptions(spec: OptionSpec): (words: Word[], name: string) => Inner[] {
  return (words, name) => argv(words, skipOptions(words, 1, spec).index, name);
}

/**
 * Skips `NAME=value` words (env, sudo): like env, any word holding `=` is one
 * (`env a-b=1 touch m` runs touch), and one built at run time may be.
 */
export function skipAssignments(words: Word[], index: number): number {
  while (index < words.length && /^[^=]+=/.test(words[index].text)) index++;
  return index;
}

/**
 * Reads options wherever they stand before `--`, as getopt does when it
 * permutes (`su root -c CMD`): the options seen, and the other words.
 */
export function permutedOptions(
  words: Word[],
  start: number,
  spec: OptionSpec,
): { seen: Map<string, string | true>; operands: Word[] } {
  const seen = new Map<string, string | true>();
  const operands: Word[] = [];
  let i = start;
  while (i < words.length) {
    const read = skipOptions(words, i, spec);
    for (const [name, value] of read.seen) seen.set(name, value);
    if (read.index > i && words[read.index - 1].text === "--") {
      operands.push(...words.slice(read.index));
      break;
    }
    if (read.index >= words.length) break;
    operands.push(words[read.index]);
    i = read.index + 1;
  }
  return { seen, operands };
}

/**
 * Where an option stands among a wrapper's options (`env -iS STRING`): the
 * index of its word, where in that word its letter is (0 for a long option),
 * and the index after its value; null when it is not given before the first
 * operand.
 */
export function findOption(
  words: Word[],
  start: number,
  spec: OptionSpec,
  option: { short: string; long: string },
): { at: number; letter: number; next: number } | null {
  let i = start;
  while (i < words.length) {
    const { text, dynamic } = words[i];
    if (text === "--" || !text.startsWith("-") || text === "-" || dynamic) return null;
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = valueOption(eq < 0 ? text.slice(2) : text.slice(2, eq), spec);
      const next = name === undefined || eq >= 0 ? i + 1 : i + 2;
      if (name === option.long) return { at: i, letter: 0, next };
      i = next;
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(text)) {
      i++;
      continue;
    }
    let next = i + 1;
    for (let j = 1; j < text.length; j++) {
      const takes = spec.values?.includes(text[j]) ?? false;
      const after = takes && j === text.length - 1 ? i + 2 : i + 1;
      if (text[j] === option.short) return { at: i, letter: j, next: after };
      if (takes) {
        next = after;
        break;
      }
    }
    i = next;
  }
  return null;
}
