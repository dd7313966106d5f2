/**
 * A session's output appended to a file as it comes, like tmux's
 * `pipe-pane`: the plain text `read` prints (escape sequences interpreted
 * away), from the moment the pipe starts until it is stopped.
 * @module
 */

import { closeSync, writeSync } from "node:fs";
import { isAbsolute } from "node:path";
import { openWriteSync } from "../service/checked_open.ts";
import { fileErrorFrom } from "../service/file_errors.ts";
import type { FileAccess } from "../service/text_files.ts";
import { SessionUsageError } from "./errors.ts";

/** Where the output comes from: new text since a position, and a change notification. */
export interface PipeSource {
  /** The plain text from `from` on, and the position after it. */
  outputText(from: number): { text: string; end: number };
  /** The position the output has reached. */
  readonly outputEnd: number;
  /** Calls `listener` on every change; returns the function that stops it. */
  onChange(listener: () => void): () => void;
}

/** Appends a session's output to one file until closed. */
export class OutputPipe {
  readonly path: string;
  readonly #fd: number;
  readonly #stop: () => void;
  #offset: number;
  #closed = false;

  /**
   * Opens `path` for appending (created 0600) and starts copying the output
   * that comes from now on. With `access`, the guard checks the path as it
   * checks `fs/write_text_file`'s (recorded in the audit log). The file is
   * opened without blocking and must be a regular file.
   * @throws {SessionUsageError} for a relative path
   * @throws {PolicyDeniedError} when the guard refuses the path
   * @throws {FileError} when the file cannot be opened (a directory, a FIFO, permission denied, ...)
   */
  constructor(requested: string, source: PipeSource, access?: FileAccess) {
    if (!isAbsolute(requested)) {
      throw new SessionUsageError(
        `Cannot pipe to ${JSON.stringify(requested)}: give an absolute path`,
      );
    }
    const path = access === undefined
      ? requested
      : access.guard.checkWrite(requested, null, access, access.actor);
    this.path = path;
    try {
      this.#fd = openWriteSync("pipe to", path, {
        append: true,
        checked: access !== undefined && access.guard.policy !== null,
        check: access,
      });
    } catch (error) {
      throw fileErrorFrom(error, "pipe to", path);
    }
    this.#offset = source.outputEnd;
    this.#stop = source.onChange(() => {
      const { text, end } = source.outputText(this.#offset);
      this.#offset = end;
      if (text === "") return;
      try {
        writeSync(this.#fd, text);
      } catch {
        this.close(); // A file that cannot take more (disk full) ends the pipe, not the session.
      }
    });
  }

  /** Stops copying and closes the file. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop();
    closeSync(this.#fd);
  }
}
