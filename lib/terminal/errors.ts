/**
 * The errors the terminal core throws; front ends map them to their protocols.
 * @module
 */

/** Base class of every error the terminal core throws on purpose. */
export class TerminalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A program could not be started (not found, not executable, bad working directory). */
export class SpawnError extends TerminalError {}

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
