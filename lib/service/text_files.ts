/**
 * Reading and writing text files for an agent (ACP's `fs/*` methods), with
 * errors that say what was wrong. Reads stream: only the lines asked for are
 * read, and no answer is larger than a ceiling.
 * @module
 */

import { Buffer } from "node:buffer";
import { type FileHandle, stat } from "node:fs/promises";
import { dirname, isAbsolute } from "node:path";
import type { Guard } from "../safety/guard.ts";
import type { Actor } from "../safety/types.ts";
import { openChecked, READ_FLAGS, WRITE_FLAGS } from "./checked_open.ts";
import { FileError, fileErrorFrom, FileNotFoundError } from "./file_errors.ts";
import { InvalidRequestError } from "./terminal_service.ts";

export { FileError, FileNotFoundError };

/** Who accesses a file, for the guard: the `read`/`write` globs expand `${cwd}` to `cwd`. */
export interface FileAccess {
  guard: Guard;
  actor: Actor;
  cwd: string;
  env: Record<string, string>;
  /** The sandbox's writable directories, or null when no sandbox restricts writes. */
  writeRoots?: string[] | null;
}

/** Largest answer of a read by default, in bytes (16 MiB, the output ceiling of a terminal). */
export const DEFAULT_MAX_READ_BYTES = 16 * 1024 * 1024;

/** Bytes read at a time. */
const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

function checkAbsolute(action: string, path: string): void {
  if (typeof path !== "string" || !isAbsolute(path)) {
    throw new InvalidRequestError(
      `Cannot ${action} ${JSON.stringify(path)}: the path must be absolute`,
    );
  }
  if (path.includes("\0")) {
    throw new InvalidRequestError(
      `Cannot ${action} ${JSON.stringify(path)}: the path contains a NUL character`,
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

/** What to read: a 1-based first `line`, at most `limit` lines, at most `maxBytes` in all. */
export interface ReadOptions {
  line?: number | null;
  limit?: number | null;
  /** Who reads: the guard checks the policy's `read` globs and records the read in the audit log. */
  access?: FileAccess;
  /** Ceiling of the answer in bytes (default {@link DEFAULT_MAX_READ_BYTES}). */
  maxBytes?: number;
}

/**
 * Reads a text file, optionally from a 1-based `line` and at most `limit`
 * lines. Streams: reading line 1 of a huge file reads one chunk. With
 * `access`, only where the policy's `read` globs allow, and recorded in the
 * audit log before the content is returned.
 * @throws {InvalidRequestError} for a relative path or a bad line/limit
 * @throws {PolicyDeniedError} when no `read` glob allows the path
 * @throws {FileNotFoundError} when the file does not exist
 * @throws {FileError} for other system errors (permission denied, a directory,
 * a name too long, too many open files) and for an answer above `maxBytes`
 */
export async function readTextFile(
  requested: string,
  options: ReadOptions = {},
): Promise<string> {
  checkAbsolute("read", requested);
  checkLineNumber("line", options.line, 1);
  checkLineNumber("limit", options.limit, 0);
  const { access } = options;
  const path = access ? access.guard.checkRead(requested, access, access.actor) : requested;
  const content = await readChecked(path, options, isChecked(access));
  access?.guard.recordRead(path, Buffer.byteLength(content), access.actor);
  return content;
}

/** The read itself, on a path the guard allowed. */
async function readChecked(path: string, options: ReadOptions, checked: boolean): Promise<string> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  let file: FileHandle;
  try {
    const info = await stat(path); // Before opening: opening a FIFO would block.
    if (!info.isFile()) {
      const kind = info.isDirectory() ? "directory" : "special file";
      throw new FileError("wrong-kind", `Cannot read "${path}": it is a ${kind}, not a file`);
    }
    file = await openChecked("read", path, READ_FLAGS, checked);
  } catch (error) {
    throw fileErrorFrom(error, "read", path);
  }
  try {
    const info = await file.stat();
    const whole = options.line == null && options.limit == null;
    if (whole && info.size > maxBytes) {
      throw new FileError(
        "too-large",
        `Cannot read "${path}" whole: it has ${info.size} bytes, more than the ${maxBytes} allowed; ` +
          `read it in parts with line and limit (e.g. line 1, limit 1000)`,
      );
    }
    const bytes = await readLines(file, {
      first: options.line ?? 1,
      count: options.limit ?? Infinity,
      maxBytes,
      path,
    });
    return new TextDecoder().decode(bytes);
  } catch (error) {
    throw fileErrorFrom(error, "read", path);
  } finally {
    await file.close();
  }
}

/** The bytes of lines `first` .. `first + count - 1` (1-based, with their newlines), streamed. */
async function readLines(
  file: FileHandle,
  { first, count, maxBytes, path }: {
    first: number;
    count: number;
    maxBytes: number;
    path: string;
  },
): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let kept = 0;
  let line = 1; // The line the next byte belongs to.
  const last = first + count - 1;
  const buffer = new Uint8Array(CHUNK_BYTES);
  while (count > 0) {
    const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, null);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    let start = 0;
    let end = bytesRead;
    let done = false;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) {
      line++;
      if (line === first) start = at + 1; // The wanted lines start after this newline.
      if (line > last) {
        end = at + 1;
        done = true;
        break;
      }
    }
    if (line < first) continue; // Every byte of this chunk is before the wanted lines.
    kept += end - start;
    if (kept > maxBytes) {
      throw new FileError(
        "too-large",
        `Cannot read "${path}" from line ${first}: the lines asked for are more than the ${maxBytes} bytes allowed; ` +
          `ask for fewer with limit`,
      );
    }
    if (end > start) parts.push(chunk.slice(start, end));
    if (done) break;
  }
  return Buffer.concat(parts, kept);
}

async function kindOf(path: string): Promise<"file" | "directory" | "other" | "missing"> {
  try {
    const info = await stat(path);
    return info.isFile() ? "file" : info.isDirectory() ? "directory" : "other";
  } catch (error) {
    const mapped = fileErrorFrom(error, "write", path);
    if (mapped instanceof FileNotFoundError) return "missing";
    throw mapped; // Permission denied, a name too long...: said as such.
  }
}

/**
 * Writes a text file, replacing it if it exists; with `access`, only where
 * the policy's `write` globs allow, recorded in the audit log first.
 * @throws {InvalidRequestError} for a relative path
 * @throws {PolicyDeniedError} when no `write` glob allows the path
 * @throws {FileNotFoundError} when the directory does not exist
 * @throws {FileError} for a path that is a directory and other system errors
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
    throw new FileError("wrong-kind", `Cannot write "${path}": "${directory}" is not a directory`);
  }
  const kind = await kindOf(path);
  if (kind === "directory") {
    throw new FileError("wrong-kind", `Cannot write "${path}": it is a directory`);
  }
  if (kind === "other") {
    // Opening a FIFO would wait for a reader, a device is no text file: neither is written.
    throw new FileError(
      "wrong-kind",
      `Cannot write "${path}": it is a special file (a FIFO, socket or device), not a file`,
    );
  }
  let file: FileHandle;
  try {
    file = await openChecked("write", path, WRITE_FLAGS, isChecked(access), access);
  } catch (error) {
    throw fileErrorFrom(error, "write", path);
  }
  try {
    await file.truncate(0);
    await file.writeFile(content, "utf8");
  } catch (error) {
    throw fileErrorFrom(error, "write", path);
  } finally {
    await file.close();
  }
}

/** Whether a policy checked (and resolved) the path, so it must be opened as checked. */
function isChecked(access: FileAccess | undefined): boolean {
  return access !== undefined && access.guard.policy !== null;
}
