/**
 * Reading and writing text files for an agent (ACP's `fs/*` methods), with
 * errors that say what was wrong.
 * @module
 */

import { Buffer } from "node:buffer";
import { readFile, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute } from "node:path";
import type { Guard } from "../safety/guard.ts";
import type { Actor } from "../safety/types.ts";
import { TerminalError } from "../terminal/errors.ts";
import { InvalidRequestError } from "./terminal_service.ts";

/** Who accesses a file, for the guard: the `read`/`write` globs expand `${cwd}` to `cwd`. */
export interface FileAccess {
  guard: Guard;
  actor: Actor;
  cwd: string;
  env: Record<string, string>;
}

/** The file (or its directory) does not exist. */
export class FileNotFoundError extends TerminalError {}

function checkAbsolute(action: string, path: string): void {
  if (typeof path !== "string" || !isAbsolute(path)) {
    throw new InvalidRequestError(
      `Cannot ${action} ${JSON.stringify(path)}: the path must be absolute`,
    );
  }
}

function checkLineNumber(name: string, value: number | null | undefined, min: number): void {
  if (value === undefined || value === null) return;
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidRequestError(
      `Cannot use ${name} ${JSON.stringify(value)}: expected a whole number >= ${min}`,
    );
  }
}

async function kindOf(path: string): Promise<"file" | "directory" | "other" | "missing"> {
  try {
    const info = await stat(path);
    return info.isFile() ? "file" : info.isDirectory() ? "directory" : "other";
  } catch {
    return "missing"; // stat fails for missing paths and unreadable parents alike.
  }
}

/**
 * Reads a text file, optionally from a 1-based `line` and at most `limit`
 * lines; with `access`, only where the policy's `read` globs allow, and
 * recorded in the audit log before the content is returned.
 * @throws {InvalidRequestError} for a relative path or a bad line/limit
 * @throws {PolicyDeniedError} when no `read` glob allows the path
 * @throws {FileNotFoundError} when the file does not exist
 */
export async function readTextFile(
  requested: string,
  options: { line?: number | null; limit?: number | null; access?: FileAccess } = {},
): Promise<string> {
  checkAbsolute("read", requested);
  checkLineNumber("line", options.line, 1);
  checkLineNumber("limit", options.limit, 0);
  const { access } = options;
  const path = access ? access.guard.checkRead(requested, access, access.actor) : requested;
  const content = await readWhole(path);
  access?.guard.recordRead(path, Buffer.byteLength(content), access.actor);
  if (options.line == null && options.limit == null) return content;
  const lines = content.split(/(?<=\n)/);
  const start = (options.line ?? 1) - 1;
  const end = options.limit == null ? lines.length : start + options.limit;
  return lines.slice(start, end).join("");
}

async function readWhole(path: string): Promise<string> {
  const kind = await kindOf(path);
  if (kind === "missing") throw new FileNotFoundError(`Cannot read "${path}": no such file`);
  if (kind !== "file") {
    throw new InvalidRequestError(`Cannot read "${path}": it is a ${kind}, not a file`);
  }
  return await readFile(path, "utf8");
}

/**
 * Writes a text file, replacing it if it exists; with `access`, only where
 * the policy's `write` globs allow, recorded in the audit log first.
 * @throws {InvalidRequestError} for a relative path or a path that is a directory
 * @throws {PolicyDeniedError} when no `write` glob allows the path
 * @throws {FileNotFoundError} when the directory does not exist
 */
export async function writeTextFile(
  requested: string,
  content: string,
  access?: FileAccess,
): Promise<void> {
  checkAbsolute("write", requested);
  const path = access
    ? access.guard.checkWrite(requested, Buffer.byteLength(content), access, access.actor)
    : requested;
  const directory = dirname(path);
  const parent = await kindOf(directory);
  if (parent === "missing") {
    throw new FileNotFoundError(`Cannot write "${path}": directory "${directory}" does not exist`);
  }
  if (parent !== "directory") {
    throw new InvalidRequestError(`Cannot write "${path}": "${directory}" is not a directory`);
  }
  if ((await kindOf(path)) === "directory") {
    throw new InvalidRequestError(`Cannot write "${path}": it is a directory`);
  }
  await writeFile(path, content, "utf8");
}
