/**
 * A shell among another program's arguments, given a command string or
 * started without a script (`perf stat sh -c 'rm -rf x'`, `bwrap --bind / /
 * bash --norc`): a program nobody listed as a wrapper very likely runs it, so
 * the words from the shell on are judged as the command they are. A shell
 * name that is just text (`man bash`, `apt install bash zsh`, `grep -r sh .`,
 * `useradd -s /bin/bash -m alice`) is left alone: only a shell followed by
 * options that shell takes, then a `-c` string or nothing, counts.
 * @module
 */

import { basename } from "node:path";
import { programNames } from "./resolve.ts";
import type { Word } from "./words.ts";
import { SHELLS } from "./shells.ts";

/** Shells whose language is not parsed here: only their `-c` counts (what they run is unknown). */
const OTHER_SHELLS = new Set(["fish", "csh", "tcsh"]);

/** bash's and the POSIX shells' option letters (`-o NAME` and `-O NAME` take a value). */
const LETTERS = /^[-+][abcefhiklmnoprstuvxBCDEHIOPT]+$/;

/** bash's long options. */
const LONG = new Set([
  "--debug",
  "--debugger",
  "--dump-po-strings",
  "--dump-strings",
  "--help",
  "--init-file",
  "--login",
  "--noediting",
  "--noprofile",
  "--norc",
  "--posix",
  "--pretty-print",
  "--protected",
  "--rcfile",
  "--restricted",
  "--verbose",
  "--version",
  "--wordexp",
]);

/** The names `set -o` takes (bash's, with dash's and ksh's few others). */
const SET_O = new Set([
  "allexport",
  "braceexpand",
  "emacs",
  "errexit",
  "errtrace",
  "functrace",
  "hashall",
  "histexpand",
  "history",
  "ignoreeof",
  "interactive-comments",
  "keyword",
  "monitor",
  "noclobber",
  "noexec",
  "noglob",
  "nolog",
  "notify",
  "nounset",
  "onecmd",
  "physical",
  "pipefail",
  "posix",
  "privileged",
  "verbose",
  "vi",
  "xtrace",
]);

/**
 * The index of a shell word among a command's arguments that starts a shell
 * command (a `-c` string, or a shell reading standard input), or -1.
 * @param words the command's words (the program first, which is not a wrapper)
 */
export function shellAmongArguments(
  words: Word[],
  context: { cwd: string; path: string },
): number {
  for (let i = 1; i < words.length - 1; i++) {
    const word = words[i];
    const next = words[i + 1];
    if (word.dynamic || next.dynamic || !/^[-+]/.test(next.text)) continue;
    const name = shellName(word.text, context);
    if (name !== null && startsShell(words, i + 1, name)) return i;
  }
  return -1;
}

/** The shell a word names (by name, path, or a link's target), or null. */
function shellName(text: string, context: { cwd: string; path: string }): string | null {
  const name = basename(text);
  if (SHELLS.has(name) || OTHER_SHELLS.has(name)) return name;
  if (!text.includes("/")) return null;
  // A link to a shell under another name (`./mysh -c ...`).
  const real = programNames(text, context).real;
  const realName = real === null ? "" : basename(real);
  return SHELLS.has(realName) || OTHER_SHELLS.has(realName) ? realName : null;
}

/** Whether the words from `start` are options `shell` takes, then a `-c` string or nothing. */
function startsShell(words: Word[], start: number, shell: string): boolean {
  let command = false;
  let stdin = false;
  let i = start;
  while (i < words.length && /^[-+]/.test(words[i].text) && !words[i].dynamic) {
    const text = words[i].text;
    i++;
    if (text === "--" || text === "-") break;
    if (OTHER_SHELLS.has(shell)) {
      if (text !== "--command" && !/^-[a-zA-Z]*c[a-zA-Z]*$/.test(text)) return false;
      return i < words.length;
    }
    if (text.startsWith("--")) {
      if (shell === "zsh") {
        if (!/^--[a-zA-Z_-]+$/.test(text)) return false;
      } else if (!LONG.has(text)) return false;
      if (text === "--rcfile" || text === "--init-file") i++;
      continue;
    }
    if (shell === "zsh" ? !/^[-+][a-zA-Z0-9]+$/.test(text) : !LETTERS.test(text)) return false;
    if (text.includes("c") && text[0] === "-") command = true;
    if (text.includes("s") && text[0] === "-") stdin = true;
    for (const [at, letter] of [...text].entries()) {
      if (at === 0 || (letter !== "o" && letter !== "O")) continue;
      if (shell === "zsh") {
        // zsh takes the rest of the group, or the next word.
        if (at === text.length - 1) i++;
        break;
      }
      const value = words[i++];
      if (value === undefined || value.dynamic) return false;
      if (letter === "o" && !SET_O.has(value.text)) return false;
    }
  }
  // `-c STRING`: the string follows; `-s`, or no script file after: standard input.
  return command ? i < words.length : stdin || i >= words.length;
}
