/**
 * Waiting for a promise with a time limit, leaving no timer behind.
 * @module
 */

/**
 * Resolves with `promise`'s value, or undefined if it did not settle within
 * `ms`. The timer is always cleared.
 */
export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) =>
    timer = setTimeout(() => resolve(undefined), ms)
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
