/**
 * Waiting for a promise with a time limit, leaving no timer behind.
 * @module
 */

/**
 * The longest a timer can wait: setTimeout fires at once for more than 2^31 - 1
 * ms (about 24.8 days), so a longer wait must be refused or cut to this.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ms` as a timer can wait it: at most {@linkcode MAX_TIMER_MS}. */
export function timerMs(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS);
}

/**
 * Resolves with `promise`'s value, or undefined if it did not settle within
 * `ms`. The timer is always cleared.
 */
export async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) =>
    timer = setTimeout(() => resolve(undefined), timerMs(ms))
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
