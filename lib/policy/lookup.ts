/**
 * What changes which file a command name runs, beyond `PATH=...`: the
 * variables behind the lookup (PATH, bash's BASH_CMDS hash table and
 * EXECIGNORE, whose patterns make bash skip the files they match, zsh's
 * `path` and `commands`) set by a builtin that takes a variable's name
 * (`read PATH`, `printf -v PATH`, `mapfile`, `getopts`, `declare`), zsh's
 * `hash NAME=PATH`, and `set -k` (bash then takes `NAME=VALUE` words anywhere
 * in a command for assignments, so `ls PATH=/tmp/x` changes PATH).
 * @module
 */

import type { Word } from "./words.ts";

/** Variables whose value decides which file a name runs. */
const LOOKUP = new Set(["PATH", "BASH_CMDS", "path", "commands", "EXECIGNORE"]);

/**
 * Whether an assignment to `name` (`PATH`, `BASH_CMDS[ls]`, `path+=`) changes
 * which file a command name runs.
 */
export function isLookupVariable(name: string): boolean {
  return LOOKUP.has(name.replace(/(\+?=|\[).*$/s, "").replace(/\+$/, ""));
}

/** Builtins that set variables they are given the names of, with their options that take a value. */
const SETTERS: Record<string, { values: string; names?: string; valued?: true }> = {
  read: { values: "dinNptu", names: "aA" },
  mapfile: { values: "dnOsuCc" },
  readarray: { values: "dnOsuCc" },
  vared: { values: "prMmif" },
  local: { values: "" },
  unset: { values: "" },
  // These set a value only when given one (`declare "PATH=/x"`); `export PATH` keeps it.
  declare: { values: "", valued: true },
  typeset: { values: "", valued: true },
  export: { values: "", valued: true },
  readonly: { values: "", valued: true },
  integer: { values: "", valued: true },
  float: { values: "", valued: true },
};

/**
 * Why a command changes which file a name runs, or null when it does not.
 * @param words the command's words (the program first)
 */
export function lookupChange(words: Word[]): string | null {
  const program = words[0]?.text ?? "";
  // The parser gives a declaration's bare names as variable names, read as dynamic words.
  const names = setNames(program, words).map((w) =>
    w.dynamic && /^\w+$/.test(w.text) ? { text: w.text, dynamic: false } : w
  );
  for (const name of names) {
    if (name.dynamic) {
      return `"${program}" sets a variable whose name is only known when the line runs, which may be PATH`;
    }
    if (isLookupVariable(name.text)) {
      return `"${program}" sets ${
        name.text.replace(/[[=+].*$/s, "")
      }, so which files the line's programs are cannot be known`;
    }
  }
  if (program === "hash" && !words.some((w) => /^-\w*d/.test(w.text))) {
    if (words.slice(1).some((w) => w.dynamic || w.text.includes("="))) {
      return '"hash NAME=PATH" changes which file a name runs';
    }
  }
  if (program === "set" && setsKeyword(words)) {
    return '"set -k" makes NAME=VALUE words anywhere in a command assignments (PATH=... among them)';
  }
  if (program === "shopt" && words.some((w) => w.dynamic || w.text === "keyword")) {
    return '"shopt -o keyword" makes NAME=VALUE words anywhere in a command assignments (PATH=... among them)';
  }
  return null;
}

/** The words naming variables a builtin sets (`read -a A x y`: A, x and y). */
function setNames(program: string, words: Word[]): Word[] {
  if (program === "printf" || program === "print") {
    // `printf -v NAME`, `printf -vNAME`; zsh's `print -v NAME`.
    const names: Word[] = [];
    for (let i = 1; i < words.length; i++) {
      const text = words[i].text;
      if (text === "--" || !text.startsWith("-")) break;
      const at = text.indexOf("v");
      if (/^-[a-zA-Z]+$/.test(text) && at > 0) {
        const rest = text.slice(at + 1);
        names.push(
          rest !== "" ? { text: rest, dynamic: false } : words[++i] ?? { text: "", dynamic: false },
        );
      } else if (words[i].dynamic) names.push(words[i]);
    }
    return names;
  }
  if (program === "getopts") return words.slice(2, 3);
  const setter = SETTERS[program];
  if (setter === undefined) return [];
  const names: Word[] = [];
  let options = true;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (options && !word.dynamic && word.text === "--") {
      options = false;
    } else if (options && !word.dynamic && /^[-+][a-zA-Z]/.test(word.text)) {
      for (let j = 1; j < word.text.length; j++) {
        const letter = word.text[j];
        const takes = setter.values.includes(letter) || (setter.names ?? "").includes(letter);
        if (!takes) continue;
        const rest = word.text.slice(j + 1);
        const value = rest !== "" ? { text: rest, dynamic: false } : words[++i];
        if (value !== undefined && (setter.names ?? "").includes(letter)) names.push(value);
        break;
      }
    } else if (!setter.valued || /^[^=]+=/.test(word.text) || !/^\w+$/.test(word.text)) {
      names.push(word);
    }
  }
  return names;
}

/** `set -k`, `set -ek`, `set -o keyword` (or an option only known when the line runs). */
function setsKeyword(words: Word[]): boolean {
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word.dynamic) return true; // `set $x`: it may be `-k`.
    const text = word.text;
    if (text === "--" || text === "-" || !/^[-+]/.test(text)) return false;
    if (/^-[a-zA-Z]*k/.test(text)) return true;
    if (/^[-+][a-zA-Z]*o$/.test(text)) {
      // `-o NAME`, also at the end of a group (`-eo keyword`).
      const next = words[++i];
      if (next !== undefined && (next.dynamic || next.text === "keyword")) return true;
    }
  }
  return false;
}

/** An arithmetic assignment to a lookup variable (`((PATH=0))`, `let PATH+=1`, `++PATH`). */
const ARITHMETIC_ASSIGNMENT =
  /(?:^|[^\w$])(PATH|BASH_CMDS|path|commands|EXECIGNORE)(?:\[[^\]]*\])?\s*(?:(?:[-+*/%^|&]|<<|>>)?=(?!=)|\+\+|--)|(?:\+\+|--)\s*(PATH|BASH_CMDS|path|commands|EXECIGNORE)\b/;

/**
 * Why a line whose arithmetic may assign a lookup variable (PATH=0 makes
 * `./0` the one directory searched) changes which file a name runs, or null.
 * @param text the source of a line that evaluates arithmetic somewhere
 */
export function arithmeticLookupChange(text: string): string | null {
  const found = ARITHMETIC_ASSIGNMENT.exec(text);
  if (found === null) return null;
  return `the line's arithmetic may assign ${
    found[1] ?? found[2]
  }, so which files its programs are cannot be known`;
}
