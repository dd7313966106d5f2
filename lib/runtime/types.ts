/**
 * The contract between termbridge and the JavaScript runtime it runs on.
 *
 * Everything that needs `Deno.*` or `Bun.*` is behind these interfaces; the
 * implementations live in `deno.ts` and `bun.ts` and `mod.ts` picks one once.
 * @module
 */

import type { FileLimit } from "./file_limit.ts";

export type { FileLimit };

/** How a process ended: a normal exit has a code, a signal death has a signal name. */
export interface ExitStatus {
  /** The exit code, or `null` when the process was killed by a signal. */
  exitCode: number | null;
  /** The signal name (`"SIGTERM"`), or `null` for a normal exit. */
  signal: string | null;
}

/** What to start in a pseudo-terminal. */
export interface PtySpawnOptions {
  /** Program and arguments; `argv[0]` is looked up on `PATH`. */
  argv: string[];
  /** Working directory (absolute); defaults to the current one. */
  cwd?: string;
  /** The complete environment of the child (not merged with anything). */
  env: Record<string, string>;
  /** Width in columns. */
  cols: number;
  /** Height in rows. */
  rows: number;
  /**
   * `"terminal"` (the default): stdin is the PTY, as for a person.
   * `"null"`: stdin is /dev/null, so a program that reads it gets end of file
   * at once, while stdout and stderr stay the terminal.
   */
  stdin?: "terminal" | "null";
  /**
   * Receives every output byte, in order. Called synchronously from the read
   * loop: while it runs, nothing more is read from the PTY, so a slow consumer
   * slows the writer (the kernel buffer fills) instead of growing memory.
   * `bytes` is a view of the read buffer, valid only during the call (the
   * next read reuses it): copy what you keep. `more` says that the
   * reader was behind this terminal's output (a flood: a large chunk of it
   * was waiting), so that more probably follows at once: work the next
   * bytes may make unneeded can wait for them.
   */
  onData: (bytes: Uint8Array, more: boolean) => void;
}

/** A process running in a pseudo-terminal it leads as a session. */
export interface PtyProcess {
  /** Process id; also the id of its process group and session. */
  readonly pid: number;
  /**
   * Resolves once the process has exited AND every byte it wrote has been
   * passed to `onData`.
   */
  readonly exited: Promise<ExitStatus>;
  /** Writes bytes to the terminal (what a keyboard would send). */
  write(data: Uint8Array): void;
  /** Changes the window size; the program gets SIGWINCH. */
  resize(cols: number, rows: number): void;
  /**
   * Releases the PTY. Call after `exited` resolved (or after killing the
   * process group); it never leaves a pending read behind.
   */
  close(): Promise<void>;
}

/** A process with plain pipes for stdio (no terminal). */
export interface PipedProcess {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array> | null;
  readonly exited: Promise<ExitStatus>;
}

/** What to start with pipes. */
export interface PipedSpawnOptions {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** `"pipe"` to read stderr, `"inherit"` to pass it through (the default). */
  stderr?: "pipe" | "inherit";
  /**
   * Starts the child in a session of its own (setsid): it has no controlling
   * terminal (nothing it runs can open /dev/tty or type into the terminal
   * with TIOCSTI) and the terminal's signals (Ctrl+C, hang-up) do not reach it.
   */
  newSession?: boolean;
  /** The child does not keep termbridge running (a watchdog meant to outlive it). */
  unref?: boolean;
}

/** What lstat(2) says of a path (a symbolic link is not followed). */
export interface PathInfo {
  kind: "file" | "directory" | "symlink" | "socket" | "other";
  /** The owner's user id. */
  uid: number;
  /** The permission bits with setuid, setgid and sticky (`mode & 0o7777`). */
  mode: number;
}

/** Signals termbridge reacts to for a clean shutdown. */
export type ShutdownSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** The runtime abilities termbridge uses. */
export interface Runtime {
  /** `"deno"` or `"bun"`. */
  readonly name: "deno" | "bun";
  /** The runtime's own version string. */
  readonly version: string;
  /** Command-line arguments after the script (or the compiled binary). */
  args(): string[];
  /** The whole environment. */
  env(): Record<string, string>;
  /** Ends the process. Only `main.ts` calls this. */
  exit(code: number): never;
  /** The current working directory. */
  cwd(): string;
  /** Starts a program in a new pseudo-terminal. */
  spawnPty(options: PtySpawnOptions): PtyProcess;
  /** Starts a program with pipes. */
  spawnPiped(options: PipedSpawnOptions): PipedProcess;
  /** Sends a signal to a process, or to a process group when `pid` is negative. Returns false when no such process exists. */
  kill(pid: number, signal: string): boolean;
  /** termbridge's own standard input as a stream of bytes. */
  stdin(): ReadableStream<Uint8Array>;
  /**
   * Writes to termbridge's standard output. Writes happen in call order; the
   * promise resolves once this write and every earlier one are done, so
   * `await writeStdout("")` flushes.
   */
  writeStdout(data: Uint8Array | string): Promise<void>;
  /** Writes to termbridge's standard error. */
  writeStderr(data: Uint8Array | string): Promise<void>;
  /** Whether a standard stream is a terminal. */
  isTerminal(stream: "stdin" | "stdout" | "stderr"): boolean;
  /**
   * Whether stdout is a terminal, for a short-lived command choosing how to
   * print: unlike `isTerminal`, it leaves Node's streams alone (making
   * them costs a Bun process a few ms; a mode that uses them asks `isTerminal`).
   */
  outputIsTerminal(): boolean;
  /** Switches termbridge's stdin terminal into or out of raw mode. */
  setRawMode(enabled: boolean): void;
  /** Size of termbridge's own terminal, or null when stdout is not one. */
  consoleSize(): { cols: number; rows: number } | null;
  /** Registers a handler for a shutdown signal; returns a function that removes it. */
  onSignal(signal: ShutdownSignal, handler: () => void): () => void;
  /**
   * lstat(2) of `path`, without loading node:fs (which costs a short-lived
   * command several ms at start-up in the compiled binary).
   * @throws {Error} whose `code` is the errno's name ("ENOENT") when it fails
   */
  lstat(path: string): PathInfo;
  /** Resident set size of this process in bytes. */
  memoryRss(): number;
  /**
   * Raises the soft open-files limit to the hard one, as servers do at
   * start-up; returns the limits in force, or undefined when they cannot be read.
   */
  raiseFileLimit(): FileLimit | undefined;
  /**
   * A file embedded in the compiled executable (`bun build --compile` with the
   * file as an extra entry point), by its file name; null when not running as
   * such an executable or when no such file is embedded.
   */
  embeddedFile(name: string): Promise<Uint8Array | null>;
  /**
   * Argv that starts termbridge again the way this process was started (the
   * compiled binary, or the runtime with main.ts), for a process it spawns of
   * itself (the session server).
   */
  selfCommand(): string[];
  /**
   * Connects to a Unix stream socket with the runtime's own (fastest to load)
   * client; `events` get what is read and the end.
   * @throws {Error} with `code` ENOENT or ECONNREFUSED when nobody listens there
   */
  connectUnix(path: string, events: UnixEvents): Promise<UnixConnection>;
  /**
   * Listens on a Unix stream socket at `path` (nothing may be there) with the
   * runtime's own server (Bun.listen, Deno.listen): lighter per connection
   * than node:net. Each accepted connection goes to `accept`, paused.
   * @throws {Error} with `code` EADDRINUSE when something is at `path`
   */
  listenUnix(path: string, accept: (connection: ServedConnection) => void): Promise<UnixListener>;
  /**
   * Serves HTTP and WebSocket connections (Deno.serve, Bun.serve).
   * @throws {Error} when the address cannot be bound (in use, not local)
   */
  serveHttp(options: HttpServeOptions): Promise<HttpServer>;
}

/** What a Unix socket connection reports. */
export interface UnixEvents {
  /** Bytes read (a copy the listener may keep). */
  data(chunk: Uint8Array): void;
  /** The connection ended: the peer closed it, or `error` broke it. Called once. */
  close(error?: Error): void;
}

/** A connected Unix stream socket. */
export interface UnixConnection {
  /** Queues bytes to write, in order; dropped once the connection ended. */
  write(data: string | Uint8Array): void;
  /** Closes the connection once what was queued is written. */
  end(): void;
}

/** A Unix socket server listening. */
export interface UnixListener {
  /** Stops accepting connections (those accepted stay open); the socket file may be removed. */
  close(): void;
}

/**
 * A connection a Unix socket server accepted: bytes both ways, half-open
 * (after the peer ends its side, what is written still goes out).
 */
export interface ServedConnection {
  /**
   * `data`: bytes read (a copy the listener may keep), only while not paused
   * (resumed with no `data` listener, they are dropped);
   * `end`: the peer ended its side (after its last `data`); `drain`: written
   * bytes were handed to the kernel (`unsentBytes` went down); `close`: the
   * connection is gone (both sides ended, an error, `destroy`), once.
   */
  on(event: "data", listener: (chunk: Uint8Array) => void): void;
  on(event: "end" | "drain" | "close", listener: () => void): void;
  off(event: "data", listener: (chunk: Uint8Array) => void): void;
  off(event: "end" | "drain" | "close", listener: () => void): void;
  /** Queues bytes to write, in order; dropped once the connection closed or ended. */
  write(data: string | Uint8Array): void;
  /** Bytes written and not yet handed to the kernel. */
  readonly unsentBytes: number;
  /** Resolves once every byte written so far was handed to the kernel, or the connection closed. */
  flushed(): Promise<void>;
  /** Whether the connection closed: nothing more is read or written. */
  readonly closed: boolean;
  /** Whether `end` was called or the connection closed: nothing more may be written. */
  readonly ended: boolean;
  /** Stops reading from the socket (a new connection starts paused). */
  pause(): void;
  /** Reads again; what was read while paused is passed on first. */
  resume(): void;
  /** Ends this side once what was written is sent; the connection closes when the peer ends too. */
  end(): void;
  /** Closes the connection now; what was not handed to the kernel is dropped. */
  destroy(): void;
}

/** A WebSocket connection the HTTP server accepted. */
export interface ServerWebSocket {
  /** Queues a text or binary message; dropped once the socket closed. */
  send(data: string | Uint8Array): void;
  /** Bytes queued and not yet handed to the network (the sender's flow control). */
  bufferedAmount(): number;
  /** Closes the connection. */
  close(code?: number, reason?: string): void;
}

/** What a WebSocket connection reports. */
export interface WebSocketEvents {
  /** The connection is open: messages may be sent. */
  open(socket: ServerWebSocket): void;
  /** A message arrived (text as a string, binary as bytes). */
  message(data: string | Uint8Array): void;
  /** The connection ended. Called once. */
  close(): void;
}

/**
 * Answers one HTTP request. `upgrade` turns the request into a WebSocket
 * connection reporting to `events`; the handler returns what it returns.
 */
export type HttpHandler = (
  request: Request,
  upgrade: (events: WebSocketEvents) => Response,
) => Response | Promise<Response>;

/** Where and how an HTTP server listens. */
export interface HttpServeOptions {
  /** The address to bind ("127.0.0.1"). */
  hostname: string;
  /** The port, 0 for any free one. */
  port: number;
  handler: HttpHandler;
}

/** A listening HTTP server. */
export interface HttpServer {
  /** The port it listens on (the one chosen, when 0 was asked). */
  readonly port: number;
  /**
   * Stops listening, closes every WebSocket, lets responses whose body has
   * ended finish sending (a second at most), then closes every connection.
   */
  close(): Promise<void>;
}

/**
 * What every command needs of the runtime (see `Runtime`): without PTYs,
 * piped processes, the file limit and servers, so that a short-lived command
 * loads none of their code (lib/runtime/core.ts).
 */
export type CoreRuntime = Omit<
  Runtime,
  "spawnPty" | "spawnPiped" | "raiseFileLimit" | "listenUnix" | "serveHttp"
>;
