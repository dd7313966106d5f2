/**
 * File errors that keep the operating system's meaning: a missing file,
 * permission denied, a directory where a file was expected, a name too long,
 * too many open files, a file too large to answer with. Each front end maps
 * the `problem` to its own code.
 * @module
 */

import { TerminalError } from "../terminal/errors.ts";

/** What went wrong with a file, in the operating system's terms. */
export type FileProblem =
  | "not-found"
  | "permission-denied"
  | "wrong-kind"
  | "name-too-long"
  | "too-many-open-files"
  | "too-large";

/** A file operation that failed; `problem` says how. */
export class FileError extends TerminalError {
  readonly problem: FileProblem;
  constructor(problem: FileProblem, message: string) {
    super(message);
    this.problem = problem;
  }
}

/** The file (or its directory) does not exist. */
export class FileNotFoundError extends FileError {
  constructor(message: string) {
    super("not-found", message);
  }
}

/** What each errno means, and the words that say it. */
const ERRNO: Record<string, [FileProblem, string]> = {
  ENOENT: ["not-found", "no such file or directory"],
  EACCES: ["permission-denied", "permission denied"],
  EPERM: ["permission-denied", "operation not permitted"],
  EROFS: ["permission-denied", "the file system is read-only"],
  EISDIR: ["wrong-kind", "it is a directory, not a file"],
  ENOTDIR: ["wrong-kind", "a component of the path is not a directory"],
  ENXIO: ["wrong-kind", "it is a FIFO or a device with nothing at the other end, not a file"],
  ENAMETOOLONG: [
    "name-too-long",
    "the name is too long (at most 255 bytes a name and 4095 a path)",
  ],
  ELOOP: ["name-too-long", "too many symbolic links in the path"],
  EMFILE: ["too-many-open-files", "too many open files (raise ulimit -n)"],
  ENFILE: ["too-many-open-files", "too many open files in the system"],
};

/** The errno name of a Node-style (or Deno/Bun) system error, if any. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  const name = (error as { name?: unknown } | null)?.name; // Deno.errors.* carry the meaning in their name.
  if (name === "NotFound") return "ENOENT";
  if (name === "PermissionDenied") return "EACCES";
  if (name === "IsADirectory") return "EISDIR";
  if (name === "NotADirectory") return "ENOTDIR";
  return undefined;
}

/**
 * The operating system's error as a {@link FileError} whose message names the
 * action and the path, e.g. `Cannot read "/x": permission denied`; anything
 * that is not a known system error is returned unchanged.
 */
export function fileErrorFrom(error: unknown, action: string, path: string): unknown {
  if (error instanceof FileError) return error;
  const known = ERRNO[errnoOf(error) ?? ""];
  if (known === undefined) return error;
  const [problem, words] = known;
  const message = `Cannot ${action} ${JSON.stringify(path)}: ${words}`;
  return problem === "not-found" ? new FileNotFoundError(message) : new FileError(problem, message);
}
