/**
 * The MCP tools' view of the sessions: a default session started on first
 * use, "disposed" sessions, the command tool's semantics, recording into a
 * directory and closing sessions left idle.
 * @module
 */

import { join } from "node:path";
import type { SessionManager } from "../sessions/manager.ts";
import type { Session, SessionInfo } from "../sessions/session.ts";
import type { WaitResult } from "../sessions/waits.ts";
import { TerminalDisposedError } from "../terminal/errors.ts";
import { isKeyName } from "../terminal/keys.ts";
import { runtime } from "../runtime/mod.ts";
import { defaultRecordingsDir, Recordings } from "./recordings.ts";
import { DEFAULT_RESULT_LIMIT } from "./result_size.ts";

/** The session tools use when none is named (also the command tool's default terminal_id). */
export const DEFAULT_SESSION = "default";

/** What the command tool returns (seed 003's fields). */
export interface ExecuteResult {
  content: string;
  exit_code: number | null;
  command: string;
  terminal_id: string;
  status: "completed" | "running";
  working_dir: string;
  /** How completion was detected: shell integration, or the screen settling. */
  completion: string;
  /** Set when the command line ended the session's shell itself (`exit 3`, `set -e; false`): says so. */
  shell_exited?: string;
}

/** What the command tool takes (seed 003's parameters). */
export interface ExecuteArgs {
  command: string;
  is_input?: boolean;
  no_enter?: boolean;
  timeout?: number;
  terminal_id?: string;
}

/** Waits for `promise` to settle, or throws the abort reason once `signal` is aborted. */
async function untilAborted(promise: Promise<unknown>, signal?: AbortSignal): Promise<void> {
  if (signal === undefined) {
    await promise;
    return;
  }
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** Options of the session tools. */
export interface SessionToolsOptions {
  /** Directory to record every session into, or undefined. */
  recordDir?: string;
  /** Close sessions unused for this many milliseconds (0: never). */
  idleTimeoutMs?: number;
  /** Working directory of the sessions these tools open (default: the manager's). */
  cwd?: string;
  /** Most sessions open at once (what listSessions reports; the manager enforces it). */
  maxSessions?: number;
  /** Most bytes of text one tool result carries (default 100 KB). */
  resultLimit?: number;
  /** Default directory of startRecording (default: `recordDir`, else the state directory's). */
  recordingsDir?: string;
}

/** What createSession answers (Terminal MCP's fields). */
export interface CreatedSession {
  sessionId: string;
  shell: string;
  cols: number;
  rows: number;
  cwd: string;
  createdAt: string;
}

/** The longest a command-tool call waits, in seconds (seed 003: "CAPPED AT 60 SECONDS"). */
export const MAX_WAIT_SECONDS = 60;

/** Sessions as the MCP tools use them. */
export class SessionTools {
  readonly #manager: SessionManager;
  readonly #options: SessionToolsOptions;
  readonly #disposed = new Set<string>();
  readonly #lastUse = new Map<string, number>();
  /** Per terminal, when its last terminal_execute call is over (see `execute`). */
  readonly #turns = new Map<string, Promise<unknown>>();
  readonly recordings: Recordings;
  #reaper: ReturnType<typeof setInterval> | undefined;

  constructor(manager: SessionManager, options: SessionToolsOptions = {}) {
    this.#manager = manager;
    this.#options = options;
    this.recordings = new Recordings(
      options.recordingsDir ?? options.recordDir ?? defaultRecordingsDir(runtime.env()),
    );
    const idle = options.idleTimeoutMs ?? 0;
    if (idle > 0) {
      this.#reaper = setInterval(() => void this.#closeIdle(idle), Math.min(idle, 60_000));
    }
  }

  /** Most bytes of text one tool result carries. */
  get resultLimit(): number {
    return this.#options.resultLimit ?? DEFAULT_RESULT_LIMIT;
  }

  /** Most sessions open at once, or null for no limit. */
  get maxSessions(): number | null {
    return this.#options.maxSessions ?? null;
  }

  /** Seconds after which unused sessions are closed (0: never). */
  get idleTimeoutSeconds(): number {
    return (this.#options.idleTimeoutMs ?? 0) / 1000;
  }

  /**
   * A session to read from: the named one, or the default one (started with
   * the defaults on first use, as seed 003's terminal is). A named session
   * nobody opened is started only with `create` (the command tool, whose
   * terminal_id opens a shell on first use); otherwise an unknown name is an
   * error naming the open sessions, so that a typo never starts a shell.
   * @throws {TerminalDisposedError} when it was closed
   * @throws {SessionNotFoundError} for an unknown name without `create`
   */
  async readable(name: string | undefined, options: { create?: boolean } = {}): Promise<Session> {
    const key = name ?? DEFAULT_SESSION;
    if (this.#disposed.has(key)) {
      throw new TerminalDisposedError(
        `session "${key}" was closed; openSession {"name": "${key}"} opens a new one`,
      );
    }
    const create = options.create === true || name === undefined || name === DEFAULT_SESSION;
    const session = create ? await this.#getOrOpen(key) : this.#manager.get(key);
    this.#lastUse.set(key, performance.now());
    return session;
  }

  /**
   * A session to send input to: as `readable`, and its program still running.
   * @throws {TerminalDisposedError} when it was closed or its program exited
   */
  async live(name: string | undefined, options: { create?: boolean } = {}): Promise<Session> {
    const session = await this.readable(name, options);
    const status = session.terminal.exitStatus;
    if (status !== null) {
      const how = status.signal
        ? `killed by ${status.signal}`
        : `exited with code ${status.exitCode}`;
      throw new TerminalDisposedError(
        `its program ${how}; closeSession {"name": "${session.name}"} then openSession {"name": "${session.name}"} starts a new one`,
      );
    }
    return session;
  }

  /**
   * The command tool: run, collect, or send input, as seed 003 describes.
   * Calls on one terminal run in the order they came, each after the one
   * before returned (a client's parallel tool calls, as typed one after the
   * other); a call cancelled while it waits never runs.
   */
  async execute(args: ExecuteArgs, signal?: AbortSignal): Promise<ExecuteResult> {
    const id = args.terminal_id ?? DEFAULT_SESSION;
    const before = this.#turns.get(id) ?? Promise.resolve();
    const turn = (async () => {
      await untilAborted(before, signal);
      return await this.#execute(id, args, signal);
    })();
    const done = Promise.allSettled([before, turn]);
    this.#turns.set(id, done);
    void done.then(() => {
      if (this.#turns.get(id) === done) this.#turns.delete(id);
    });
    return await turn;
  }

  async #execute(id: string, args: ExecuteArgs, signal?: AbortSignal): Promise<ExecuteResult> {
    const session = args.command === ""
      ? await this.readable(id, { create: true })
      : await this.live(id, { create: true });
    // Seed 003: the timeout is capped, so a longer one means the longest, not an error.
    const timeoutMs = Math.min(args.timeout ?? 30, MAX_WAIT_SECONDS) * 1000;
    const keyWhileRunning = session.running !== null && args.command.length > 1 &&
      isKeyName(args.command);
    const result = args.is_input || args.no_enter || keyWhileRunning
      ? await session.input(args.command, { enter: !args.no_enter, timeoutMs, signal })
      : await session.exec(args.command, timeoutMs, signal);
    return {
      content: result.output,
      exit_code: result.exitCode,
      command: args.command,
      terminal_id: id,
      status: result.status,
      working_dir: result.cwd,
      completion: result.completion,
      ...(result.shellExited === undefined ? {} : { shell_exited: result.shellExited }),
    };
  }

  /** The wait tool. */
  async wait(args: {
    text?: string;
    regex?: string;
    gone?: boolean;
    idle_ms?: number;
    prompt?: boolean;
    exit?: boolean;
    timeout?: number;
    session?: string;
  }, signal?: AbortSignal): Promise<WaitResult> {
    const session = await this.readable(args.session);
    const { text, regex, gone, idle_ms, prompt, exit } = args;
    return await session.wait(
      { text, regex, gone, idleMs: idle_ms, prompt, exit },
      (args.timeout ?? 10) * 1000,
      signal,
    );
  }

  /** Opens a named session (a name that was closed can be opened again). */
  async open(
    args: { name: string; program?: string[]; cwd?: string; cols?: number; rows?: number },
  ): Promise<SessionInfo> {
    this.#disposed.delete(args.name);
    const session = await this.#manager.open({
      ...args,
      cwd: args.cwd ?? this.#options.cwd,
      record: this.#recordPath(args.name),
      recordConfigured: true,
    });
    this.#lastUse.set(args.name, performance.now());
    return session.info();
  }

  /**
   * createSession: opens a session under a new short id (as Terminal MCP
   * does), running `shell` or the default program.
   */
  async create(args: { shell?: string; cols?: number; rows?: number }): Promise<CreatedSession> {
    let id: string;
    do {
      id = crypto.randomUUID().slice(0, 5);
    } while (this.#manager.has(id) || this.#disposed.has(id));
    const info = await this.open({
      name: id,
      program: args.shell === undefined ? undefined : [args.shell],
      cols: args.cols,
      rows: args.rows,
    });
    return {
      sessionId: id,
      shell: info.program[0],
      cols: info.cols,
      rows: info.rows,
      cwd: info.cwd,
      createdAt: new Date().toISOString(),
    };
  }

  /** destroySession: closes a session; an unknown one is `success: false`, as Terminal MCP says. */
  async destroy(id: string): Promise<{ success: boolean; message: string }> {
    if (!this.#manager.has(id)) return { success: false, message: `Session '${id}' not found` };
    await this.close(id);
    return { success: true, message: `Session '${id}' destroyed` };
  }

  /** Closes a session; tools naming it then report it disposed. */
  async close(name: string): Promise<void> {
    await this.#manager.close(name);
    this.#disposed.add(name);
    this.#lastUse.delete(name);
  }

  list(): SessionInfo[] {
    return this.#manager.list();
  }

  /** Stops the idle reaper and closes every session. */
  async closeAll(): Promise<void> {
    clearInterval(this.#reaper);
    this.recordings.stopAll();
    await this.#manager.closeAll();
  }

  #getOrOpen(name: string): Promise<Session> {
    return this.#manager.getOrOpen(name, {
      cwd: this.#options.cwd,
      record: this.#recordPath(name),
      recordConfigured: true,
    });
  }

  #recordPath(name: string): string | undefined {
    if (this.#options.recordDir === undefined) return undefined;
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    return join(this.#options.recordDir, `${name}-${stamp}.cast`);
  }

  async #closeIdle(idleMs: number): Promise<void> {
    const now = performance.now();
    for (const info of this.#manager.list()) {
      const used = this.#lastUse.get(info.name) ?? 0;
      if (now - used > idleMs && info.idleMs > idleMs && info.running === null) {
        await this.close(info.name).catch(() => {}); // Closed meanwhile.
      }
    }
  }
}
