/**
 * Ordered writes to a stream that the runtime may otherwise interleave.
 * @module
 */

/**
 * Wraps an async `write` so that writes happen one after another, in call
 * order, and each promise resolves once its own write (and so every earlier
 * one) is done. A failed write does not stop the later ones.
 */
export function orderedWriter(
  write: (data: Uint8Array | string) => Promise<void>,
): (data: Uint8Array | string) => Promise<void> {
  let tail: Promise<void> = Promise.resolve();
  return (data) => {
    const done = tail.then(() => write(data));
    tail = done.catch(() => {}); // Reported to this write's caller; the queue goes on.
    return done;
  };
}
