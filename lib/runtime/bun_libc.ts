/// <reference types="bun-types" />
/**
 * libc for Bun, through bun:ffi: the `Libc` of `libc.ts`, loaded on first
 * use (a short-lived command that opens no terminal never pays for it).
 *
 * bun:ffi calls run on the JavaScript thread, so the one blocking call,
 * poll(), runs in a worker of its own: the poll loop sends it the pollfd
 * array and gets it back with `revents` filled in. One worker serves every
 * terminal; it holds the process open only while a poll is pending.
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

/** The poll worker, in JavaScript (nothing to transpile): one poll per message. */
const POLL_WORKER = `
import { dlopen, FFIType } from "bun:ffi";
const { poll } = dlopen("libc.so.6", {
  poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
}).symbols;
self.onmessage = ({ data }) => {
  poll(data, data.length / 8, -1);
  postMessage(data, [data.buffer]);
};
`;

/** Bun's Worker, which can stop holding the process open (Deno's types do not know it). */
type UnrefWorker = Worker & { ref(): void; unref(): void };

/** Runs poll() in a worker; one call at a time, as the poll loop makes them. */
class PollWorker {
  #worker: UnrefWorker;
  #pending: ((fds: Uint8Array) => void) | undefined;

  constructor() {
    const url = URL.createObjectURL(new Blob([POLL_WORKER], { type: "text/javascript" }));
    this.#worker = new Worker(url) as UnrefWorker;
    this.#worker.unref();
    this.#worker.onmessage = ({ data }: MessageEvent<Uint8Array>) => {
      URL.revokeObjectURL(url); // Only now: the worker loads its code after the constructor returned.
      this.#worker.unref();
      const done = this.#pending;
      this.#pending = undefined;
      done?.(data);
    };
  }

  poll(fds: Uint8Array, count: number): Promise<void> {
    if (this.#pending !== undefined) throw new Error("poll() is already pending");
    return new Promise((resolve) => {
      this.#pending = (result) => {
        fds.set(result);
        resolve();
      };
      this.#worker.ref();
      this.#worker.postMessage(fds.slice(0, 8 * count));
    });
  }
}

type Symbols = ReturnType<typeof dlopen<typeof SYMBOLS>>["symbols"];

let loaded: Libc | undefined;

/**
 * libc through bun:ffi, loaded on first call.
 * @throws {Error} where libc.so.6 cannot be loaded (not glibc Linux)
 */
export function loadLibc(): Libc {
  if (loaded !== undefined) return loaded;
  const c: Symbols = dlopen("libc.so.6", SYMBOLS).symbols;
  let poller: PollWorker | undefined;
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
    pollAsync: (fds, count) => (poller ??= new PollWorker()).poll(fds, count),
  };
  return loaded;
}
