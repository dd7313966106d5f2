/**
 * Shells as programs that run others: what `sh -c STRING`, `bash FILE`,
 * `zsh` (its startup files, standard input) run, read from the shell's own
 * options, and `su`-like programs that start one (`su -c`, `runuser`).
 * @module
 */

import type { ShellState } from "./types.ts";
import type { Word } from "./words.ts";
import type { Inner } from "./wrappers.ts";
import { optionScript, type OptionSpec, permutedOptions } from "./wrapper_options.ts";
import { hasLongFlag, movesDirectory } from "./wrapper_places.ts";
import { loginPaths } from "./wrapper_paths.ts";

/** Shells whose `-c STRING` is parsed, and which otherwise read commands from stdin or a file. */
export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh"]);

/** What a shell started with these words runs: its startup files, a `-c` string, standard input or a script file. */
export function shellCommands(words: Word[], name: string): Inner[] {
  const zsh = name === "zsh";
  let command = false;
  let stdin = false;
  /** Reads startup files from HOME (an interactive or login shell; zsh always, unless -f). */
  let startup = zsh;
  const found: Inner[] = [];
  let i = 1;
  while (i < words.length) {
    const { text, dynamic } = words[i];
    if (text === "--" || text === "-") {
      i++;
      break;
    }
    if (!/^[-+]/.test(text)) break;
    if (dynamic) {
      return [{
        kind: "unknown",
        reason: `${name} is given options known only when the line runs`,
      }];
    }
    i++;
    if (text.startsWith("--")) {
      if (text === "--rcfile" || text === "--init-file") {
        // Like BASH_ENV: a file of commands the shell runs first, not read here.
        found.push({
          kind: "unknown",
          reason: `${name} ${text} runs the file "${
            words[i]?.text ?? ""
          }" first, which is not checked`,
        });
        i++;
      } else if (text === "--emulate") i++; // zsh: the mode.
      else if (text === "--login" || text === "--interactive") startup = true;
      else if (zsh && /^--no-?rcs$/.test(text)) startup = false;
      continue;
    }
    // A letter group: bash and dash take each `o`/`O`'s value from the next words
    // and read on (`-oc posix CMD`); zsh takes the rest of the group (`-ointeractive`).
    let values = 0;
    for (let j = 1; j < text.length; j++) {
      const letter = text[j];
      const value = words[i + values];
      if (
        !zsh && text[0] === "-" && (letter === "k" || letter === "o" && value?.text === "keyword")
      ) {
        // bash's keyword option: `ls PATH=DIR m` finds ls in DIR.
        found.push({
          kind: "unknown",
          reason: `${name} ${
            letter === "k" ? "-k" : "-o keyword"
          } makes NAME=VALUE words anywhere in a command assignments (PATH=... among them)`,
        });
      }
      if (letter === "c") command = true;
      else if (letter === "s") stdin = true;
      else if (letter === "i" || letter === "l") startup = true;
      else if (letter === "f" && zsh && text[0] === "-") startup = false;
      else if (letter === "o" || letter === "O") {
        if (zsh && j < text.length - 1) break;
        values++;
      }
    }
    i += values;
  }
  if (startup) {
    found.push({ kind: "startup", variables: zsh ? ["HOME", "ZDOTDIR"] : ["HOME"], via: name });
  }
  return [...found, ...shellRuns(words, i, name, command, stdin)];
}

/** What a shell runs after its options: a `-c` string, standard input, or a script file. */
function shellRuns(
  words: Word[],
  i: number,
  name: string,
  command: boolean,
  stdin: boolean,
): Inner[] {
  const via = `${name} -c`;
  if (command) {
    if (i >= words.length) return [];
    return [{ kind: "script", text: words[i], via }];
  }
  if (stdin || i >= words.length) return [{ kind: "stdin", via: name }];
  const script = words[i];
  if (script.dynamic) {
    // `bash <(curl ...)`, `sh "$F"`: a script named only when the line runs.
    return [{
      kind: "unknown",
      reason: `${name} runs a script file known only when the line runs`,
    }];
  }
  // Matched by the shell's own name only; `/dev/stdin` and the like are standard input (script_files.ts).
  return [{ kind: "file", path: script, via: name }];
}

/**
 * `su`-like programs: `-c STRING` runs through a shell, else an interactive
 * shell. Options may follow the user (getopt permutes them: `su root -c CMD`);
 * a login shell (`-`, `-l`) starts in the user's home.
 */
export function userShellCommands(words: Word[], name: string, spec: OptionSpec): Inner[] {
  const { seen, operands } = permutedOptions(words, 1, {
    ...spec,
    values: `${spec.values ?? ""}c`,
    longValues: [...(spec.longValues ?? []), "command", "session-command"],
  });
  const login = operands.some((w) => w.text === "-") || seen.has("l") ||
    hasLongFlag(seen, "login");
  const place = login ? [movesDirectory(`${name} -l`)] : [];
  // A login shell's PATH is the user's (login.defs), not the line's.
  const path = login ? { path: loginPaths() } : {};
  const command = seen.get("c") ?? seen.get("command") ?? seen.get("session-command");
  const shell = seen.get("s") ?? seen.get("shell");
  if (typeof shell === "string") {
    // `su -s PROG -c CMD USER ARGS...` runs `PROG -c CMD ARGS...`, whatever PROG is.
    const given = (text: string) =>
      words.find((w) => w.text === text) ?? {
        text,
        dynamic: words.find((w) => w.text.endsWith(`=${text}`))?.dynamic ?? false,
      };
    const program = [
      given(shell),
      ...(typeof command === "string" ? [{ text: "-c", dynamic: false }, given(command)] : []),
      ...operands.filter((w) => w.text !== "-").slice(1),
    ];
    return [...place, { kind: "argv", words: program, via: `${name} -s`, ...path }];
  }
  if (typeof command === "string") {
    return [...place, { ...optionScript(words, command, `${name} -c`), ...path }];
  }
  return [...place, { kind: "stdin", via: name }];
}

/**
 * HOME or ZDOTDIR named other than as read (`$HOME`, `${HOME}`): the line may
 * set it (`HOME=x`, `export HOME`, `read HOME`, `${HOME:=x}`), and with it
 * where shells find their startup files; or a startup file named (the line
 * may write it: `echo ... >> ~/.zshenv`).
 */
const STARTUP_VARIABLE =
  /(^|[^$\w{])(HOME|ZDOTDIR)\b|\$\{(HOME|ZDOTDIR):?[=]|\.(bashrc|bash_profile|bash_login|profile|zshenv|zshrc|zprofile|zlogin)\b/;

/**
 * Whether the startup files of the shells a line starts may not be the ones
 * the user has: an earlier line moved HOME, or this line sets HOME or
 * ZDOTDIR or names a startup file somewhere (at any depth).
 */
export class StartupFiles {
  /** The line sets HOME or ZDOTDIR or names a startup file somewhere: a shell's startup files are not known. */
  #changed: boolean;
  /** The shell's HOME is not the session's (an earlier line set it). */
  readonly #homeMoved: boolean;
  readonly #homeMovedBy: string | undefined;

  constructor(shellState: ShellState | undefined) {
    // An earlier line moved HOME: any shell's start-up files are someone else's.
    this.#homeMoved = shellState?.homeMoved === true;
    this.#homeMovedBy = shellState?.homeMovedBy;
    this.#changed = this.#homeMoved;
  }

  /** Reads a text of the line (a line, a command's word) for HOME, ZDOTDIR or a startup file. */
  see(text: string): void {
    if (!this.#changed && STARTUP_VARIABLE.test(text)) this.#changed = true;
  }

  /** Why the startup files a shell runs (a `startup` inner) are not checked, or null when they are the user's. */
  unknown(startup: { variables: string[]; via: string }): string | null {
    if (!this.#changed) return null;
    const why = this.#homeMoved
      ? this.#homeMovedBy ?? "an earlier line set HOME to another directory"
      : `the line sets ${startup.variables.join(" or ")} or names a startup file`;
    return `${why}, and ${startup.via} runs its startup files, which are not checked`;
  }
}
