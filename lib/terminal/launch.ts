/**
 * Checking what a terminal is about to start, so that a missing program or
 * directory is a clear error on every runtime instead of a cryptic one.
 * @module
 */

import { accessSync, constants, existsSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { SpawnError } from "./errors.ts";

function isExecutableFile(path: string): boolean {
  // Most PATH entries lack the program: existsSync says so without the cost
  // of a thrown error (about 10x on Deno).
  if (!existsSync(path)) return false;
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false; // Missing or not executable: the caller tries the next candidate.
  }
}

/**
 * Returns the absolute path of `program`, looked up on `PATH` unless it
 * contains a slash.
 * @throws {SpawnError} when there is no such executable
 */
export function resolveProgram(program: string, env: Record<string, string>, cwd: string): string {
  if (program === "") throw new SpawnError("Cannot start a program: the command is empty");
  if (program.includes("/")) {
    const path = isAbsolute(program) ? program : join(cwd, program);
    if (isExecutableFile(path)) return path;
    throw new SpawnError(`Cannot start "${program}": no executable file at "${path}"`);
  }
  for (const dir of (env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(delimiter)) {
    if (dir === "") continue;
    const path = join(dir, program);
    if (isExecutableFile(path)) return path;
  }
  throw new SpawnError(`Cannot start "${program}": command not found on PATH`);
}

/**
 * Checks that `cwd` is an existing directory given as an absolute path.
 * @throws {SpawnError} otherwise
 */
export function checkWorkingDirectory(cwd: string): void {
  if (!isAbsolute(cwd)) {
    throw new SpawnError(`Cannot use working directory "${cwd}": the path must be absolute`);
  }
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    throw new SpawnError(`Cannot use working directory "${cwd}": it does not exist`);
  }
  if (!isDirectory) {
    throw new SpawnError(`Cannot use working directory "${cwd}": it is not a directory`);
  }
}
