/**
 * Opening the very file the guard checked: the check resolved every symlink,
 * so the file is opened without following a link in its last component
 * (a link put there since is refused), and where `/proc` says which file an
 * open descriptor is, a file found elsewhere (a directory above it replaced
 * by a link since the check) is refused too.
 * @module
 */

import { constants } from "node:fs";
import { type FileHandle, open, readlink } from "node:fs/promises";
import { PolicyDeniedError } from "../safety/guard.ts";

/**
 * Opens `path` (absolute, symlinks resolved by the guard's check) with `flags`.
 * @param checked false when no policy checked the path: it is opened as given
 * @throws {PolicyDeniedError} when the path is no longer the file that was checked
 */
export async function openChecked(
  action: "read" | "write",
  path: string,
  flags: number,
  checked: boolean,
): Promise<FileHandle> {
  if (!checked) return await open(path, flags, 0o666);
  const moved = () =>
    new PolicyDeniedError(
      `Denied by policy: cannot ${action} ${
        JSON.stringify(path)
      }: the path was replaced by a symbolic link after it was checked`,
      null,
      path,
    );
  let file: FileHandle;
  try {
    file = await open(path, flags | constants.O_NOFOLLOW, 0o666);
  } catch (error) {
    if ((error as { code?: string }).code === "ELOOP") throw moved();
    throw error;
  }
  let opened: string | null = null;
  try {
    opened = await readlink(`/proc/self/fd/${file.fd}`);
  } catch {
    // No /proc (not Linux): O_NOFOLLOW on the last component is all there is.
  }
  if (opened !== null && opened !== path) {
    await file.close();
    throw moved();
  }
  return file;
}

/** Flags for reading: non-blocking, so a FIFO put in place of the file cannot hang the read. */
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Flags for writing: not truncating, so a file refused after opening is left as it was. */
export const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK;
