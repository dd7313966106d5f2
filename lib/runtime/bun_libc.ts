/// <reference types="bun-types" />
/**
 * The open-files limit for Bun, through libc's getrlimit/setrlimit (bun:ffi).
 * @module
 */

import { dlopen, FFIType } from "bun:ffi";
import { type FileLimit, RLIMIT_NOFILE, rlimitStruct } from "./file_limit.ts";

type Libc = {
  getrlimit: (resource: number, limits: BigUint64Array) => number;
  setrlimit: (resource: number, limits: BigUint64Array) => number;
};

let libc: Libc | null | undefined;

/** libc's rlimit calls, loaded on first use; null where FFI or libc is unavailable. */
function load(): Libc | null {
  if (libc !== undefined) return libc;
  try {
    const rlimit = { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 } as const;
    libc = dlopen("libc.so.6", { getrlimit: rlimit, setrlimit: rlimit }).symbols as Libc;
  } catch {
    libc = null; // Not glibc Linux: the limit stays as it is.
  }
  return libc;
}

/** The open-files limits (raising the soft one to the hard one first when `raise`). */
export function fileLimit(raise = false): FileLimit | undefined {
  const c = load();
  if (c === null) return undefined;
  const limits = rlimitStruct.create();
  if (c.getrlimit(RLIMIT_NOFILE, limits) !== 0) return undefined;
  if (raise && limits[0] < limits[1]) {
    limits[0] = limits[1];
    c.setrlimit(RLIMIT_NOFILE, limits);
    c.getrlimit(RLIMIT_NOFILE, limits);
  }
  return rlimitStruct.read(limits);
}
