/**
 * Where the session server lives: its socket (private to the user, as tmux's
 * is) and its log file.
 * @module
 */

import process from "node:process";
import { runtime } from "../runtime/core.ts";
import { TerminalError } from "../terminal/errors.ts";
import { basename, dirname, join, resolve } from "./posix_path.ts";

/**
 * A node built-in, loaded when first needed: the subcommands' path here (find the socket,
 * check it) needs none, and loading node:fs or node:os costs every start (issue 16).
 */
const builtin = <T>(name: string) => process.getBuiltinModule(name) as T;

/** A socket or directory termbridge must not use: someone else's, or open to others. */
export class UnsafeSocketError extends TerminalError {}

/** How the user chose the server: `-L NAME`, `--socket PATH`, or neither. */
export interface SocketChoice {
  name?: string;
  path?: string;
}

/** The user's id (0 where the platform has none). */
export function userId(): number {
  return process.getuid?.() ?? 0;
}

/**
 * Whether `name` is 1-64 letters, digits or _ . - and does not start with a
 * dot. A loop, not a regular expression: the first one a process runs costs
 * a short-lived command ~0.3 ms (issue 16).
 */
function isServerName(name: string): boolean {
  if (name.length < 1 || name.length > 64 || name[0] === ".") return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!alnum && c !== 0x5f && c !== 0x2e && c !== 0x2d) return false;
  }
  return true;
}

/**
 * The server's socket path: `--socket PATH`, else `$TERMBRIDGE_SOCKET`, else
 * `NAME.sock` (`-L NAME`, default "default") in `$XDG_RUNTIME_DIR/termbridge`
 * or `/tmp/termbridge-UID`.
 */
export function socketPath(choice: SocketChoice, env: Record<string, string>): string {
  if (choice.path !== undefined) return resolve(choice.path, process.cwd());
  if (choice.name === undefined && env.TERMBRIDGE_SOCKET) {
    return resolve(env.TERMBRIDGE_SOCKET, process.cwd());
  }
  const name = choice.name ?? "default";
  if (!isServerName(name)) {
    throw new UnsafeSocketError(
      `Cannot use server name ${
        JSON.stringify(name)
      }: a name is 1-64 letters, digits or _ . - (not starting with a dot)`,
    );
  }
  const runtimeDir = env.XDG_RUNTIME_DIR;
  const dir = runtimeDir ? join(runtimeDir, "termbridge") : `/tmp/termbridge-${userId()}`;
  return join(dir, `${name}.sock`);
}

/**
 * The server's log file: `$XDG_STATE_HOME/termbridge/` (else
 * `~/.local/state/termbridge/`), named after the socket.
 */
export function logPath(socket: string, env: Record<string, string>): string {
  const state = env.XDG_STATE_HOME || join(
    env.HOME || builtin<typeof import("node:os")>("node:os").homedir(),
    ".local",
    "state",
  );
  return join(state, "termbridge", `server-${basename(socket).replace(/\.sock$/, "")}.log`);
}

/**
 * Makes the socket's directory (0700) if it is missing, and checks that it,
 * and the socket if present, belong to the user and are closed to others.
 * @throws {UnsafeSocketError} for another user's directory or socket, or one others may use
 */
export function prepareSocketDir(socket: string): void {
  builtin<typeof import("node:fs")>("node:fs").mkdirSync(dirname(socket), {
    recursive: true,
    mode: 0o700,
  });
  checkSocketOwner(socket);
}

/**
 * Checks that the socket's directory belongs to the user and that nobody
 * else may write to it (as tmux does).
 * @throws {UnsafeSocketError} when it is not so
 */
function checkSocketDir(dir: string): void {
  const uid = userId();
  const info = runtime.lstat(dir);
  if (info.kind !== "directory") {
    throw new UnsafeSocketError(`Cannot use socket directory ${dir}: it is not a directory`);
  }
  if (info.uid !== uid) {
    throw new UnsafeSocketError(
      `Cannot use socket directory ${dir}: it belongs to user ${info.uid}, not to you (${uid})`,
    );
  }
  // A directory others may write to is refused, never repaired behind the user's back
  // (someone made it so, or could have swapped the socket meanwhile). A shared directory with
  // the sticky bit (/tmp, given with --socket) is fine: nobody else may replace our socket.
  const sticky = (info.mode & 0o1000) !== 0;
  if ((info.mode & 0o022) !== 0 && !(sticky && !isPrivateDir(dir))) {
    throw new UnsafeSocketError(
      `Cannot use socket directory ${dir}: others may write to it (mode ${
        (info.mode & 0o777).toString(8)
      }, expected 700); if it is yours and nobody else used it, run "chmod 700 ${dir}"`,
    );
  }
}

/** Whether `dir` is one termbridge made for its sockets. */
function isPrivateDir(dir: string): boolean {
  return basename(dir) === "termbridge" || /^termbridge-\d+$/.test(basename(dir));
}

/**
 * Checks that the socket's directory and an existing socket belong to the
 * user and only they can use them.
 * @throws {UnsafeSocketError} when one belongs to another user or others may use it
 */
export function checkSocketOwner(socket: string): void {
  try {
    checkSocketDir(dirname(socket));
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
    return; // No directory, no socket: nothing to check yet.
  }
  let info;
  try {
    info = runtime.lstat(socket);
  } catch {
    return; // Not there: nothing to check.
  }
  const uid = userId();
  if (info.kind !== "socket") {
    throw new UnsafeSocketError(`Cannot use ${socket}: it exists and is not a socket`);
  }
  if (info.uid !== uid) {
    throw new UnsafeSocketError(
      `Cannot use socket ${socket}: it belongs to user ${info.uid}, not to you (${uid})`,
    );
  }
  if ((info.mode & 0o077) !== 0) {
    throw new UnsafeSocketError(
      `Cannot use socket ${socket}: others may use it (mode ${
        (info.mode & 0o777).toString(8)
      }, expected 600)`,
    );
  }
}
