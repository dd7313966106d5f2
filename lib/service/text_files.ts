/**
 * Reading and writing text files for an agent (ACP's `fs/*` methods), with
 * errors that say what was wrong.
 * @module
 */

import { readFile, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute } from "node:path";
import { TerminalError } from "../terminal/errors.ts";
import { InvalidRequestError } from "./terminal_service.ts";

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
 * Reads a text file, optionally from a 1-based `line` and at most `limit` lines.
 * @throws {InvalidRequestError} for a relative path or a bad line/limit
 * @throws {FileNotFoundError} when the file does not exist
 */
export async function readTextFile(
  path: string,
  options: { line?: number | null; limit?: number | null } = {},
): Promise<string> {
  checkAbsolute("read", path);
  checkLineNumber("line", options.line, 1);
  checkLineNumber("limit", options.limit, 0);
  const kind = await kindOf(path);
  if (kind === "missing") throw new FileNotFoundError(`Cannot read "${path}": no such file`);
  if (kind !== "file") {
    throw new InvalidRequestError(`Cannot read "${path}": it is a ${kind}, not a file`);
  }
  const content = await readFile(path, "utf8");
  if (options.line == null && options.limit == null) return content;
  const lines = content.split(/(?<=\n)/);
  const start = (options.line ?? 1) - 1;
  const end = options.limit == null ? lines.length : start + options.limit;
  return lines.slice(start, end).join("");
}

/**
 * Writes a text file, replacing it if it exists.
 * @throws {InvalidRequestError} for a relative path or a path that is a directory
 * @throws {FileNotFoundError} when the directory does not exist
 */
export async function writeTextFile(path: string, content: string): Promise<void> {
  checkAbsolute("write", path);
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
