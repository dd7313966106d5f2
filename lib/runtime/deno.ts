/**
 * The runtime shim for Deno.
 * @module
 */

import { denoCore } from "./deno_core.ts";
import { closeOnExec, libc } from "./deno_libc.ts";
import { denoReader } from "./deno_pty_reader.ts";
import { listenUnix } from "./deno_listen.ts";
import { serveHttp } from "./deno_http.ts";
import { fileLimit, type LaunchedProcess, PtySpawner } from "./pty.ts";
import type { ExitStatus, PipedProcess, PipedSpawnOptions, Runtime } from "./types.ts";

function toExitStatus(status: Deno.CommandStatus): ExitStatus {
  if (status.signal !== null) return { exitCode: null, signal: status.signal };
  // Deno reports 128+n for some signal deaths without setting `signal`.
  return { exitCode: status.code, signal: null };
}

/** Starts a PTY's launcher with Deno.Command, stdio on /dev/null. */
function launch(
  argv: string[],
  cwd: string | undefined,
  env: Record<string, string>,
): LaunchedProcess {
  closeOnExec();
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return { pid: child.pid, status: child.status.then(toExitStatus) };
}

const ptys = new PtySpawner(libc, launch, denoReader);

function spawnPiped(options: PipedSpawnOptions): PipedProcess {
  const [command, ...args] = options.argv;
  closeOnExec();
  const child = new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    clearEnv: options.env !== undefined,
    stdin: "piped",
    stdout: "piped",
    stderr: options.stderr === "pipe" ? "piped" : "inherit",
    detached: options.newSession === true, // setsid(2) in the child
  }).spawn();
  if (options.unref === true) child.unref();
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: options.stderr === "pipe" ? child.stderr : null,
    exited: child.status.then(toExitStatus),
  };
}

/** Runtime abilities backed by Deno: the core's, and PTYs, piped processes and servers. */
export const denoRuntime: Runtime = {
  ...denoCore,
  spawnPty: (options) => ptys.spawn(options),
  spawnPiped,
  raiseFileLimit: () => fileLimit(libc, true),
  listenUnix,
  serveHttp,
};
