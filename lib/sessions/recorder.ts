/**
 * Recording a terminal as an asciicast v2 file (what `asciinema play` reads):
 * a JSON header line, then one `[seconds, code, data]` line per event.
 * @module
 */

import { closeSync, fchmodSync, openSync, readSync, statSync, writeSync } from "node:fs";
import { isAbsolute } from "node:path";
import { FileError, fileErrorFrom } from "../service/file_errors.ts";
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

/** Writes one asciicast v2 file; every event is written as it happens. */
export class CastRecorder {
  readonly path: string;
  readonly #fd: number;
  readonly #start = performance.now();
  readonly #decoder = new TextDecoder();
  #closed = false;

  /**
   * Creates `path` and writes the header. An existing file is replaced only
   * when it is empty or an asciicast recording, or with `overwrite`.
   * @throws {SessionUsageError} for a relative path
   * @throws {FileError} for a file that is not a recording (without
   * `overwrite`), a directory, and system errors (permission denied, ...)
   */
  constructor(path: string, header: CastHeader, options: { overwrite?: boolean } = {}) {
    checkRecordTarget(path, options.overwrite ?? false);
    this.path = path;
    try {
      // Recordings hold what a session showed (and maybe what was typed): the user's alone.
      this.#fd = openSync(path, "w", 0o600);
      fchmodSync(this.#fd, 0o600); // A recording it replaces may have been readable by others.
    } catch (error) {
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

/** The first bytes of a file, enough for an asciicast header. */
function head(path: string): string {
  const fd = openSync(path, "r");
  try {
    const bytes = new Uint8Array(4096);
    return new TextDecoder().decode(bytes.subarray(0, readSync(fd, bytes)));
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
 * Refuses a relative path, a directory, and an existing file that is not a
 * recording (unless `overwrite`), before anything is started.
 * @throws {SessionUsageError} for a relative path
 * @throws {FileError} for the others
 */
export function checkRecordTarget(path: string, overwrite: boolean): void {
  if (!isAbsolute(path)) {
    throw new SessionUsageError(
      `Cannot record to ${JSON.stringify(path)}: the path must be absolute ` +
        `(the REPL and scripts resolve a relative one against their working directory)`,
    );
  }
  let existing: ReturnType<typeof statSync> | undefined;
  try {
    existing = statSync(path, { throwIfNoEntry: false });
    if (existing?.isDirectory()) {
      throw new FileError("wrong-kind", `Cannot record to "${path}": it is a directory`);
    }
    if (existing === undefined || overwrite || existing.size === 0) return;
    if (!existing.isFile() || !isAsciicast(head(path))) {
      throw new FileError(
        "wrong-kind",
        `Cannot record to "${path}": the file exists and is not an asciicast recording; ` +
          `choose another file, or ask to overwrite it (serve: overwrite: true; repl, run: record --overwrite)`,
      );
    }
  } catch (error) {
    throw fileErrorFrom(error, "record to", path);
  }
}
