/**
 * Reaching the session server, starting it when needed: detached from the
 * terminal, in its own session, its output in a log file. A socket left by a
 * server that crashed or was killed is replaced, and the user told that its
 * sessions were lost.
 * @module
 */

import process from "node:process";
import { dirname } from "./posix_path.ts";

/** node:fs, loaded when a server is started (most commands find one running: issue 16). */
const fs = () => process.getBuiltinModule("node:fs") as typeof import("node:fs");
import { runtime } from "../runtime/core.ts";
import {
  type Connection,
  openConnection,
  openQuickConnection,
  type QuickConnection,
  ServerUnavailableError,
} from "./client.ts";
import { checkSocketOwner, logPath, prepareSocketDir } from "./paths.ts";
import type { Hello } from "./wire.ts";

/** How long a starting server may take to listen. */
const START_TIMEOUT_MS = 20_000;

/** What reaching the server needs. */
export interface ReachOptions {
  /** The socket path (see paths.ts). */
  path: string;
  env: Record<string, string>;
  /** Start a server when none runs (false: fail instead). */
  start: boolean;
  /** Called with a line for the user (a lost server, a new one started). */
  notice: (line: string) => void;
}

function isGone(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: string }).code;
  return code === "ENOENT" || code === "ECONNREFUSED";
}

/** A connection reset before the hello's answer: a server starting or stopping at that moment. */
function isReset(error: unknown): boolean {
  return (error as { code?: string }).code === "ECONNRESET";
}

/** Connects, trying again a few times when the connection is reset before the hello's answer. */
async function connectOnce<T>(open: () => Promise<T>): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await open();
    } catch (error) {
      if (!isReset(error) || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
    }
  }
}

/**
 * Connects to the server at `options.path` with `hello` and waits for its
 * answer, starting a server first when none listens there (and `options.start`).
 * @throws {ServerUnavailableError} when none runs and none may be started, or it does not start
 * @throws {UnsafeSocketError} when the socket or its directory belongs to someone else
 */
export function reachServer(hello: Hello, options: ReachOptions): Promise<Connection> {
  return reach(hello, options, (named) => openConnection(options.path, named));
}

/**
 * As {@linkcode reachServer}, for an `rpc` connection whose requests follow
 * the hello at once (the server's answer to it is the first line read).
 */
export function reachServerQuickly(hello: Hello, options: ReachOptions): Promise<QuickConnection> {
  return reach(hello, options, (named) => openQuickConnection(options.path, named));
}

async function reach<T>(given: Hello, options: ReachOptions, open: (hello: Hello) => Promise<T>) {
  const { path } = options;
  // Each client is named in the server's audit log; by its kind unless the caller says more.
  const hello = { ...given, client: given.client ?? `${given.kind} pid ${process.pid}` };
  checkSocketOwner(path);
  try {
    return await connectOnce(() => open(hello));
  } catch (error) {
    if (!isGone(error)) throw error;
    const stale = error.code === "ECONNREFUSED";
    if (stale) {
      options.notice(
        `termbridge: the server at ${path} is gone (it crashed or was killed); its sessions were lost`,
      );
    }
    if (!options.start) {
      throw new ServerUnavailableError(
        `No termbridge server is running on ${path}: "termbridge new NAME" starts one`,
      );
    }
    if (stale) removeStale(path);
  }
  await startServer(path, options.env);
  if (runtime.isTerminal("stderr")) options.notice(`termbridge: started a server on ${path}`);
  return await connectOnce(() => open(hello));
}

function removeStale(path: string): void {
  try {
    fs().unlinkSync(path);
  } catch {
    // Another client replaced it first: the new server's socket is what we want.
  }
}

/**
 * Starts `termbridge server --socket PATH` in the background and waits until
 * it listens.
 * @throws {ServerUnavailableError} with the end of its log when it does not come up
 */
export async function startServer(path: string, env: Record<string, string>): Promise<void> {
  prepareSocketDir(path);
  const log = logPath(path, env);
  fs().mkdirSync(dirname(log), { recursive: true, mode: 0o700 });
  const fd = fs().openSync(log, "a", 0o600);
  const [command, ...args] = runtime.selfCommand();
  // Loaded here, not up front: most commands find a server running.
  const { spawn } = await import("node:child_process");
  let exited: string | undefined;
  try {
    const child = spawn(command, [...args, "server", "--socket", path], {
      detached: true, // Its own session: no terminal, no hang-up when ours closes.
      stdio: ["ignore", fd, fd],
      cwd: "/",
      env,
    });
    child.once("exit", (code, signal) => exited = signal ?? `exit code ${code}`);
    child.unref();
  } finally {
    fs().closeSync(fd);
  }
  const deadline = performance.now() + START_TIMEOUT_MS;
  let wait = 2;
  for (;;) {
    try {
      const probe = await openConnection(path, { hello: "termbridge", kind: "rpc" });
      probe.socket.destroy();
      return;
    } catch (error) {
      if (!isGone(error) && !isReset(error)) throw error;
    }
    if (exited !== undefined || performance.now() > deadline) {
      throw new ServerUnavailableError(
        `Cannot start a termbridge server on ${path}: ${
          exited ? `it ended (${exited})` : `it did not listen within ${START_TIMEOUT_MS / 1000} s`
        }; its log (${log}) ends with:\n${tail(log)}`,
      );
    }
    // Nothing tells us when another process starts listening: poll, briefly.
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(wait * 2, 50);
  }
}

function tail(path: string): string {
  try {
    return fs().readFileSync(path, "utf8").trimEnd().split("\n").slice(-10).join("\n");
  } catch {
    return "(no log)";
  }
}
