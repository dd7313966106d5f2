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
}

/** Options of the session tools. */
export interface SessionToolsOptions {
  /** Directory to record every session into, or undefined. */
  recordDir?: string;
  /** Close sessions unused for this many milliseconds (0: never). */
  idleTimeoutMs?: number;
  /** Working directory of the sessions these tools open (default: the manager's). */
  cwd?: string;
}

/** Sessions as the MCP tools use them. */
export class SessionTools {
  readonly #manager: SessionManager;
  readonly #options: SessionToolsOptions;
  readonly #disposed = new Set<string>();
  readonly #lastUse = new Map<string, number>();
  #reaper: ReturnType<typeof setInterval> | undefined;

  constructor(manager: SessionManager, options: SessionToolsOptions = {}) {
    this.#manager = manager;
    this.#options = options;
    const idle = options.idleTimeoutMs ?? 0;
    if (idle > 0) {
      this.#reaper = setInterval(() => void this.#closeIdle(idle), Math.min(idle, 60_000));
    }
  }

  /**
   * A session to read from: the named one (default "default"), started with
   * the defaults on first use, as seed 003's terminal_id is.
   * @throws {TerminalDisposedError} when it was closed
   */
  async readable(name: string | undefined): Promise<Session> {
    const key = name ?? DEFAULT_SESSION;
    this.#lastUse.set(key, performance.now());
    if (this.#disposed.has(key)) throw new TerminalDisposedError();
    return await this.#getOrOpen(key);
  }

  /**
   * A session to send input to: as `readable`, and its program still running.
   * @throws {TerminalDisposedError} when it was closed or its program exited
   */
  async live(name: string | undefined): Promise<Session> {
    const session = await this.readable(name);
    const status = session.terminal.exitStatus;
    if (status !== null) {
      const how = status.signal
        ? `killed by ${status.signal}`
        : `exited with code ${status.exitCode}`;
      throw new TerminalDisposedError(`its program ${how}; close it and open a new one`);
    }
    return session;
  }

  /** The command tool: run, collect, or send input, as seed 003 describes. */
  async execute(args: {
    command: string;
    is_input?: boolean;
    no_enter?: boolean;
    timeout?: number;
    terminal_id?: string;
  }, signal?: AbortSignal): Promise<ExecuteResult> {
    const id = args.terminal_id ?? DEFAULT_SESSION;
    const session = args.command === "" ? await this.readable(id) : await this.live(id);
    const timeoutMs = (args.timeout ?? 30) * 1000;
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
    });
    this.#lastUse.set(args.name, performance.now());
    return session.info();
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
    await this.#manager.closeAll();
  }

  #getOrOpen(name: string): Promise<Session> {
    return this.#manager.getOrOpen(name, {
      cwd: this.#options.cwd,
      record: this.#recordPath(name),
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
