/**
 * The audit log file: JSONL, append-only (O_APPEND), each line written
 * synchronously before the caller goes on, so a termbridge killed with
 * SIGKILL loses nothing it already acted on. Rotated at a size.
 * @module
 */

import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import type { Actor } from "../base/actor.ts";
import { TerminalError } from "../base/errors.ts";
import type { AuditEvent, AuditSink } from "./types.ts";

/** Size at which the log is rotated (`audit.jsonl` becomes `audit.jsonl.1`, and so on). */
export const ROTATE_BYTES = 16 * 1024 * 1024;
/** Rotated files kept besides the current one. */
export const ROTATE_KEEP = 3;
/**
 * Most characters one field of an event keeps (a string, or the strings of an
 * array together): a longer one is cut, ends with "…", and the event says
 * `"truncated": true`. One request cannot fill the log and rotate every
 * earlier event out (a 17 MB command line did, four times over).
 */
export const MAX_FIELD_CHARS = 64 * 1024;

/** The audit log cannot be opened; nothing runs unaudited, so the mode stops. */
export class AuditError extends TerminalError {}

/** An audit log that keeps nothing (`--no-audit`). */
export const NO_AUDIT: AuditSink = { enabled: false, record() {} };

/** The audit log file. */
export class AuditLog implements AuditSink {
  readonly enabled = true;
  readonly path: string;
  readonly #rotateBytes: number;
  #fd: number;
  #size: number;

  /**
   * Opens (creating it and its directory, mode 0600) the log at `path`.
   * @throws {AuditError} when the file cannot be opened: the caller must not run unaudited
   */
  constructor(path: string, options: { rotateBytes?: number } = {}) {
    this.path = path;
    this.#rotateBytes = options.rotateBytes ?? ROTATE_BYTES;
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      this.#fd = openSync(path, "a", 0o600);
    } catch (error) {
      throw new AuditError(
        `Cannot open the audit log "${path}": ${
          (error as Error).message
        }; choose another file with --audit FILE (or audit.path), or run with --no-audit`,
      );
    }
    this.#size = fstatSync(this.#fd).size;
  }

  /** Appends one event; returns once the kernel has the line. */
  record(actor: Actor, event: AuditEvent): void {
    const line = JSON.stringify({
      time: new Date().toISOString(),
      mode: actor.mode,
      instance: process.pid,
      ...(actor.session === undefined ? {} : { session: actor.session }),
      ...(actor.terminal === undefined ? {} : { terminal: actor.terminal }),
      ...(actor.client === undefined ? {} : { client: actor.client }),
      ...capFields(event),
    }) + "\n";
    if (this.#size >= this.#rotateBytes) this.#rotate();
    const bytes = new TextEncoder().encode(line);
    let written = 0;
    while (written < bytes.length) written += writeSync(this.#fd, bytes, written);
    this.#size += bytes.length;
  }

  /** Closes the file. */
  close(): void {
    closeSync(this.#fd);
  }

  #rotate(): void {
    // Another termbridge may have rotated already: then the size on disk is small again.
    let size = 0;
    try {
      size = statSync(this.path).size;
    } catch {
      // Gone (rotated away and not yet re-created): start a new file.
    }
    closeSync(this.#fd);
    if (size >= this.#rotateBytes) {
      for (let n = ROTATE_KEEP - 1; n >= 1; n--) {
        try {
          renameSync(`${this.path}.${n}`, `${this.path}.${n + 1}`);
        } catch {
          // That generation does not exist yet.
        }
      }
      try {
        renameSync(this.path, `${this.path}.1`);
      } catch {
        // Rotated by another termbridge in between: append to the new file.
      }
    }
    this.#fd = openSync(this.path, "a", 0o600);
    this.#size = fstatSync(this.#fd).size;
  }
}

/** `event` with each field cut to {@linkcode MAX_FIELD_CHARS}; `truncated: true` when one was. */
export function capFields(event: AuditEvent): AuditEvent {
  let truncated = false;
  const cap = (value: unknown, budget: { left: number }): unknown => {
    if (typeof value === "string") {
      if (value.length <= budget.left) {
        budget.left -= value.length;
        return value;
      }
      truncated = true;
      const kept = value.slice(0, Math.max(0, budget.left));
      budget.left = 0;
      return `${kept}…`;
    }
    if (Array.isArray(value)) {
      const kept: unknown[] = [];
      for (const item of value) {
        if (budget.left <= 0) {
          truncated = true;
          kept.push(`… ${value.length - kept.length} more`);
          break;
        }
        kept.push(cap(item, budget));
      }
      return kept;
    }
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, cap(item, budget)]),
      );
    }
    return value;
  };
  const capped = Object.fromEntries(
    Object.entries(event).map(([key, value]) => [key, cap(value, { left: MAX_FIELD_CHARS })]),
  );
  return (truncated ? { ...capped, truncated: true } : event) as AuditEvent;
}
