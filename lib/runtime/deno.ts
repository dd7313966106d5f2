/**
 * The runtime shim for Deno.
 * @module
 */

import { connectUnix } from "./node_unix.ts";
import { existsSync } from "node:fs";
import {
  closeOnExec,
  fileLimit,
  openPtyMaster,
  raiseFileLimit,
  setWindowSize,
} from "./deno_libc.ts";
import { isTooManyOpenFiles, TOO_MANY_OPEN_FILES, TooManyOpenFilesError } from "./file_limit.ts";
import { PtyPoller } from "./deno_poller.ts";
import { afterExit } from "./exit_drain.ts";
import { BrokenPipeError } from "./errors.ts";
import { orderedWriter } from "./ordered_writer.ts";
import type {
  ExitStatus,
  PipedProcess,
  PipedSpawnOptions,
  PtyProcess,
  PtySpawnOptions,
  Runtime,
  ShutdownSignal,
} from "./types.ts";

let poller: PtyPoller | undefined;

const SETSID = ["/usr/bin/setsid", "/bin/setsid"].find((path) => existsSync(path)) ?? "setsid";

/**
 * The child is started by util-linux `setsid`, a new session, whose `/bin/sh`
 * opens the slave side as stdio: on Linux, the first terminal a session
 * leader opens (without O_NOCTTY, as shells open redirections) becomes its
 * controlling terminal, and its group the foreground group. The shell then
 * execs the program; every exec keeps the pid, so the pid is the program's.
 * With `stdin: "null"` the shell puts stdin back on /dev/null after opening
 * the terminal, in the same step.
 */
const LAUNCHER = 'exec "$@" <"$0" >"$0" 2>&1';
const LAUNCHER_STDIN_AT_EOF = 'exec "$@" <"$0" >"$0" 2>&1 </dev/null';

function toExitStatus(status: Deno.CommandStatus): ExitStatus {
  if (status.signal !== null) return { exitCode: null, signal: status.signal };
  // Deno reports 128+n for some signal deaths without setting `signal`.
  return { exitCode: status.code, signal: null };
}

/** A spawn failure for lack of file descriptors said as such; others unchanged. */
function explainSpawnFailure(error: unknown): unknown {
  return isTooManyOpenFiles(error, fileLimit())
    ? new TooManyOpenFilesError(TOO_MANY_OPEN_FILES)
    : error;
}

function spawnPty(options: PtySpawnOptions): PtyProcess {
  poller ??= new PtyPoller();
  const pty = poller;
  let master: { fd: number; slavePath: string };
  try {
    master = openPtyMaster();
  } catch (error) {
    throw explainSpawnFailure(error);
  }
  const { fd, slavePath } = master;
  setWindowSize(fd, options.cols, options.rows);
  let child: Deno.ChildProcess;
  try {
    const launcher = options.stdin === "null" ? LAUNCHER_STDIN_AT_EOF : LAUNCHER;
    closeOnExec();
    child = new Deno.Command(SETSID, {
      args: ["/bin/sh", "-c", launcher, slavePath, ...options.argv],
      cwd: options.cwd,
      env: options.env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch (error) {
    void pty.close(fd);
    throw explainSpawnFailure(error);
  }
  let outputEnded!: () => void;
  const ended = new Promise<void>((resolve) => outputEnded = resolve);
  pty.add(fd, options.onData, outputEnded);
  let closed = false;
  return {
    pid: child.pid,
    exited: afterExit(child.status.then(toExitStatus), ended),
    write: (data) => pty.write(fd, data),
    resize: (cols, rows) => setWindowSize(fd, cols, rows),
    close: async () => {
      if (closed) return;
      closed = true;
      await pty.close(fd);
      await child.status;
    },
  };
}

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
  }).spawn();
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: options.stderr === "pipe" ? child.stderr : null,
    exited: child.status.then(toExitStatus),
  };
}

async function writeAll(file: typeof Deno.stdout, data: Uint8Array | string): Promise<void> {
  let bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  try {
    while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
  } catch (error) {
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
    throw new BrokenPipeError(file === Deno.stdout ? "stdout" : "stderr");
  }
}

/** Runtime abilities backed by Deno. */
export const denoRuntime: Runtime = {
  name: "deno",
  version: Deno.version.deno,
  args: () => [...Deno.args],
  env: () => Deno.env.toObject(),
  exit: (code) => Deno.exit(code),
  cwd: () => Deno.cwd(),
  spawnPty,
  spawnPiped,
  kill(pid, signal) {
    try {
      Deno.kill(pid, signal as Deno.Signal);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      if (String(error).includes("ESRCH")) return false;
      throw error;
    }
  },
  stdin: () => Deno.stdin.readable,
  // Deno.stdout.write may write part of a buffer: without ordering, two
  // concurrent writes could interleave their parts.
  writeStdout: orderedWriter((data) => writeAll(Deno.stdout, data)),
  writeStderr: orderedWriter((data) => writeAll(Deno.stderr, data)),
  isTerminal: (stream) =>
    ({ stdin: Deno.stdin, stdout: Deno.stdout, stderr: Deno.stderr })[stream].isTerminal(),
  setRawMode: (enabled) => Deno.stdin.setRaw(enabled),
  consoleSize() {
    try {
      const { columns, rows } = Deno.consoleSize();
      return { cols: columns, rows };
    } catch {
      return null; // Not a terminal.
    }
  },
  onSignal(signal: ShutdownSignal, handler: () => void) {
    Deno.addSignalListener(signal, handler);
    return () => Deno.removeSignalListener(signal, handler);
  },
  memoryRss: () => Deno.memoryUsage().rss,
  raiseFileLimit,
  // A `deno compile` binary reads its files from the real paths it was built from.
  embeddedFile: () => Promise.resolve(null),
  selfCommand: () => [Deno.execPath(), "run", "--allow-all", new URL(Deno.mainModule).pathname],
  connectUnix,
};
