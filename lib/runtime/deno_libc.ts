/**
 * The few libc calls Deno needs for pseudo-terminals, loaded once through FFI.
 * @module
 */

import { type FileLimit, RLIMIT_NOFILE, rlimitStruct } from "./file_limit.ts";

const O_RDWR = 0x2;
const O_NOCTTY = 0x100;
const O_NONBLOCK = 0x800;
const O_CLOEXEC = 0x80000;
const TIOCSWINSZ = 0x5414n;
const EFD_NONBLOCK = 0x800;
const EFD_CLOEXEC = 0x80000;

/** errno values the PTY code tells apart. */
export const EAGAIN = 11;
export const EINTR = 4;
export const EIO = 5;

/** poll(2) event bits. */
export const POLLIN = 0x1;
export const POLLOUT = 0x4;
export const POLLERR = 0x8;
export const POLLHUP = 0x10;
export const POLLNVAL = 0x20;

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
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32", nonblocking: true },
  __errno_location: { parameters: [], result: "pointer" },
  getrlimit: { parameters: ["i32", "buffer"], result: "i32" },
  setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
} as const;

type Libc = Deno.DynamicLibrary<typeof SYMBOLS>["symbols"];

/**
 * Loaded when the Deno shim is imported, for the life of the process (libc is
 * mapped anyway); loading it lazily would look like a leak to the first test
 * that opens a terminal.
 */
const libc: Libc = Deno.dlopen("libc.so.6", SYMBOLS).symbols;

/** Returns the libc symbols. */
export function loadLibc(): Libc {
  return libc;
}

/** The calling thread's errno; valid right after a synchronous call that failed. */
export function errno(): number {
  const pointer = loadLibc().__errno_location();
  return pointer === null ? 0 : new Deno.UnsafePointerView(pointer).getInt32();
}

const encoder = new TextEncoder();

/** Opens a new PTY master (non-blocking, close-on-exec) and returns its fd and slave path. */
export function openPtyMaster(): { fd: number; slavePath: string } {
  const c = loadLibc();
  const fd = c.open(encoder.encode("/dev/ptmx\0"), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0) throw new Error(`Cannot open /dev/ptmx: errno ${errno()}`);
  const name = new Uint8Array(256);
  if (c.grantpt(fd) !== 0 || c.unlockpt(fd) !== 0 || c.ptsname_r(fd, name, 256n) !== 0) {
    const code = errno();
    c.close(fd);
    throw new Error(`Cannot set up a pseudo-terminal: errno ${code}`);
  }
  const slavePath = new TextDecoder().decode(name.subarray(0, name.indexOf(0)));
  return { fd, slavePath };
}

/**
 * Raises the soft open-files limit to the hard one (as servers do at
 * start-up); returns the limits in force afterwards, or undefined if libc
 * refused.
 */
export function raiseFileLimit(): FileLimit | undefined {
  return fileLimit(true);
}

/** The open-files limits (raising the soft one to the hard one first when `raise`). */
export function fileLimit(raise = false): FileLimit | undefined {
  const c = loadLibc();
  const limits = rlimitStruct.create();
  const bytes = new Uint8Array(limits.buffer);
  if (c.getrlimit(RLIMIT_NOFILE, bytes) !== 0) return undefined;
  if (raise && limits[0] < limits[1]) {
    limits[0] = limits[1];
    c.setrlimit(RLIMIT_NOFILE, bytes);
    c.getrlimit(RLIMIT_NOFILE, bytes);
  }
  return rlimitStruct.read(limits);
}

/** Sets the window size of a terminal fd. */
export function setWindowSize(fd: number, cols: number, rows: number): void {
  const winsize = new Uint16Array([rows, cols, 0, 0]);
  loadLibc().ioctl(fd, TIOCSWINSZ, new Uint8Array(winsize.buffer));
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
  const c = loadLibc();
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

/** Creates a non-blocking eventfd used to wake a pending poll(). */
export function openEventFd(): number {
  const fd = loadLibc().eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) throw new Error(`Cannot create an eventfd: errno ${errno()}`);
  return fd;
}
