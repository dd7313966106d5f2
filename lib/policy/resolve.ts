/**
 * Which file a program word runs: looked up in PATH (or taken as a path), then
 * followed through symlinks the way the kernel does (`..` after the link it
 * follows), so that a link named `x` pointing at `rm` is known as `rm`. A path
 * that leads into a process's files (`/proc/self/exe`, `/dev/stdin`,
 * `/proc/self/cwd/x`) is not followed: those name files of the process that
 * runs them, not of this one. Answers are kept for a second: a line's checks
 * repeat names.
 * @module
 */

import { accessSync, constants, lstatSync, readlinkSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, normalize, resolve } from "node:path";
import { absolute } from "./paths.ts";
import type { ProgramNames } from "./rules.ts";

/** bash's builtins and keywords (`compgen -b`, `compgen -k`): bash runs these itself, never a file from PATH. */
const BASH = new Set([
  ".",
  ":",
  "[",
  "alias",
  "bg",
  "bind",
  "break",
  "builtin",
  "caller",
  "cd",
  "command",
  "compgen",
  "complete",
  "compopt",
  "continue",
  "declare",
  "dirs",
  "disown",
  "echo",
  "enable",
  "eval",
  "exec",
  "exit",
  "export",
  "false",
  "fc",
  "fg",
  "getopts",
  "hash",
  "help",
  "history",
  "jobs",
  "kill",
  "let",
  "local",
  "logout",
  "mapfile",
  "popd",
  "printf",
  "pushd",
  "pwd",
  "read",
  "readarray",
  "readonly",
  "return",
  "set",
  "shift",
  "shopt",
  "source",
  "suspend",
  "test",
  "times",
  "trap",
  "true",
  "type",
  "typeset",
  "ulimit",
  "umask",
  "unalias",
  "unset",
  "wait",
]);

/** zsh's builtins (`${(k)builtins}` with no module loaded): bash's `help`, `shopt`, `complete`... are not among them. */
const ZSH = new Set([
  "-",
  ".",
  ":",
  "[",
  "alias",
  "autoload",
  "bg",
  "bindkey",
  "break",
  "builtin",
  "bye",
  "cd",
  "chdir",
  "command",
  "compadd",
  "comparguments",
  "compcall",
  "compctl",
  "compdescribe",
  "compfiles",
  "compgroups",
  "compquote",
  "compset",
  "comptags",
  "comptry",
  "compvalues",
  "continue",
  "declare",
  "dirs",
  "disable",
  "disown",
  "echo",
  "echotc",
  "echoti",
  "emulate",
  "enable",
  "eval",
  "exec",
  "exit",
  "export",
  "false",
  "fc",
  "fg",
  "float",
  "functions",
  "getln",
  "getopts",
  "hash",
  "history",
  "integer",
  "jobs",
  "kill",
  "let",
  "limit",
  "local",
  "log",
  "logout",
  "noglob",
  "popd",
  "print",
  "printf",
  "private",
  "pushd",
  "pushln",
  "pwd",
  "r",
  "read",
  "readonly",
  "rehash",
  "return",
  "sched",
  "set",
  "setopt",
  "shift",
  "source",
  "suspend",
  "test",
  "times",
  "trap",
  "true",
  "ttyctl",
  "type",
  "typeset",
  "ulimit",
  "umask",
  "unalias",
  "unfunction",
  "unhash",
  "unlimit",
  "unset",
  "unsetopt",
  "vared",
  "wait",
  "whence",
  "where",
  "which",
  "zcompile",
  "zformat",
  "zle",
  "zmodload",
  "zparseopts",
  "zregexparse",
  "zstyle",
]);

/** dash's builtins: what `sh` (dash here, bash elsewhere) surely runs itself is in both lists. */
const DASH = new Set([
  ".",
  ":",
  "[",
  "alias",
  "bg",
  "break",
  "cd",
  "chdir",
  "command",
  "continue",
  "echo",
  "eval",
  "exec",
  "exit",
  "export",
  "false",
  "fg",
  "getopts",
  "hash",
  "jobs",
  "kill",
  "local",
  "printf",
  "pwd",
  "read",
  "readonly",
  "return",
  "set",
  "shift",
  "test",
  "times",
  "trap",
  "true",
  "type",
  "ulimit",
  "umask",
  "unalias",
  "unset",
  "wait",
]);

/** The builtins of a shell the line may be run by but not known which: those of every shell. */
const ANY = new Set([...BASH].filter((name) => ZSH.has(name) && DASH.has(name)));

/** The "shell" of a program run by execve (by a wrapper, or `exec`): it has no builtins. */
export const EXEC = "(execve)";

const DIALECTS: Record<string, ReadonlySet<string>> = {
  [EXEC]: new Set(),
  bash: BASH,
  rbash: BASH,
  zsh: ZSH,
  sh: new Set([...DASH].filter((name) => BASH.has(name))),
  dash: DASH,
};

/**
 * The builtins of the shell `shell` names (`zsh`, `/bin/bash`); bash's when
 * none is given; for a shell not known here, only names every shell has.
 */
function builtinsOf(shell: string | undefined): ReadonlySet<string> {
  return shell === undefined ? BASH : DIALECTS[basename(shell)] ?? ANY;
}

/**
 * Whether the shell runs `word` itself (a builtin or keyword), never a file.
 * @param shell the shell that runs it (bash when not given)
 */
export function isBuiltin(word: string, shell?: string): boolean {
  return builtinsOf(shell).has(word);
}

const TTL_MS = 1000;
const cache = new Map<string, { at: number; file: ProgramFile }>();

/** Where a program word leads, from the directory and PATH of a context. */
export interface ProgramFile {
  /** The real file (or directory) it names, or null when there is none or it is a process's file. */
  real: string | null;
  /** It leads through a process's files (`/proc/PID/...`, `/dev/fd`, `/dev/stdin`): known only when it runs. */
  process: boolean;
  /** It names a directory (with bash's autocd or zsh's auto_cd the command changes into it). */
  directory: boolean;
  /**
   * For a process's file: what a program opening it gets. `stdin`, `stream`
   * (standard output or error), `other` (another descriptor, the process's
   * executable, directory or root: a file that may be run), `data` (its
   * status and the like: never a program).
   */
  opens?: "stdin" | "stream" | "other" | "data";
}

/** Where a lookup happens: the directory and PATH, and the shell (for its builtins). */
export interface LookupContext extends EntryContext {
  /** The shell that runs the word (`zsh`, `/bin/bash`); bash when not given. */
  shell?: string;
}

/**
 * The names and paths a program word is known by.
 * @param word the program word as the shell passes it (`rm`, `/bin/rm`, `./x`)
 */
export function programNames(word: string, context: LookupContext): ProgramNames {
  const names = [basename(word) || word];
  const paths: string[] = [];
  if (word.includes("/")) {
    paths.push(isAbsolute(word) ? word : resolve(context.cwd, word));
    if (!isAbsolute(word)) paths.push(word); // A rule may name it as written (`./deploy.sh`).
  }
  const real = isBuiltin(word, context.shell) ? null : realFile(word, context);
  if (real !== null) {
    const realName = basename(real);
    if (!names.includes(realName)) names.push(realName);
    if (!paths.includes(real)) paths.push(real);
  }
  return { names, paths, real };
}

/** The real file `word` runs, or null when it is not found (or is a process's file). */
export function realFile(word: string, context: EntryContext): string | null {
  return programFile(word, context).real;
}

/** Where `word` leads as a program: looked up in PATH, or a path from the working directory. */
export function programFile(word: string, context: EntryContext): ProgramFile {
  const key = `${context.path}\0${context.cwd}\0${context.home ?? ""}\0${word}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit !== undefined && now - hit.at < TTL_MS) return hit.file;
  const file = lookUp(word, context);
  if (cache.size > 1000) cache.clear();
  cache.set(key, { at: now, file });
  return file;
}

const NOT_FOUND: ProgramFile = { real: null, process: false, directory: false };

/**
 * The directory and PATH a name is looked up from; `home` when the shell
 * expands a PATH entry's leading `~` as it searches (bash does, with a
 * literal `PATH="~/bin:$PATH"`; zsh and dash take it as a relative name).
 */
export interface EntryContext {
  cwd: string;
  path: string;
  home?: string;
}

/** A PATH entry bash expands as it searches (`~`, `~/bin`). */
const TILDE = /^~(\/|$)/;

/** The directory a PATH entry names (an empty one: the current directory). */
function entryDirectory(dir: string, context: EntryContext): string {
  if (dir === "") return context.cwd;
  if (context.home && TILDE.test(dir)) return context.home + dir.slice(1);
  return absolute(context.cwd, dir);
}

function lookUp(word: string, context: EntryContext): ProgramFile {
  if (word === "") return NOT_FOUND;
  if (word.includes("/")) return followPath(absolute(context.cwd, word));
  for (const dir of context.path.split(":")) {
    // An empty PATH entry means the current directory.
    const base = entryDirectory(dir, context);
    if (!base.startsWith("/") || !dir.startsWith("/") || /\/(proc|dev)\//.test(`${base}/`)) {
      // A relative entry leads where the working directory does (`/proc/self/cwd`...).
      const place = followPath(base);
      if (place.process) return place;
    }
    const candidate = `${base}/${word}`;
    if (isExecutableFile(candidate)) {
      const file = followPath(candidate);
      if (file.real !== null || file.process) return file;
    }
  }
  return NOT_FOUND;
}

/**
 * The first relative entry of `path` (empty: the current directory) that the
 * shell searches for `name` before it finds it in an absolute one, or null.
 * After the line changes directory such an entry names another directory.
 */
export function relativeEntryBefore(name: string, context: EntryContext): string | null {
  for (const dir of context.path.split(":")) {
    const expanded = context.home !== undefined && context.home !== "" && TILDE.test(dir);
    if (!dir.startsWith("/") && !expanded) return dir === "" ? "." : dir;
    const base = entryDirectory(dir, context);
    if (isExecutableFile(`${base}/${name}`)) return null;
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false; // Not there or not executable: the shell would not run it either.
  }
}

/** Paths of a process's own files: what they lead to depends on the process that opens them. */
const PROCESS = /^\/(proc\/[^/]+|dev\/(fd|stdin|stdout|stderr))(\/|$)/;

/** What `/dev/fd`, `/dev/std*` or `/proc/PID` followed by `rest` opens (see ProgramFile.opens). */
function opens(at: string, rest: string[]): NonNullable<ProgramFile["opens"]> {
  const parts = normalize(rest.join("/") || ".").split("/").filter((p) => p !== "" && p !== ".");
  if (parts[0] === "..") return "other"; // Out of it again: not worked out here.
  const descriptor = (fd: string | undefined) =>
    fd === "0" ? "stdin" : fd === "1" || fd === "2" ? "stream" : "other";
  if (at === "/dev/stdin") return parts.length === 0 ? "stdin" : "other";
  if (at === "/dev/stdout" || at === "/dev/stderr") return parts.length === 0 ? "stream" : "other";
  if (at === "/dev/fd") return parts.length === 1 ? descriptor(parts[0]) : "other";
  // /proc/PID (self, thread-self): fd/N, exe, cwd, root, map_files, task/TID/...
  if (parts[0] === "fd" && parts.length === 2) return descriptor(parts[1]);
  return ["fd", "exe", "cwd", "root", "map_files", "task"].includes(parts[0] ?? "")
    ? "other"
    : "data";
}

/** Links followed in one path before giving up, as the kernel's ELOOP. */
const MAX_LINKS = 40;

/**
 * Where an absolute path leads, component by component as the kernel walks
 * it: each link followed where it stands, `..` applied to the real directory
 * reached so far. A step into a process's files stops the walk.
 */
export function followPath(path: string): ProgramFile {
  const parts = path.split("/");
  let current = "/";
  let links = 0;
  while (parts.length > 0) {
    const part = parts.shift() as string;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = current === "/" ? `/${part}` : `${current}/${part}`;
    if (PROCESS.test(next)) {
      return { real: null, process: true, directory: false, opens: opens(next, parts) };
    }
    let target: string;
    try {
      if (!lstatSync(next).isSymbolicLink()) {
        current = next;
        continue;
      }
      target = readlinkSync(next);
    } catch {
      return NOT_FOUND; // Not there, or a component is not a directory.
    }
    if (++links > MAX_LINKS) return NOT_FOUND;
    parts.unshift(...target.split("/"));
    if (target.startsWith("/")) current = "/";
  }
  try {
    return { real: current, process: false, directory: statSync(current).isDirectory() };
  } catch {
    return NOT_FOUND;
  }
}
