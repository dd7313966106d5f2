/// <reference types="bun-types" />
/**
 * lstat(2) and isatty(3) for Bun without node:fs and node:tty (each costs a
 * short-lived command several ms at start-up): glibc's statx(), whose
 * `struct statx` has the same layout on every Linux architecture, and
 * isatty(), through bun:ffi. libc is opened on first use; where they are
 * missing, node:fs and node:tty do it. bun:ffi is imported up front: in the
 * compiled binary that costs ~0.1 ms, `import.meta.require` at first use ~0.8
 * (bench/RESULTS.md, issue 16).
 * @module
 */

import { dlopen, FFIType, read } from "bun:ffi";
import { nodeFs } from "./node_fs.ts";
import type { PathInfo } from "./types.ts";

const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const STATX_TYPE_MODE_UID = 0x1 | 0x2 | 0x8;
/** Offsets in `struct statx`: stx_uid (u32) and stx_mode (u16). */
const UID_AT = 20;
const MODE_AT = 28;
const ERRNO_NAMES: Record<number, string> = {
  1: "EPERM",
  2: "ENOENT",
  13: "EACCES",
  20: "ENOTDIR",
  36: "ENAMETOOLONG",
  40: "ELOOP",
};

type Statx = (path: Uint8Array) => PathInfo;

let statx: Statx | undefined;
let isattyCall: ((fd: number) => boolean) | undefined;

function kindOf(mode: number): PathInfo["kind"] {
  switch (mode & 0o170000) {
    case 0o100000:
      return "file";
    case 0o040000:
      return "directory";
    case 0o120000:
      return "symlink";
    case 0o140000:
      return "socket";
    default:
      return "other";
  }
}

function loadStatx(): Statx {
  const { i32, u32, ptr } = FFIType;
  const c = dlopen("libc.so.6", {
    statx: { args: [i32, ptr, i32, u32, ptr], returns: i32 },
    isatty: { args: [i32], returns: i32 },
    __errno_location: { args: [], returns: ptr },
  }).symbols;
  isattyCall = (fd) => c.isatty(fd) === 1;
  const buffer = new Uint8Array(256);
  const view = new DataView(buffer.buffer);
  return (path) => {
    if (c.statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_TYPE_MODE_UID, buffer) !== 0) {
      const errno = read.i32(c.__errno_location()!, 0);
      const code = ERRNO_NAMES[errno] ?? `errno ${errno}`;
      throw Object.assign(new Error(`${code}: lstat ${new TextDecoder().decode(path)}`), { code });
    }
    const mode = view.getUint16(MODE_AT, true);
    return { kind: kindOf(mode), uid: view.getUint32(UID_AT, true), mode: mode & 0o7777 };
  };
}

/** The node:fs way, where glibc has no statx(). */
const viaNodeFs: Statx = (path) => {
  const info = nodeFs().lstatSync(new TextDecoder().decode(path.subarray(0, -1)));
  return { kind: kindOf(info.mode), uid: info.uid, mode: info.mode & 0o7777 };
};

function load(): Statx {
  try {
    return statx ??= loadStatx();
  } catch {
    isattyCall = (fd) => (import.meta.require("node:tty") as typeof import("node:tty")).isatty(fd);
    return statx = viaNodeFs;
  }
}

/** lstat(2) of `path` (see `Runtime.lstat`). */
export function lstat(path: string): PathInfo {
  return load()(new TextEncoder().encode(path + "\0"));
}

/** Whether descriptor `fd` is a terminal. */
export function isatty(fd: number): boolean {
  load();
  return isattyCall!(fd);
}
