/// <reference types="bun-types" />
/**
 * The runtime shim for Bun.
 * @module
 */

import process from "node:process";
import { isatty } from "node:tty";
import { connectUnix } from "./bun_unix.ts";
import { afterExit } from "./exit_drain.ts";
import { BrokenPipeError } from "./errors.ts";
import { fileLimit } from "./bun_libc.ts";
import { isTooManyOpenFiles, TOO_MANY_OPEN_FILES, TooManyOpenFilesError } from "./file_limit.ts";
import { orderedWriter } from "./ordered_writer.ts";
import { signalName } from "./signals.ts";
import type {
  ExitStatus,
  PipedProcess,
  PipedSpawnOptions,
  PtyProcess,
  PtySpawnOptions,
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

/**
 * Bun gives a terminal all three of stdin, stdout and stderr: `/bin/sh` puts
 * stdin on /dev/null and execs the program (same pid, same session).
 */
const STDIN_AT_EOF = ["/bin/sh", "-c", 'exec "$@" </dev/null', "sh"];

function spawnPty(options: PtySpawnOptions): PtyProcess {
  let outputEnded!: () => void;
  const ended = new Promise<void>((resolve) => outputEnded = resolve);
  const argv = options.stdin === "null" ? [...STDIN_AT_EOF, ...options.argv] : options.argv;
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn(argv, {
      cwd: options.cwd,
      env: options.env,
      terminal: {
        cols: options.cols,
        rows: options.rows,
        data: (_terminal, bytes) => options.onData(bytes),
        // Called at end of output (EOF or EIO of the master), not at process exit.
        exit: () => outputEnded(),
      },
    });
  } catch (error) {
    // Bun says only "Failed to open PTY" when out of descriptors: count them.
    throw isTooManyOpenFiles(error, fileLimit())
      ? new TooManyOpenFilesError(TOO_MANY_OPEN_FILES)
      : error;
  }
  const terminal = proc.terminal!;
  return {
    pid: proc.pid,
    exited: afterExit(proc.exited.then(() => exitStatusOf(proc)), ended),
    write: (data) => void terminal.write(data),
    resize: (cols, rows) => terminal.resize(cols, rows),
    close: async () => {
      if (!terminal.closed) terminal.close();
      await proc.exited;
    },
  };
}

function spawnPiped(options: PipedSpawnOptions): PipedProcess {
  const proc = Bun.spawn(options.argv, {
    cwd: options.cwd,
    env: options.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: options.stderr === "pipe" ? "pipe" : "inherit",
  });
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
  spawnPty,
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
    return isatty({ stdin: 0, stdout: 1, stderr: 2 }[stream]);
  },
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
  raiseFileLimit: () => fileLimit(true),
  async embeddedFile(name) {
    if (!Bun.isStandaloneExecutable) return null;
    const blob = Bun.embeddedFiles.find((file) => (file as Blob & { name?: string }).name === name);
    return blob === undefined ? null : new Uint8Array(await blob.arrayBuffer());
  },
  selfCommand: () => Bun.isStandaloneExecutable ? [process.execPath] : [process.execPath, Bun.main],
  connectUnix,
};
