/**
 * The errors the terminal core throws; front ends map them to their protocols.
 * @module
 */

import { TerminalError } from "../base/errors.ts";

export { SpawnError, TerminalError } from "../base/errors.ts";

/** termbridge has as many files open as `ulimit -n` allows: no terminal can be started now. */
export class OpenFilesExhaustedError extends TerminalError {}

/** An operation needs a live terminal but this one was disposed (or its program ended). */
export class TerminalDisposedError extends TerminalError {
  constructor(detail?: string) {
    super(`Terminal session has been disposed${detail ? `: ${detail}` : ""}`);
  }
}

/** A wait ran out of time; carries the screen it was looking at. */
export class WaitTimeoutError extends TerminalError {
  /** What the screen showed when the wait gave up. */
  readonly screen: string;

  constructor(what: string, timeoutMs: number, screen: string) {
    super(`Timed out after ${timeoutMs} ms waiting for ${what}; the screen shows:\n${screen}`);
    this.screen = screen;
  }
}
