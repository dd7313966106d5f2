/// <reference types="bun-types" />
/**
 * libc for Bun, through bun:ffi: the `Libc` of `libc.ts`, loaded on first
 * use (a short-lived command that opens no terminal never pays for it).
 * bun:ffi calls run on the JavaScript thread; the one blocking call, poll(),
 * is made by the PTY reader's worker (`bun_pty_reader.ts`).
 * @module
 */

import { dlopen, FFIType, read } from "bun:ffi";
import type { Libc } from "./libc.ts";

const { i32, u32, u64, i64, ptr } = FFIType;

const SYMBOLS = {
  open: { args: [ptr, i32, i32], returns: i32 },
  grantpt: { args: [i32], returns: i32 },
  unlockpt: { args: [i32], returns: i32 },
  ptsname_r: { args: [i32, ptr, u64], returns: i32 },
  ioctl: { args: [i32, u64, ptr], returns: i32 },
  read: { args: [i32, ptr, u64], returns: i64 },
  write: { args: [i32, ptr, u64], returns: i64 },
  close: { args: [i32], returns: i32 },
  eventfd: { args: [u32, i32], returns: i32 },
  __errno_location: { args: [], returns: ptr },
  getrlimit: { args: [i32, ptr], returns: i32 },
  setrlimit: { args: [i32, ptr], returns: i32 },
} as const;

type Symbols = ReturnType<typeof dlopen<typeof SYMBOLS>>["symbols"];

let loaded: Libc | undefined;

/**
 * libc through bun:ffi, loaded on first call.
 * @throws {Error} where libc.so.6 cannot be loaded (not glibc Linux)
 */
export function loadLibc(): Libc {
  if (loaded !== undefined) return loaded;
  const c: Symbols = dlopen("libc.so.6", SYMBOLS).symbols;
  loaded = {
    open: (path, flags, mode) => c.open(path, flags, mode),
    grantpt: (fd) => c.grantpt(fd),
    unlockpt: (fd) => c.unlockpt(fd),
    ptsname_r: (fd, name, size) => c.ptsname_r(fd, name, size),
    ioctl: (fd, request, argument) => c.ioctl(fd, request, argument),
    read: (fd, buffer, size) => c.read(fd, buffer, size),
    write: (fd, buffer, size) => c.write(fd, buffer, size),
    close: (fd) => c.close(fd),
    eventfd: (initial, flags) => c.eventfd(initial, flags),
    getrlimit: (resource, limits) => c.getrlimit(resource, limits),
    setrlimit: (resource, limits) => c.setrlimit(resource, limits),
    errno: () => read.i32(c.__errno_location()!, 0),
  };
  return loaded;
}
