/**
 * The limits that are not setrlimit's: how many terminals run at once, and
 * how long a command may run.
 * @module
 */

import { TerminalError } from "../base/errors.ts";
import type { LimitHit } from "./types.ts";

/** A request was refused because a limit was reached; the message names the limit. */
export class LimitError extends TerminalError {}

/**
 * Places for running terminals and sessions (`limits.terminals`), shared by
 * whatever starts them in one termbridge process.
 */
export class TerminalBudget {
  readonly #max: number;
  #running = 0;

  /** @param max most terminals and sessions at once; 0 or Infinity for no limit */
  constructor(max: number) {
    this.#max = max > 0 ? max : Infinity;
  }

  /** How many places are taken. */
  get running(): number {
    return this.#running;
  }

  /**
   * Takes a place for `what` ("the command", "session \"main\"").
   * @returns the function that gives the place back (calling it twice is harmless)
   * @throws {LimitError} when every place is taken
   */
  take(what: string): () => void {
    if (this.#running >= this.#max) {
      throw new LimitError(
        `Cannot start ${what}: ${this.#running} terminals and sessions are running, the most ` +
          `limits.terminals (${this.#max}) allows; release or close one first`,
      );
    }
    this.#running++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#running--;
    };
  }
}

/** The words for a command killed by `limits.commandSeconds`. */
export function commandSecondsHit(seconds: number): LimitHit {
  return {
    limit: "limits.commandSeconds",
    message: `killed: ran longer than limits.commandSeconds (${seconds} s)`,
  };
}

/** The words for a session closed by the idle timeout. */
export function idleHit(name: string, seconds: number): LimitHit {
  return {
    limit: "idleTimeout",
    message: `session "${name}" closed: unused for longer than idleTimeout (${seconds} s)`,
  };
}
