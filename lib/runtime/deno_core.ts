/**
 * The runtime shim's core for Deno: what every command needs (arguments,
 * environment, standard streams, exit, lstat, a Unix socket client), without
 * PTYs, servers or libc.
 * @module
 */

import { connectUnix } from "./node_unix.ts";
import { BrokenPipeError } from "./errors.ts";
import { orderedWriter } from "./ordered_writer.ts";
import type { CoreRuntime, ShutdownSignal } from "./types.ts";

async function writeAll(file: typeof Deno.stdout, data: Uint8Array | string): Promise<void> {
  let bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  try {
    while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
  } catch (error) {
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
    throw new BrokenPipeError(file === Deno.stdout ? "stdout" : "stderr");
  }
}

/** The core runtime abilities backed by Deno. */
export const denoCore: CoreRuntime = {
  name: "deno",
  version: Deno.version.deno,
  args: () => [...Deno.args],
  env: () => Deno.env.toObject(),
  exit: (code) => Deno.exit(code),
  cwd: () => Deno.cwd(),
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
  outputIsTerminal: () => Deno.stdout.isTerminal(),
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
  lstat(path) {
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch (error) {
      // Deno's errors name the errno in their code (NotFound: "ENOENT"), as node:fs does.
      const code = (error as { code?: string }).code ?? "EIO";
      throw Object.assign(new Error(`${code}: lstat ${path}`), { code });
    }
    const kind = info.isFile
      ? "file"
      : info.isDirectory
      ? "directory"
      : info.isSymlink
      ? "symlink"
      : info.isSocket
      ? "socket"
      : "other";
    return { kind, uid: info.uid ?? 0, mode: (info.mode ?? 0) & 0o7777 };
  },
  // A `deno compile` binary reads its files from the real paths it was built from.
  embeddedFile: () => Promise.resolve(null),
  selfCommand: () => [Deno.execPath(), "run", "--allow-all", new URL(Deno.mainModule).pathname],
  connectUnix,
};
