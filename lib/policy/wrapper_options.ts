/**
 * Reading a wrapper's own options (`sudo -u root`, `timeout -s KILL 5`) to
 * find where the program it runs begins.
 * @module
 */

import type { Word } from "./words.ts";
import type { Inner } from "./wrappers.ts";

/** How a wrapper's options are read: which short and long options take a value. */
export interface OptionSpec {
  /** Short options that take a value (`"un"`: `-u USER`, `-n5`). */
  values?: string;
  /** Long options that take a value as the next word (`--user USER`; `--user=USER` always works). */
  longValues?: string[];
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
    const text = words[i].text;
    if (text === "--") return { index: i + 1, seen };
    if (!text.startsWith("-") || text === "-") break;
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = eq < 0 ? text.slice(2) : text.slice(2, eq);
      if (eq < 0 && spec.longValues?.includes(name)) {
        // A value missing here may be added at run time (xargs): no value is known.
        seen.set(name, words[i + 1]?.text ?? true);
        i += 2;
      } else {
        seen.set(name, eq < 0 ? true : text.slice(eq + 1));
        i++;
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

/** The words from `index` as the program a wrapper runs (none when there are none). */
export function argv(words: Word[], index: number, via: string, open = false): Inner[] {
  if (index >= words.length) return [];
  return [{ kind: "argv", words: words.slice(index), via, open }];
}

/**
 * Skips `NAME=value` words (env, sudo): like env, any word holding `=` is one
 * (`env a-b=1 touch m` runs touch), and one built at run time may be.
 */
export function skipAssignments(words: Word[], index: number): number {
  while (index < words.length && /^[^=]+=/.test(words[index].text)) index++;
  return index;
}
