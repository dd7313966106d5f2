/**
 * The libc calls termbridge makes for pseudo-terminals and the open-files
 * limit, as one interface that each runtime binds through its own FFI
 * (`deno_libc.ts`, `bun_libc.ts`); the code on top of it (`pty.ts`,
 * `pty_reader.ts`) is shared; the reader's worker binds poll(2) and read(2)
 * itself (`bun_pty_reader.ts`, `deno_pty_reader.ts`).
 * @module
 */

/** libc functions; buffers are passed as their bytes, 64-bit results may be bigints. */
export interface Libc {
  open(path: Uint8Array, flags: number, mode: number): number;
  grantpt(fd: number): number;
  unlockpt(fd: number): number;
  ptsname_r(fd: number, name: Uint8Array, size: number): number;
  ioctl(fd: number, request: number, argument: Uint8Array): number;
  read(fd: number, buffer: Uint8Array, size: number): number | bigint;
  write(fd: number, buffer: Uint8Array, size: number): number | bigint;
  close(fd: number): number;
  eventfd(initial: number, flags: number): number;
  getrlimit(resource: number, limits: Uint8Array): number;
  setrlimit(resource: number, limits: Uint8Array): number;
  /** The calling thread's errno, right after a call that failed. */
  errno(): number;
}

export const O_RDWR = 0x2;
export const O_NOCTTY = 0x100;
export const O_NONBLOCK = 0x800;
export const O_CLOEXEC = 0x80000;
export const TIOCSWINSZ = 0x5414;
export const EFD_NONBLOCK = 0x800;
export const EFD_CLOEXEC = 0x80000;

/** errno values the PTY code tells apart. */
export const EAGAIN = 11;
export const EINTR = 4;
