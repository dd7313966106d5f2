/// <reference types="bun-types" />
/**
 * libc for Bun, through bun:ffi: the `Libc` of `libc.ts`, loaded on first
 * use (a short-lived command that opens no terminal never pays for it).
 *
 * bun:ffi calls run on the JavaScript thread, so the one blocking call,
 * poll(), runs in a worker of its own, which shares the pollfd array with
 * the poll loop and is woken and answers through Atomics. One worker serves
 * every terminal; it holds the process open only while a poll is pending.
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

/** Slots of the Int32Array at the start of the buffer the poll worker shares. */
const REQUEST = 0; // Number of the poll asked for; -1 tells the worker to end.
const DONE = 1; // Number of the last poll finished.
const COUNT = 2; // How many pollfds to poll.
/** Where the pollfds start in the shared buffer (after the slots, 8-aligned). */
const FDS_AT = 16;

/**
 * The poll worker, in JavaScript (nothing to transpile). It sleeps in
 * Atomics.wait until a poll is asked for, polls the pollfds in the shared
 * buffer, and says it is done through the same buffer: no message, and so no
 * allocation, per poll.
 */
const POLL_WORKER = `
import { dlopen, FFIType } from "bun:ffi";
const { poll } = dlopen("libc.so.6", {
  poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
}).symbols;
self.onmessage = ({ data }) => {
  const slots = new Int32Array(data, 0, 3);
  const fds = new Uint8Array(data, ${FDS_AT});
  let seen = 0;
  for (;;) {
    Atomics.wait(slots, ${REQUEST}, seen);
    seen = Atomics.load(slots, ${REQUEST});
    if (seen < 0) return self.close();
    poll(fds, Atomics.load(slots, ${COUNT}), -1);
    Atomics.store(slots, ${DONE}, seen);
    Atomics.notify(slots, ${DONE});
  }
};
`;

/** Bun's Worker, which can stop holding the process open (Deno's types do not know it). */
type UnrefWorker = Worker & { ref(): void; unref(): void };

/** Runs poll() in a worker, for up to `capacity` pollfds; one call at a time, as the poll loop makes them. */
class PollWorker {
  readonly capacity: number;
  #worker: UnrefWorker;
  #slots: Int32Array;
  #fds: Uint8Array;
  #sequence = 0;
  #url: string | undefined;

  constructor(capacity: number) {
    this.capacity = capacity;
    const shared = new SharedArrayBuffer(FDS_AT + 8 * capacity);
    this.#slots = new Int32Array(shared, 0, 3);
    this.#fds = new Uint8Array(shared, FDS_AT);
    this.#url = URL.createObjectURL(new Blob([POLL_WORKER], { type: "text/javascript" }));
    this.#worker = new Worker(this.#url) as UnrefWorker;
    this.#worker.unref();
    this.#worker.postMessage(shared);
  }

  /**
   * Bun runs the worker's answer as a task before it looks at its own I/O
   * again: under a flood the answers would come back-to-back and starve
   * stdin and sockets, so each poll is asked for from a setImmediate, after
   * that I/O had its turn.
   */
  async poll(fds: Uint8Array, count: number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    const bytes = 8 * count;
    this.#fds.set(fds.subarray(0, bytes));
    // Numbered 1 to 2^31 - 1 and round again: a long flood makes billions of polls.
    const previous = this.#sequence;
    this.#sequence = previous === 0x7fffffff ? 1 : previous + 1;
    Atomics.store(this.#slots, COUNT, count);
    Atomics.store(this.#slots, REQUEST, this.#sequence);
    Atomics.notify(this.#slots, REQUEST);
    this.#worker.ref();
    const done = Atomics.waitAsync(this.#slots, DONE, previous);
    if (done.async) await done.value;
    this.#worker.unref();
    fds.set(this.#fds.subarray(0, bytes));
    if (this.#url !== undefined) {
      URL.revokeObjectURL(this.#url); // Only now: the worker loads its code after the constructor returned.
      this.#url = undefined;
    }
  }

  /** Ends the worker (between polls). */
  end(): void {
    Atomics.store(this.#slots, REQUEST, -1);
    Atomics.notify(this.#slots, REQUEST);
  }
}

/** Polls through a PollWorker, replaced by a larger one when the pollfds outgrow it. */
function pollInWorker(): (fds: Uint8Array, count: number) => Promise<void> {
  let worker: PollWorker | undefined;
  return (fds, count) => {
    if (worker === undefined || count > worker.capacity) {
      worker?.end();
      worker = new PollWorker(Math.max(64, 2 * count));
    }
    return worker.poll(fds, count);
  };
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
    pollAsync: pollInWorker(),
  };
  return loaded;
}
