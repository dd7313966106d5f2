/// <reference types="bun-types" />
/**
 * The runtime shim's core for Bun: what every command needs (arguments,
 * environment, standard streams, exit, lstat, a Unix socket client), without
 * PTYs, servers or libc, which a short-lived command does not load.
 * @module
 */

import process from "node:process";
import { connectUnix } from "./bun_unix.ts";
import { BrokenPipeError } from "./errors.ts";
import { isatty, lstat } from "./bun_stat.ts";
import { orderedWriter } from "./ordered_writer.ts";
import type { CoreRuntime, ShutdownSignal } from "./types.ts";

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

/** The core runtime abilities backed by Bun. */
export const bunCore: CoreRuntime = {
  name: "bun",
  version: Bun.version,
  args: () => process.argv.slice(2),
  env: () => ({ ...process.env }) as Record<string, string>,
  exit: (code) => process.exit(code),
  cwd: () => process.cwd(),
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
  lstat,
  async embeddedFile(name) {
    if (!Bun.isStandaloneExecutable) return null;
    const blob = Bun.embeddedFiles.find((file) => (file as Blob & { name?: string }).name === name);
    return blob === undefined ? null : new Uint8Array(await blob.arrayBuffer());
  },
  selfCommand: () => Bun.isStandaloneExecutable ? [process.execPath] : [process.execPath, Bun.main],
  connectUnix,
};
