/// <reference types="bun-types" />
/**
 * The runtime shim for Bun.
 * @module
 */

import { bunCore } from "./bun_core.ts";
import { listenUnix } from "./bun_listen.ts";
import { serveHttp } from "./bun_http.ts";
import { loadLibc } from "./bun_libc.ts";
import { startBunReader } from "./bun_pty_reader.ts";
import { fileLimit, type LaunchedProcess, PtySpawner } from "./pty.ts";
import { signalName } from "./signals.ts";
import type { ExitStatus, PipedProcess, PipedSpawnOptions, Runtime } from "./types.ts";

function exitStatusOf(
  proc: { exitCode: number | null; signalCode: string | number | null },
): ExitStatus {
  if (typeof proc.signalCode === "number") {
    return { exitCode: null, signal: signalName(proc.signalCode) };
  }
  if (proc.signalCode) return { exitCode: null, signal: proc.signalCode };
  return { exitCode: proc.exitCode ?? 0, signal: null };
}

/** Starts a PTY's launcher with Bun.spawn, stdio on /dev/null. */
function launch(
  argv: string[],
  cwd: string | undefined,
  env: Record<string, string>,
): LaunchedProcess {
  const proc = Bun.spawn(argv, { cwd, env, stdio: ["ignore", "ignore", "ignore"] });
  return { pid: proc.pid, status: proc.exited.then(() => exitStatusOf(proc)) };
}

// Not Bun's own PTY (`Bun.spawn({ terminal })`): it keeps five descriptors per
// terminal (three copies of the master, the slave, a pidfd) and hands over a
// fresh buffer per read; this one keeps two and reads into one buffer.
let ptys: PtySpawner | undefined;

/** The file limit, or undefined where libc cannot be loaded. */
function fileLimitOrUndefined(raise: boolean) {
  try {
    return fileLimit(loadLibc(), raise);
  } catch {
    return undefined; // Not glibc Linux: the limit stays as it is.
  }
}

function spawnPiped(options: PipedSpawnOptions): PipedProcess {
  const proc = Bun.spawn(options.argv, {
    cwd: options.cwd,
    env: options.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: options.stderr === "pipe" ? "pipe" : "inherit",
    detached: options.newSession === true, // setsid(2) in the child
  });
  if (options.unref === true) proc.unref();
  const sink = proc.stdin;
  const stdin = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      sink.write(chunk);
      await sink.flush();
    },
    close: async () => void await sink.end(),
    abort: async () => void await sink.end(),
  });
  return {
    pid: proc.pid,
    stdin,
    stdout: proc.stdout,
    stderr: options.stderr === "pipe" ? proc.stderr as ReadableStream<Uint8Array> : null,
    exited: proc.exited.then(() => exitStatusOf(proc)),
  };
}

/** Runtime abilities backed by Bun: the core's, and PTYs, piped processes and servers. */
export const bunRuntime: Runtime = {
  ...bunCore,
  spawnPty: (options) =>
    (ptys ??= new PtySpawner(loadLibc(), launch, { start: startBunReader })).spawn(options),
  spawnPiped,
  raiseFileLimit: () => fileLimitOrUndefined(true),
  listenUnix,
  serveHttp,
};
