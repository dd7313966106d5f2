/**
 * Errors of the command language: a line that cannot be parsed or run as
 * written, and a wait the person interrupted.
 * @module
 */

/**
 * A command line that is wrong as written (bad quoting, unknown command or
 * option, a missing argument) or an expectation that failed. The message is
 * meant for the person who wrote the line and says what would be right.
 */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommandError";
  }
}

/** A wait that the person stopped (Ctrl+C in the REPL, a signal in a script). */
export class InterruptedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InterruptedError";
  }
}

/**
 * Runs `promise` until it settles or `signal` aborts; on abort rejects with an
 * {@linkcode InterruptedError} saying what was being waited for. The promise
 * itself goes on (a session's wait ends at its own timeout).
 */
export function interruptible<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  what: string,
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    promise.catch(() => {}); // Nobody waits for it any more.
    return Promise.reject(new InterruptedError(`Interrupted: stopped waiting for ${what}`));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {}); // Nobody waits for it any more.
      reject(new InterruptedError(`Interrupted: stopped waiting for ${what}`));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
