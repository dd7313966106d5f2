/**
 * libc for Deno, through its FFI: the `Libc` of `libc.ts`, plus the
 * close-on-exec sweep that Deno's own child spawns need.
 * @module
 */

import type { Libc } from "./libc.ts";

const SYMBOLS = {
  open: { parameters: ["buffer", "i32", "i32"], result: "i32" },
  grantpt: { parameters: ["i32"], result: "i32" },
  unlockpt: { parameters: ["i32"], result: "i32" },
  ptsname_r: { parameters: ["i32", "buffer", "usize"], result: "i32" },
  ioctl: { parameters: ["i32", "u64", "buffer"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  fcntl: { parameters: ["i32", "i32", "i32"], result: "i32" },
  eventfd: { parameters: ["u32", "i32"], result: "i32" },
  // Deno runs it on its blocking thread pool and returns a promise (pty_boot.ts).
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32", nonblocking: true },
  __errno_location: { parameters: [], result: "pointer" },
  getrlimit: { parameters: ["i32", "buffer"], result: "i32" },
  setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
} as const;

/**
 * Loaded when the Deno shim is imported, for the life of the process (libc is
 * mapped anyway); loading it lazily would look like a leak to the first test
 * that opens a terminal.
 */
const c = Deno.dlopen("libc.so.6", SYMBOLS).symbols;

/** libc through Deno's FFI (which takes 64-bit arguments as bigints). */
export const libc: Libc = {
  open: (path, flags, mode) => c.open(path, flags, mode),
  grantpt: (fd) => c.grantpt(fd),
  unlockpt: (fd) => c.unlockpt(fd),
  ptsname_r: (fd, name, size) => c.ptsname_r(fd, name, BigInt(size)),
  ioctl: (fd, request, argument) => c.ioctl(fd, BigInt(request), argument),
  read: (fd, buffer, size) => c.read(fd, buffer, BigInt(size)),
  write: (fd, buffer, size) => c.write(fd, buffer, BigInt(size)),
  close: (fd) => c.close(fd),
  eventfd: (initial, flags) => c.eventfd(initial, flags),
  getrlimit: (resource, limits) => c.getrlimit(resource, limits),
  setrlimit: (resource, limits) => c.setrlimit(resource, limits),
  errno() {
    const pointer = c.__errno_location();
    return pointer === null ? 0 : new Deno.UnsafePointerView(pointer).getInt32();
  },
};

/** poll(2) with an infinite timeout on Deno's blocking pool (see `PollAsync`). */
export async function pollAsync(fds: Uint8Array, count: number): Promise<void> {
  await c.poll(fds, BigInt(count), -1);
}

const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

/**
 * Marks every open descriptor above stderr close-on-exec. Deno opens some
 * without it (the sockets and pipes of its node:net and node:child_process
 * compatibility): a child would inherit them, a listening socket would outlive
 * termbridge in its terminals, and a killed server's clients would be reset
 * instead of refused.
 */
export function closeOnExec(): void {
  let entries: string[];
  try {
    entries = Deno.readDirSync("/proc/self/fd").map((entry) => entry.name).toArray();
  } catch {
    return; // No /proc: nothing to find them with.
  }
  for (const name of entries) {
    const fd = Number(name);
    if (!(fd > 2)) continue;
    const flags = c.fcntl(fd, F_GETFD, 0);
    if (flags >= 0 && (flags & FD_CLOEXEC) === 0) c.fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
  }
}
