/**
 * Recording a terminal as an asciicast v2 file (what `asciinema play` reads):
 * a JSON header line, then one `[seconds, code, data]` line per event.
 * @module
 */

import {
  closeSync,
  constants,
  fchmodSync,
  ftruncateSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from "node:fs";
import { isAbsolute } from "node:path";
import { kindWords, openWriteSync } from "../service/checked_open.ts";
import { FileError, fileErrorFrom } from "../service/file_errors.ts";
import type { FileAccess } from "../service/text_files.ts";
import { SessionUsageError } from "./errors.ts";

/** What an asciicast header records about the terminal. */
export interface CastHeader {
  cols: number;
  rows: number;
  title?: string;
  env?: Record<string, string>;
  /** Longest pause a player shows, seconds (`idle_time_limit`: longer ones are shortened). */
  idleTimeLimit?: number;
}

/** The asciicast v2 header line's object for `header`, stamped now. */
export function castHeader(header: CastHeader): Record<string, unknown> {
  const head: Record<string, unknown> = {
    version: 2,
    width: header.cols,
    height: header.rows,
    timestamp: Math.floor(Date.now() / 1000),
  };
  if (header.title) head.title = header.title;
  if (header.env) head.env = header.env;
  if (header.idleTimeLimit !== undefined) head.idle_time_limit = header.idleTimeLimit;
  return head;
}

/**
 * Who records, for the guard: a recording is a write termbridge makes for a
 * request, checked as `fs/write_text_file`'s are (the `write` globs, the
 * sandbox's writable directories, termbridge's own files).
 */
export type RecordAccess = FileAccess;

/** A recording's file as {@linkcode checkRecordTarget} allowed it. */
export interface RecordTarget {
  /** The file to open: symlinks resolved when a policy checked it. */
  path: string;
  /** Whether a policy checked (and resolved) the path: it is opened as checked. */
  checked: boolean;
  /** The guard that checked it (it checks the opened file too). */
  access?: RecordAccess;
}

/** Writes one asciicast v2 file; every event is written as it happens. */
export class CastRecorder {
  readonly path: string;
  readonly #fd: number;
  readonly #start = performance.now();
  readonly #decoder = new TextDecoder();
  #closed = false;

  /**
   * Creates the file of `target` (from {@linkcode checkRecordTarget}) and
   * writes the header, replacing what the file held. The file is opened
   * without blocking and must be a regular file (a FIFO or a device is refused).
   * @throws {FileError} for a directory or a special file, and system errors (permission denied, ...)
   * @throws {PolicyDeniedError} when the file opened is not the one checked
   */
  constructor(target: RecordTarget, header: CastHeader) {
    const { path } = target;
    this.path = path;
    try {
      // Recordings hold what a session showed (and maybe what was typed): the user's alone.
      this.#fd = openWriteSync("record to", path, {
        checked: target.checked,
        check: target.access,
      });
    } catch (error) {
      throw fileErrorFrom(error, "record to", path);
    }
    try {
      ftruncateSync(this.#fd);
      fchmodSync(this.#fd, 0o600); // A recording it replaces may have been readable by others.
    } catch (error) {
      closeSync(this.#fd);
      throw fileErrorFrom(error, "record to", path);
    }
    this.#line(castHeader(header));
  }

  /** Output bytes of the program (decoded as a stream: split characters survive). */
  output(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes, { stream: true });
    if (text !== "") this.#event("o", text);
  }

  /** Input sent to the program. */
  input(text: string): void {
    this.#event("i", text);
  }

  /** A change of size. */
  resize(cols: number, rows: number): void {
    this.#event("r", `${cols}x${rows}`);
  }

  /** Finishes the file. */
  close(): void {
    if (this.#closed) return;
    const rest = this.#decoder.decode();
    if (rest !== "") this.#event("o", rest);
    this.#closed = true;
    closeSync(this.#fd);
  }

  #event(code: "o" | "i" | "r", data: string): void {
    if (this.#closed) return;
    const seconds = Math.round(performance.now() - this.#start) / 1000;
    this.#line([seconds, code, data]);
  }

  #line(value: unknown): void {
    writeSync(this.#fd, JSON.stringify(value) + "\n");
  }
}

/** The first bytes of a regular file, enough for an asciicast header (never blocks). */
function head(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const bytes = new Uint8Array(4096);
    return new TextDecoder().decode(bytes.subarray(0, readSync(fd, bytes)));
  } catch {
    return ""; // Not readable as a file (swapped for a FIFO since): not a recording.
  } finally {
    closeSync(fd);
  }
}

/** Whether `text` starts with an asciicast header line (`{"version": 2 or 3, ...}`). */
export function isAsciicast(text: string): boolean {
  try {
    const header = JSON.parse(text.split("\n", 1)[0]);
    return typeof header === "object" && header !== null && [1, 2, 3].includes(header.version);
  } catch {
    return false; // Not JSON: not a recording.
  }
}

/**
 * Checks a recording's file before anything is started: refuses a relative
 * path; with `access`, a path the guard refuses for writing (recorded in
 * the audit log, as `fs/write_text_file`'s writes are; for a `configured`
 * file, one the user's configuration chose, only termbridge's own files
 * are refused, not what the `write` globs leave out); a directory, a FIFO,
 * socket or device; and an existing file that is not a recording (unless
 * `overwrite`).
 * @returns the file to record to, for {@linkcode CastRecorder}
 * @throws {SessionUsageError} for a relative path
 * @throws {PolicyDeniedError} when the guard refuses the path
 * @throws {FileError} for the others
 */
export function checkRecordTarget(
  requested: string,
  overwrite: boolean,
  access?: RecordAccess,
  configured = false,
): RecordTarget {
  if (!isAbsolute(requested)) {
    throw new SessionUsageError(
      `Cannot record to ${JSON.stringify(requested)}: the path must be absolute ` +
        `(the REPL and scripts resolve a relative one against their working directory)`,
    );
  }
  const path = access === undefined
    ? requested
    : configured
    ? access.guard.checkConfiguredWrite(requested, access, access.actor)
    : access.guard.checkWrite(requested, null, access, access.actor);
  try {
    const existing = statSync(path, { throwIfNoEntry: false });
    if (existing?.isDirectory()) {
      throw new FileError("wrong-kind", `Cannot record to "${path}": it is a directory`);
    }
    if (existing !== undefined && !existing.isFile()) {
      // Opening a FIFO for writing waits for a reader: termbridge would stop answering.
      throw new FileError(
        "wrong-kind",
        `Cannot record to "${path}": it is ${kindWords(existing)}, not a file`,
      );
    }
    const checked = access !== undefined && (configured || access.guard.policy !== null);
    const target = { path, checked, ...(access === undefined ? {} : { access }) };
    if (existing === undefined || overwrite || existing.size === 0) return target;
    if (!isAsciicast(head(path))) {
      throw new FileError(
        "wrong-kind",
        `Cannot record to "${path}": the file exists and is not an asciicast recording; ` +
          `choose another file, or ask to overwrite it (serve: overwrite: true; repl, run: record --overwrite)`,
      );
    }
    return target;
  } catch (error) {
    throw fileErrorFrom(error, "record to", path);
  }
}
