/**
 * Which file a program word runs: looked up in PATH (or taken as a path), then
 * followed through symlinks, so that a link named `x` pointing at `rm` is
 * known as `rm`. Answers are kept for a second: a line's checks repeat names.
 * @module
 */

import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import type { ProgramNames } from "./rules.ts";

/** Shell builtins and keywords: the shell runs these itself, never a file from PATH. */
const BUILTINS = new Set([
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
  "popd",
  "printf",
  "pushd",
  "pwd",
  "read",
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

/** Whether the shell runs `word` itself (a builtin or keyword), never a file. */
export function isBuiltin(word: string): boolean {
  return BUILTINS.has(word);
}

const TTL_MS = 1000;
const cache = new Map<string, { at: number; real: string | null }>();

/**
 * The names and paths a program word is known by.
 * @param word the program word as the shell passes it (`rm`, `/bin/rm`, `./x`)
 */
export function programNames(word: string, context: { cwd: string; path: string }): ProgramNames {
  const names = [basename(word) || word];
  const paths: string[] = [];
  if (word.includes("/")) {
    paths.push(isAbsolute(word) ? word : resolve(context.cwd, word));
    if (!isAbsolute(word)) paths.push(word); // A rule may name it as written (`./deploy.sh`).
  }
  const real = BUILTINS.has(word) ? null : realFile(word, context);
  if (real !== null) {
    const realName = basename(real);
    if (!names.includes(realName)) names.push(realName);
    if (!paths.includes(real)) paths.push(real);
  }
  return { names, paths, real };
}

/** The real file `word` runs, or null when it is not found. */
export function realFile(word: string, context: { cwd: string; path: string }): string | null {
  const key = `${context.path}\0${context.cwd}\0${word}`;
  const now = Date.now();
  const hit = cache.get(key);
  if (hit !== undefined && now - hit.at < TTL_MS) return hit.real;
  const real = lookUp(word, context);
  if (cache.size > 1000) cache.clear();
  cache.set(key, { at: now, real });
  return real;
}

function lookUp(word: string, context: { cwd: string; path: string }): string | null {
  if (word === "") return null;
  if (word.includes("/")) return real(resolve(context.cwd, word));
  for (const dir of context.path.split(":")) {
    // An empty PATH entry means the current directory.
    const candidate = join(dir === "" ? context.cwd : resolve(context.cwd, dir), word);
    if (isExecutableFile(candidate)) return real(candidate);
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

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null; // A dangling link or no such file: nothing runs under that name.
  }
}
