/**
 * The PATH a wrapper finds its program with, when it is not the line's:
 * `command -p` and execvp with PATH unset (`env -i`, `env -u PATH`) search
 * the standard path, a shell started without PATH sets its own, `setpriv
 * --reset-env` and a login `su`/`runuser` set the user's, `sudo` may use its
 * secure_path. The program is judged as found there: `ProgramSearch` keeps
 * the PATH each command of a line is found in and judges a wrapper's program
 * under each PATH it may get.
 * @module
 */

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Analysed, Analysis } from "./analysis_types.ts";
import { realFile } from "./resolve.ts";
import type { Word } from "./words.ts";

/** A PATH a wrapper gives its program: a value, null when unset, undefined when the line's. */
export type WrapperPath = string | null | undefined;

/** What execvp searches when PATH is unset (glibc's confstr(_CS_PATH), `getconf PATH`); also `command -p`'s. */
export const STANDARD_PATH = "/bin:/usr/bin";

/** The PATH a shell gives itself when it starts without one (bash's; dash's holds the same directories). */
export const SHELL_DEFAULT_PATH = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.";

/** `setpriv --reset-env`'s PATH for root and for another user (setpriv(1)). */
export const RESET_PATHS = [
  "/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin",
  "/usr/local/bin:/bin:/usr/bin",
];

/**
 * sudo's secure_path as Debian and Ubuntu ship it (sudoers is not readable
 * here): with it, sudo finds the program there, without it in the line's PATH.
 */
export const SECURE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/snap/bin";

/** The safe PATH doas gives the program unless its rule keeps the environment (OpenDoas). */
export const DOAS_PATH = "/bin:/sbin:/usr/bin:/usr/sbin:/usr/local/bin:/usr/local/sbin";

let login: string[] | undefined;

/**
 * The PATHs a login `su`/`runuser` sets, for root and for another user:
 * /etc/login.defs' ENV_SUPATH and ENV_PATH, else su(1)'s defaults.
 */
export function loginPaths(): string[] {
  if (login !== undefined) return login;
  let defs = "";
  try {
    defs = readFileSync("/etc/login.defs", "utf8");
  } catch {
    // No login.defs: su uses its built-in defaults.
  }
  const value = (name: string) =>
    new RegExp(`^\\s*${name}\\s+(?:PATH=)?(\\S+)`, "m").exec(defs)?.[1];
  login = [
    value("ENV_SUPATH") ?? value("ENV_ROOTPATH") ?? RESET_PATHS[0],
    value("ENV_PATH") ?? RESET_PATHS[1],
  ];
  return login;
}

/** Whether `path` is one of the system PATHs above, not one the line gives (`env PATH=DIR`). */
export function isSystemPath(path: string): boolean {
  return path === SECURE_PATH || path === DOAS_PATH || RESET_PATHS.includes(path) ||
    loginPaths().includes(path);
}

/**
 * The PATH env gives its program, or undefined when it keeps the line's: a
 * PATH= assignment's value (unknown when built at run time, or relative to a
 * directory `-C` changed to), else none after `-i`, `-`, `-u PATH`.
 */
export function envPath(
  options: Word[],
  seen: Map<string, string | true>,
  assignments: Word[],
  how: { moves: boolean; empty: boolean },
): WrapperPath {
  const set = assignments.filter((w) => w.text.startsWith("PATH="));
  const last = set.at(-1);
  if (last !== undefined) {
    if (last.dynamic || assignments.some((w) => /^[^=]*[$`]/.test(w.text))) return undefined;
    const value = last.text.slice("PATH=".length);
    return how.moves && value.split(":").some((dir) => !dir.startsWith("/")) ? undefined : value;
  }
  const ignore = how.empty || seen.has("i") ||
    [...seen.keys()].some((key) => key.length >= 2 && "ignore-environment".startsWith(key));
  const unset = options.some((w, i) =>
    w.text === "-uPATH" || /^--u[a-z]*=PATH$/.test(w.text) ||
    (w.text === "PATH" && /^(-[a-zA-Z0-9]*u|--u[a-z]*)$/.test(options[i - 1]?.text ?? ""))
  );
  return ignore || unset ? null : undefined;
}

/** What a wrapper's program is judged with: the PATHs it may get, where it is found, its words. */
export interface WrapperSearch {
  /** The PATHs it may run with (null: unset; undefined: the line's). */
  path?: WrapperPath[];
  /** The PATH it is found in, when only the wrapper's search differs (`command -p`). */
  lookup?: string;
  /** Its words, the program's first (none for a command string). */
  words?: Word[];
}

/**
 * The PATH each command a line runs is found in, as wrappers change it
 * (`env -i`, `sudo`, `su -`, `command -p`), and the PATHs the line gives
 * (`env PATH=DIR`), into whose directories it may write programs.
 */
export class ProgramSearch {
  /** The PATH the commands found here run with (a wrapper may have set another than the line's). */
  path: string;
  /** The commands found here are looked up in a PATH the line gives (`env PATH=DIR`). */
  given = false;
  /** The PATHs the line gives its wrappers' programs: files the line writes there count too. */
  readonly givenPaths = new Set<string>();
  /** The PATH the next command's program is found in, when only its wrapper's search differs. */
  #lookup: string | undefined;
  readonly #found: Pick<Analysis, "commands" | "unknowns">;
  readonly #cwd: string;
  readonly #runsMore: (program: string) => boolean;

  /**
   * @param line where the line runs, and what it finds (commands, unknowns)
   * @param runsMore whether a program runs others (a wrapper): found again under another PATH, it is judged again
   */
  constructor(
    line: { cwd: string; path: string; found: Pick<Analysis, "commands" | "unknowns"> },
    runsMore: (program: string) => boolean,
  ) {
    this.path = line.path;
    this.#cwd = line.cwd;
    this.#found = line.found;
    this.#runsMore = runsMore;
  }

  /** The PATH the next command's program is found in: the wrapper's lookup once, else `path`. */
  next(): string {
    const path = this.#lookup ?? this.path;
    this.#lookup = undefined;
    return path;
  }

  /**
   * Runs `analyse` once for each PATH a wrapper may give what it runs
   * (`env -i`: none, so execvp searches the standard path and a shell sets
   * its own; `sudo`: the line's or secure_path). An alternative that finds
   * the same file as the first is skipped unless that file runs more code;
   * what an alternative finds again is not listed twice.
   * @param how `program`: what runs is a program (execvp finds it), not a command string
   */
  eachPath(inner: WrapperSearch, how: { program: boolean; analyse: () => void }): void {
    const { program, analyse } = how;
    const saved = this.path;
    const given = this.given;
    const paths = inner.path === undefined ? [undefined] : [...new Set(inner.path)];
    const { commands, unknowns } = this.#found;
    const start = { commands: commands.length, unknowns: unknowns.length };
    let first: string | null | undefined;
    for (const [i, path] of paths.entries()) {
      const lookup = inner.lookup ?? (program && path === null ? STANDARD_PATH : undefined);
      this.path = path === undefined ? saved : path ?? SHELL_DEFAULT_PATH;
      const word = inner.words?.[0];
      if (word !== undefined && !word.dynamic) {
        const real = realFile(word.text, { cwd: this.#cwd, path: lookup ?? this.path });
        if (i === 0) first = real;
        else if (real === first && (real === null || !this.#runsMore(basename(real)))) continue;
      }
      if (typeof path === "string" && !isSystemPath(path)) {
        this.given = true;
        this.givenPaths.add(path);
      }
      const known = i === 0 ? null : {
        commands: new Set(commands.slice(start.commands).map(commandKey)),
        unknowns: new Set(unknowns.slice(start.unknowns).map(unknownKey)),
      };
      const end = { commands: commands.length, unknowns: unknowns.length };
      this.#lookup = program ? lookup : undefined;
      analyse();
      this.given = given;
      if (known === null) continue;
      commands.push(
        ...commands.splice(end.commands).filter((c) => !known.commands.has(commandKey(c))),
      );
      unknowns.push(
        ...unknowns.splice(end.unknowns).filter((u) => !known.unknowns.has(unknownKey(u))),
      );
    }
    this.#lookup = undefined;
    this.path = saved;
  }
}

/** What tells a command found twice (under two PATHs) from another. */
function commandKey(command: Analysed): string {
  return [command.via.join(">"), command.resolved ?? "", ...command.words.map((w) => w.text)]
    .join("\0");
}

/** What tells an unknown found twice from another. */
function unknownKey(unknown: Analysis["unknowns"][number]): string {
  return `${unknown.via.join(">")}\0${unknown.reason}`;
}
