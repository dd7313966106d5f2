/**
 * Pseudo-terminals on top of libc, for both runtimes: the master is opened
 * here, the child is started by the runtime's own process spawn through
 * `setsid`, and one worker (`pty_reader.ts`) polls and reads every master. Each
 * terminal costs two descriptors in termbridge: its master, and the
 * runtime's handle on the child (a pidfd).
 * @module
 */

import { afterExit } from "./exit_drain.ts";
import {
  type FileLimit,
  isTooManyOpenFiles,
  RLIMIT_NOFILE,
  rlimitStruct,
  TOO_MANY_OPEN_FILES,
  TooManyOpenFilesError,
} from "./file_limit.ts";
import { type Libc, O_CLOEXEC, O_NOCTTY, O_NONBLOCK, O_RDWR, TIOCSWINSZ } from "./libc.ts";
import { nodeFs } from "./node_fs.ts";
import { PtyReader, type ReaderStart } from "./pty_reader.ts";
import type { ExitStatus, PtyProcess, PtySpawnOptions } from "./types.ts";

const encoder = new TextEncoder();

/** Opens a new PTY master (non-blocking, close-on-exec) and returns its fd and slave path. */
function openPtyMaster(libc: Libc): { fd: number; slavePath: string } {
  const fd = libc.open(
    encoder.encode("/dev/ptmx\0"),
    O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
    0,
  );
  if (fd < 0) throw new Error(`Cannot open /dev/ptmx: errno ${libc.errno()}`);
  const name = new Uint8Array(256);
  if (libc.grantpt(fd) !== 0 || libc.unlockpt(fd) !== 0 || libc.ptsname_r(fd, name, 256) !== 0) {
    const code = libc.errno();
    libc.close(fd);
    throw new Error(`Cannot set up a pseudo-terminal: errno ${code}`);
  }
  const slavePath = new TextDecoder().decode(name.subarray(0, name.indexOf(0)));
  return { fd, slavePath };
}

/** Sets the window size of a terminal fd. */
function setWindowSize(libc: Libc, fd: number, cols: number, rows: number): void {
  const winsize = new Uint16Array([rows, cols, 0, 0]);
  libc.ioctl(fd, TIOCSWINSZ, new Uint8Array(winsize.buffer));
}

/** The open-files limits (raising the soft one to the hard one first when `raise`). */
export function fileLimit(libc: Libc, raise = false): FileLimit | undefined {
  const limits = rlimitStruct.create();
  const bytes = new Uint8Array(limits.buffer);
  if (libc.getrlimit(RLIMIT_NOFILE, bytes) !== 0) return undefined;
  if (raise && limits[0] < limits[1]) {
    limits[0] = limits[1];
    libc.setrlimit(RLIMIT_NOFILE, bytes);
    libc.getrlimit(RLIMIT_NOFILE, bytes);
  }
  return rlimitStruct.read(limits);
}

let setsid: string | undefined;

/** util-linux `setsid`, found on the first spawn (not at start-up: see node_fs.ts). */
const setsidPath = () =>
  setsid ??= ["/usr/bin/setsid", "/bin/setsid"].find((path) => nodeFs().existsSync(path)) ??
    "setsid";

/**
 * The child is started by util-linux `setsid`, a new session, whose `/bin/sh`
 * opens the slave side as stdio: on Linux, the first terminal a session
 * leader opens (without O_NOCTTY, as shells open redirections) becomes its
 * controlling terminal, and its group the foreground group. The shell then
 * execs the program; every exec keeps the pid, so the pid is the program's.
 * With `stdin: "null"` the shell puts stdin back on /dev/null after opening
 * the terminal, in the same step. termbridge itself never holds the slave.
 * The terminal is opened read-write once (`<>`) and that one file is
 * stdin, stdout and stderr, as login(1) and every terminal emulator give it:
 * a program may write to fd 0 or read fd 2 (tmux hands its client's stdin to
 * the server, which draws on it: opened read-only it drew nothing).
 */
const LAUNCHER = 'exec "$@" <>"$0" >&0 2>&0';
const LAUNCHER_STDIN_AT_EOF = 'exec "$@" <>"$0" >&0 2>&0 </dev/null';

/** A child the runtime started with its stdio on /dev/null. */
export interface LaunchedProcess {
  pid: number;
  status: Promise<ExitStatus>;
}

/** The runtime's own process spawn: `argv` with this environment only, stdio on /dev/null. */
export type Launch = (
  argv: string[],
  cwd: string | undefined,
  env: Record<string, string>,
) => LaunchedProcess;

/** Starts programs in pseudo-terminals with one libc binding and one process spawn. */
export class PtySpawner {
  #libc: Libc;
  #launch: Launch;
  #startReader: ReaderStart;
  #poller: PtyReader | undefined;

  /** `startReader` says how the runtime's worker that reads the masters starts (`pty_reader.ts`). */
  constructor(libc: Libc, launch: Launch, startReader: ReaderStart) {
    this.#libc = libc;
    this.#launch = launch;
    this.#startReader = startReader;
  }

  /** See `Runtime.spawnPty`. */
  spawn(options: PtySpawnOptions): PtyProcess {
    const libc = this.#libc;
    let poller: PtyReader;
    let master: { fd: number; slavePath: string };
    try {
      poller = this.#poller ??= new PtyReader(libc, this.#startReader);
      master = openPtyMaster(libc);
    } catch (error) {
      throw this.#explain(error);
    }
    const { fd, slavePath } = master;
    setWindowSize(libc, fd, options.cols, options.rows);
    let child: LaunchedProcess;
    try {
      const launcher = options.stdin === "null" ? LAUNCHER_STDIN_AT_EOF : LAUNCHER;
      child = this.#launch(
        [setsidPath(), "/bin/sh", "-c", launcher, slavePath, ...options.argv],
        options.cwd,
        options.env,
      );
    } catch (error) {
      libc.close(fd);
      throw this.#explain(error);
    }
    let outputEnded!: () => void;
    const ended = new Promise<void>((resolve) => outputEnded = resolve);
    poller.add(fd, options.onData, outputEnded);
    let closed = false;
    return {
      pid: child.pid,
      exited: afterExit(child.status, ended),
      write: (data) => poller.write(fd, data),
      resize: (cols, rows) => {
        if (!closed) setWindowSize(libc, fd, cols, rows); // After close the number may be another file's.
      },
      close: async () => {
        if (closed) return;
        closed = true;
        await poller.close(fd);
        await child.status;
      },
    };
  }

  /** A failure for lack of file descriptors said as such; others unchanged. */
  #explain(error: unknown): unknown {
    return isTooManyOpenFiles(error, fileLimit(this.#libc))
      ? new TooManyOpenFilesError(TOO_MANY_OPEN_FILES)
      : error;
  }
}
