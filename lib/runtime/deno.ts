/**
 * The runtime shim for Deno.
 * @module
 */

import { connectUnix } from "./node_unix.ts";
import { closeOnExec, libc } from "./deno_libc.ts";
import { denoReader } from "./deno_pty_reader.ts";
import { listenUnix } from "./deno_listen.ts";
import { BrokenPipeError } from "./errors.ts";
import { serveHttp } from "./deno_http.ts";
import { orderedWriter } from "./ordered_writer.ts";
import { fileLimit, type LaunchedProcess, PtySpawner } from "./pty.ts";
import type {
  ExitStatus,
  PipedProcess,
  PipedSpawnOptions,
  Runtime,
  ShutdownSignal,
} from "./types.ts";

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
  spawnPty: (options) => ptys.spawn(options),
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
  raiseFileLimit: () => fileLimit(libc, true),
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
  listenUnix,
  serveHttp,
};
