/**
 * Opening the very file the guard checked: the check resolved every symlink,
 * so the file is opened without following a link in its last component
 * (a link put there since is refused), and where `/proc` says which file an
 * open descriptor is, a file found elsewhere (a directory above it replaced
 * by a link since the check) is refused too. A write opens without blocking
 * and takes only a regular file (a FIFO or a device is refused, never waited
 * on), and the guard checks what was opened by identity (a hard link to
 * termbridge's own files, a file with other names).
 * @module
 */

import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readlinkSync,
  type Stats,
  statSync,
} from "node:fs";
import { type FileHandle, open, readlink } from "node:fs/promises";
import { PolicyDeniedError } from "../safety/guard.ts";
import type { Guard } from "../safety/guard.ts";
import type { Actor } from "../safety/types.ts";
import { errnoOf, FileError } from "./file_errors.ts";

/** The guard that checked a path and who asked: it checks the opened file too. */
export interface OpenCheck {
  guard: Guard;
  actor: Actor;
}

function moved(action: string, path: string): PolicyDeniedError {
  return new PolicyDeniedError(
    `Denied by policy: cannot ${action} ${
      JSON.stringify(path)
    }: the path was replaced by a symbolic link after it was checked`,
    null,
    path,
  );
}

/** A file's kind in words, for "it is a FIFO, not a file". */
export function kindWords(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO (named pipe)";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice() || info.isBlockDevice()) return "a device";
  return "a special file";
}

function notAFile(action: string, path: string, what: string): FileError {
  return new FileError(
    "wrong-kind",
    `Cannot ${action} ${JSON.stringify(path)}: it is ${what}, not a file`,
  );
}

/** Where `/proc` says descriptor `fd` is, or null without `/proc` (not Linux). */
function procPathSync(fd: number): string | null {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null; // No /proc: O_NOFOLLOW on the last component is all there is.
  }
}

/**
 * Opens `path` (absolute, symlinks resolved by the guard's check) with `flags`.
 * @param checked false when no policy checked the path: it is opened as given
 * @param check the guard that checked a write: the opened file must be a
 * regular file that is none of termbridge's own files and has no other name
 * @throws {PolicyDeniedError} when the path is no longer the file that was checked
 * @throws {FileError} when a write opened something other than a regular file
 */
export async function openChecked(
  action: "read" | "write",
  path: string,
  flags: number,
  checked: boolean,
  check?: OpenCheck,
): Promise<FileHandle> {
  let file: FileHandle;
  try {
    file = await open(path, checked ? flags | constants.O_NOFOLLOW : flags, 0o666);
  } catch (error) {
    throw openFailure(action, path, error, checked, action === "write");
  }
  try {
    if (checked) {
      let opened: string | null = null;
      try {
        opened = await readlink(`/proc/self/fd/${file.fd}`);
      } catch {
        // No /proc (not Linux): O_NOFOLLOW on the last component is all there is.
      }
      if (opened !== null && opened !== path) throw moved(action, path);
    }
    if (action === "write") {
      const info = await file.stat();
      if (!info.isFile()) throw notAFile(action, path, kindWords(info));
      check?.guard.checkOpenedWrite(path, info, check.actor);
    }
  } catch (error) {
    await file.close();
    throw error;
  }
  return file;
}

/**
 * Opens `path` for a write termbridge makes for a request (a recording, a
 * pipe), synchronously and without ever blocking: an existing FIFO, socket
 * or device is refused before opening, and whatever was opened must be a
 * regular file. Created 0600; nothing is truncated (the caller does that
 * once it knows the file is to be written).
 * @param checked whether a policy checked (and resolved) the path: then it is
 * opened as checked (see {@linkcode openChecked})
 * @param check the guard that checked it: it checks the opened file's identity
 * @returns the descriptor
 * @throws {FileError} for a directory or a special file
 * @throws {PolicyDeniedError} when the path is not the file checked, or the guard refuses it
 */
export function openWriteSync(
  action: string,
  path: string,
  options: { append?: boolean; checked: boolean; check?: OpenCheck },
): number {
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isFile()) {
    throw notAFile(action, path, kindWords(existing));
  }
  let flags = WRITE_FLAGS | constants.O_NOCTTY;
  if (options.append) flags |= constants.O_APPEND;
  if (options.checked) flags |= constants.O_NOFOLLOW;
  let fd: number;
  try {
    fd = openSync(path, flags, 0o600);
  } catch (error) {
    throw openFailure(action, path, error, options.checked, true);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw notAFile(action, path, kindWords(info));
    if (options.checked) {
      const opened = procPathSync(fd);
      if (opened !== null && opened !== path) throw moved(action, path);
    }
    options.check?.guard.checkOpenedWrite(path, info, options.check.actor);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/**
 * What to throw when opening `path` failed: a checked path that became a
 * link was moved; a write refused with ENXIO met a FIFO or a device.
 */
function openFailure(
  action: string,
  path: string,
  error: unknown,
  checked: boolean,
  write: boolean,
): unknown {
  if (checked && errnoOf(error) === "ELOOP") return moved(action, path);
  if (write && errnoOf(error) === "ENXIO") {
    return notAFile(action, path, "a FIFO (named pipe) or a device");
  }
  return error;
}

/** Flags for reading: non-blocking, so a FIFO put in place of the file cannot hang the read. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Flags for writing: not truncating, so a file refused after opening is left as it was. */
export const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK;
