/**
 * The open-files limit (`ulimit -n`): what both shims share to raise it and
 * to tell "too many open files" apart from other spawn failures.
 * @module
 */

import { nodeFs } from "./node_fs.ts";

/** `RLIMIT_NOFILE` on Linux. */
export const RLIMIT_NOFILE = 7;

/** The soft and hard open-files limits. */
export interface FileLimit {
  soft: number;
  hard: number;
}

/** termbridge has as many files open as its limit allows (EMFILE). */
export class TooManyOpenFilesError extends Error {
  override name = "TooManyOpenFilesError";
  readonly code = "EMFILE";
}

/** How many files this process has open (Linux: /proc/self/fd), or undefined elsewhere. */
function openFileCount(): number | undefined {
  try {
    return nodeFs().readdirSync("/proc/self/fd").length;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "EMFILE" || code === "ENFILE") return Infinity; // Not even one left to look.
    return undefined; // No /proc: cannot tell.
  }
}

/**
 * Whether `error` (from starting a process or opening a PTY) means the
 * open-files limit was reached: errno 24 in its words or code, or (for a
 * failure that does not say why) fewer than 16 descriptors left (what one PTY
 * spawn may need for a moment).
 */
export function isTooManyOpenFiles(error: unknown, limit: FileLimit | undefined): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === "EMFILE" || code === "ENFILE") return true;
  if (
    typeof message === "string" && /os error 24|errno 24|EMFILE|too many open files/i.test(message)
  ) {
    return true;
  }
  const open = openFileCount();
  return limit !== undefined && open !== undefined && open >= limit.soft - 16;
}

/** The message for a spawn that failed for lack of descriptors. */
export const TOO_MANY_OPEN_FILES = "too many open files (raise ulimit -n)";

/** Packs and unpacks `struct rlimit` (two 64-bit unsigned numbers). */
export const rlimitStruct = {
  create: () => new BigUint64Array(2),
  read: (buffer: BigUint64Array): FileLimit => ({
    soft: toNumber(buffer[0]),
    hard: toNumber(buffer[1]),
  }),
};

/** RLIM_INFINITY and other huge values as a finite JavaScript number. */
function toNumber(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}
