/**
 * Code a command stores for the shell to run later, outside the line being
 * checked: `trap CODE SIG`, `complete -C CMD`, `mapfile -C CODE`, `bind -x`,
 * `alias NAME=CODE` (when the same line also runs NAME: `sh -c` and `zsh -c`
 * expand aliases on later lines), and `fc`, which runs lines from the history (where a
 * refused line stays). The analyser checks literal code as a line of its own
 * and treats the rest as unknown.
 * @module
 */

import type { Word } from "./words.ts";

/** What a builtin's words store or run later. */
export type Deferred =
  /** `alias`: the name it defines (a non-interactive sh or zsh expands it on later lines). */
  | { kind: "code"; text: Word; via: string; alias?: string }
  | { kind: "unknown"; reason: string };

/** The option that takes a command string, for builtins that have one. */
const CALLBACK_OPTION: Record<string, string> = {
  complete: "C",
  compgen: "C",
  mapfile: "C",
  readarray: "C",
};

/**
 * The code `words` (a simple command, wrappers already looked through) leave
 * for the shell to run later, or why it cannot be known.
 */
export function deferredCode(words: Word[]): Deferred[] {
  const name = words[0]?.text;
  if (name === "trap") return trapCode(words);
  if (name === "alias") return aliasCode(words);
  if (name === "fc") {
    if (words.slice(1).some((w) => /^-[a-zA-Z]*l/.test(w.text))) return [];
    return [{
      kind: "unknown",
      reason: "fc runs lines from the history (a refused line stays there) without checking them",
    }];
  }
  if (name === "bind" && words.slice(1).some((w) => w.dynamic || /^-[a-zA-Z]*x/.test(w.text))) {
    return [{ kind: "unknown", reason: "bind -x makes a key run a command that is not checked" }];
  }
  const option = CALLBACK_OPTION[name ?? ""];
  if (option === undefined) return [];
  const found: Deferred[] = [];
  for (let i = 1; i < words.length; i++) {
    const text = words[i].text;
    if (text === "--") break;
    if (!/^-[a-zA-Z]+$/.test(text)) continue;
    const at = text.indexOf(option);
    if (at < 0) continue;
    // `-C CODE`, or `-xC CODE`, or `-CCODE`.
    const rest = text.slice(at + 1);
    const code = rest !== "" ? { text: rest, dynamic: words[i].dynamic } : words[i + 1];
    if (code === undefined) continue;
    found.push({ kind: "code", text: code, via: `${name} -${option}` });
  }
  return found;
}

/** `trap [-lp] [[CODE] SIGNAL...]`: CODE runs when a signal (or EXIT, DEBUG, ERR, RETURN) comes. */
function trapCode(words: Word[]): Deferred[] {
  let i = 1;
  if (words[i]?.text === "--") i++;
  if (words[i] !== undefined && /^-[lp]+$/.test(words[i].text)) return [];
  const code = words[i];
  // One word alone resets that signal; "-" resets the ones named.
  if (code === undefined || words.length - i < 2 || (!code.dynamic && code.text === "-")) {
    return [];
  }
  return [{ kind: "code", text: code, via: "trap" }];
}

/** `alias NAME=CODE`: the shell runs CODE where NAME is typed later. */
function aliasCode(words: Word[]): Deferred[] {
  const found: Deferred[] = [];
  for (const word of words.slice(1)) {
    const at = word.text.indexOf("=");
    if (word.dynamic && at < 0) {
      found.push({ kind: "unknown", reason: "alias is given a definition built at run time" });
    } else if (at > 0) {
      found.push({
        kind: "code",
        text: { text: word.text.slice(at + 1), dynamic: word.dynamic },
        via: `alias ${word.text.slice(0, at)}`,
        alias: word.text.slice(0, at),
      });
    }
  }
  return found;
}

/** Variables whose value the shell runs or sources later (in an interactive shell, or a child). */
const CODE_VARIABLES: Record<string, "code" | "prompt" | "file"> = {
  PROMPT_COMMAND: "code",
  PS0: "prompt",
  PS1: "prompt",
  PS2: "prompt",
  PS3: "prompt",
  PS4: "prompt",
  BASH_ENV: "file",
  ENV: "file",
};

/**
 * What an assignment of `value` to the variable `name` leaves for the shell
 * to run later: PROMPT_COMMAND's code, a prompt's substitutions (PS0-PS4),
 * the file BASH_ENV or ENV names.
 */
export function deferredAssignment(name: string, value: Word | undefined): Deferred[] {
  const kind = CODE_VARIABLES[name.replace(/\[.*$/, "")];
  if (kind === undefined) return [];
  const base = name.replace(/\[.*$/, "");
  if (kind === "file") {
    return [{ kind: "unknown", reason: `${base} names a file a shell will run unchecked` }];
  }
  if (value === undefined) return [];
  if (kind === "code") {
    if (value.dynamic) {
      return [{ kind: "unknown", reason: `${base} is given code built at run time` }];
    }
    return [{ kind: "code", text: value, via: base }];
  }
  if (value.dynamic || /\$[({]|`/.test(value.text)) {
    return [{
      kind: "unknown",
      reason: `${base} holds substitutions the shell runs at each prompt, which are not checked`,
    }];
  }
  return [];
}

/** Whether a word names one of the variables above (as `read`, `printf -v` or a nameref would set it). */
export function isCodeVariable(text: string): boolean {
  return CODE_VARIABLES[text.replace(/[[+=].*$/, "")] !== undefined;
}
