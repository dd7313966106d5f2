/**
 * Flow control of a JSON-RPC loop: a client that sends requests but does not
 * read the answers stops being read, so termbridge holds at most about
 * {@linkcode MAX_UNSENT_BYTES} of answers (plus the ones already being made)
 * instead of every answer it was asked for.
 * @module
 */

import { setImmediate } from "node:timers";

/**
 * A loop reads no further request while more than this many bytes of its
 * answers wait to be sent (the client is not reading them).
 */
export const MAX_UNSENT_BYTES = 1024 * 1024;

/** How a loop learns what its output has not sent yet. */
export interface UnsentOutput {
  /** Bytes (or string units) written but not yet sent. */
  unsent(): number;
  /** Resolves at the next progress of the output (some of it sent, or it closed). */
  progress(): Promise<void>;
  /** Whether the output is gone (nothing more will be sent). */
  gone(): boolean;
}

/**
 * The `ready` of {@link ndJsonMessages}: holds the next request back while
 * more than `maxUnsent` of the answers are unsent. Requests that came in one
 * read are passed on one per turn of the event loop, so the answer to each one
 * made at once is queued (and counted) before the next is read. Resolves
 * false once the output is gone: requests of a client that left are not
 * answered.
 */
export function holdWhileUnsent(
  output: UnsentOutput,
  maxUnsent = MAX_UNSENT_BYTES,
): () => Promise<boolean> {
  let fresh = true;
  return async () => {
    if (!fresh) await new Promise((next) => setImmediate(next));
    while (output.unsent() > maxUnsent && !output.gone()) await output.progress();
    fresh = false;
    setImmediate(() => fresh = true);
    return !output.gone();
  };
}

/**
 * Wraps an ordered line writer whose promise resolves once the line is sent
 * (termbridge's stdout): counts what is written but not yet sent.
 */
export function countingWriter(
  write: (line: string) => Promise<void>,
): { write: (line: string) => Promise<void> } & UnsentOutput {
  let unsent = 0;
  let broken = false;
  let waiters: Array<() => void> = [];
  const wake = () => {
    const woken = waiters;
    waiters = [];
    woken.forEach((resume) => resume());
  };
  return {
    write: async (line) => {
      unsent += line.length;
      try {
        await write(line);
      } catch (error) {
        broken = true;
        throw error;
      } finally {
        unsent -= line.length;
        wake();
      }
    },
    unsent: () => unsent,
    progress: () => new Promise<void>((resume) => waiters.push(resume)),
    gone: () => broken,
  };
}
