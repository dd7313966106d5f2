/**
 * Tab completion in the REPL: command names, then per command its options,
 * session names, key names, wait kinds or help topics.
 * @module
 */

import { COMMANDS, findCommand } from "../console/mod.ts";
import { KEY_NAMES } from "../terminal/keys.ts";

/** tmux-style spellings offered next to the canonical key names. */
const TMUX_KEYS = [
  "C-c",
  "C-d",
  "C-z",
  "C-l",
  "C-a",
  "C-e",
  "C-r",
  "M-f",
  "M-b",
  "BSpace",
  "BTab",
  "DC",
  "IC",
  "Up",
  "Down",
  "Left",
  "Right",
  "PPage",
  "NPage",
];

const KEYS = [...new Set([...KEY_NAMES, ...TMUX_KEYS])];
const WAIT_KINDS = ["text", "regex", "gone", "idle", "prompt", "exit"];
const SESSION_ARGUMENT = new Set(["use", "close", "attach"]);

/**
 * Completes the last word of `line`, as node:readline's completer: the
 * candidates and the word they complete. A word completed to its only
 * candidate is finished, so a space follows it, as in bash.
 * @param sessions The names of the open sessions.
 * @example complete("scr", []) // [["screen "], "scr"]
 */
export function complete(line: string, sessions: readonly string[]): [string[], string] {
  const [hits, word] = candidates(line, sessions);
  return [hits.length === 1 ? [hits[0] + " "] : hits, word];
}

function candidates(line: string, sessions: readonly string[]): [string[], string] {
  const words = line.trimStart().split(/\s+/);
  const last = words[words.length - 1];
  if (words.length === 1) {
    return [matching(COMMANDS.map((c) => c.name), last), last];
  }
  const command = findCommand(words[0]);
  if (command === undefined) return [[], last];
  const position = words.length - 1;
  // A text command's options come first; most may also end the line (not exec's: the shell's).
  const optionsHere = !command.raw || position === 1 || command.spec?.trailing === true;
  if (last.startsWith("--") && optionsHere && !words.slice(1, -1).includes("--")) {
    const options = Object.keys(command.spec?.options ?? {}).map((o) => `--${o}`);
    return [matching(options, last), last];
  }
  if (words.includes("--")) return [[], last]; // A program and its arguments.
  switch (command.name) {
    case "key":
      return [matching(KEYS, last, true), last];
    case "help":
      return position === 1
        ? [matching([...COMMANDS.map((c) => c.name), "keys", "quoting"], last), last]
        : [[], last];
    case "wait":
      return position === 1 ? [matching(WAIT_KINDS, last), last] : [[], last];
    case "input":
      // A lone key name is pressed: offer them once something is typed.
      return position === 1 && last !== "" ? [matching(KEYS, last, true), last] : [[], last];
  }
  if (command.raw) return [[], last];
  if (SESSION_ARGUMENT.has(command.name) && position === 1) {
    return [matching([...sessions], last), last];
  }
  return [[], last];
}

function matching(candidates: readonly string[], prefix: string, ignoreCase = false): string[] {
  const wanted = ignoreCase ? prefix.toLowerCase() : prefix;
  return candidates.filter((c) => (ignoreCase ? c.toLowerCase() : c).startsWith(wanted)).sort();
}
