/// <reference types="bun-types" />
/**
 * The runtime shim for Bun.
 * @module
 */

import process from "node:process";
import { connectUnix } from "./bun_unix.ts";
import { listenUnix } from "./bun_listen.ts";
import { BrokenPipeError } from "./errors.ts";
import { serveHttp } from "./bun_http.ts";
import { loadLibc } from "./bun_libc.ts";
import { startBunReader } from "./bun_pty_reader.ts";
import { isatty, lstat } from "./bun_stat.ts";
import { orderedWriter } from "./ordered_writer.ts";
import { fileLimit, type LaunchedProcess, PtySpawner } from "./pty.ts";
import { signalName } from "./signals.ts";
import type {
  ExitStatus,
  PipedProcess,
  PipedSpawnOptions,
  Runtime,
  ShutdownSignal,
} from "./types.ts";

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

// Node's process.stdout and process.stderr are costly to make in Bun (a third
// of a short-lived command's start-up): termbridge writes through Bun's own
// file sinks, and only a mode that uses the streams itself (readline, resize
// events) makes them.
let streamsGuarded = false;

/**
 * Before a mode uses process.stdout or process.stderr itself: a failed write
 * there is reported to its caller; without a listener the stream's "error"
 * event would also be printed as an uncaught error.
 */
function guardStreams(): void {
  if (streamsGuarded) return;
  streamsGuarded = true;
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
}

/** How a write fails once the reader is gone. */
const BROKEN_PIPE_CODES = new Set(["EPIPE", "ERR_STREAM_DESTROYED"]);

/** Incremental writers of fd 1 and 2 (they append, and report EPIPE), made on first use. */
const sinks: Partial<Record<"stdout" | "stderr", ReturnType<typeof Bun.stdout.writer>>> = {};

async function writeTo(name: "stdout" | "stderr", data: Uint8Array | string): Promise<void> {
  try {
    const sink = sinks[name] ??= (name === "stdout" ? Bun.stdout : Bun.stderr).writer();
    // A write the pipe cannot take at once returns a promise: a reader that left meanwhile
    // rejects it (EPIPE), which must reach the catch below, not go unhandled.
    if (data.length > 0) await sink.write(data);
    await sink.flush();
  } catch (error) {
    if (BROKEN_PIPE_CODES.has((error as { code?: string }).code ?? "")) {
      throw new BrokenPipeError(name);
    }
    throw error;
  }
}

/** Runtime abilities backed by Bun. */
export const bunRuntime: Runtime = {
  name: "bun",
  version: Bun.version,
  args: () => process.argv.slice(2),
  env: () => ({ ...process.env }) as Record<string, string>,
  exit: (code) => process.exit(code),
  cwd: () => process.cwd(),
  spawnPty: (options) =>
    (ptys ??= new PtySpawner(loadLibc(), launch, { start: startBunReader })).spawn(options),
  spawnPiped,
  kill(pid, signal) {
    try {
      process.kill(pid, signal);
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === "ESRCH") return false;
      throw error;
    }
  },
  stdin: () => Bun.stdin.stream() as ReadableStream<Uint8Array>,
  writeStdout: orderedWriter((data) => writeTo("stdout", data)),
  writeStderr: orderedWriter((data) => writeTo("stderr", data)),
  isTerminal(stream) {
    guardStreams(); // Asked by the modes that go on to use the streams themselves.
    // Not node:tty: loading it costs a short-lived command about 15 ms of CPU (bench/RESULTS.md,
    // issue 16).
    return isatty({ stdin: 0, stdout: 1, stderr: 2 }[stream]);
  },
  outputIsTerminal: () => isatty(1),
  setRawMode: (enabled) => void process.stdin.setRawMode(enabled),
  consoleSize() {
    guardStreams();
    const { columns, rows } = process.stdout;
    return columns && rows ? { cols: columns, rows } : null;
  },
  onSignal(signal: ShutdownSignal, handler: () => void) {
    process.on(signal, handler);
    return () => void process.off(signal, handler);
  },
  memoryRss: () => process.memoryUsage.rss(),
  raiseFileLimit: () => fileLimitOrUndefined(true),
  lstat,
  async embeddedFile(name) {
    if (!Bun.isStandaloneExecutable) return null;
    const blob = Bun.embeddedFiles.find((file) => (file as Blob & { name?: string }).name === name);
    return blob === undefined ? null : new Uint8Array(await blob.arrayBuffer());
  },
  selfCommand: () => Bun.isStandaloneExecutable ? [process.execPath] : [process.execPath, Bun.main],
  connectUnix,
  listenUnix,
  serveHttp,
};
