/**
 * The named sessions of one termbridge process: open, find, list, close.
 * @module
 */

import { resolve } from "node:path";
import { runtime } from "../runtime/mod.ts";
import { SessionConflictError, SessionNotFoundError, SessionUsageError } from "./errors.ts";
import type { Guard } from "../safety/guard.ts";
import { Session, type SessionInfo, type SessionOptions } from "./session.ts";
import {
  idleHit,
  type LimitHit,
  type Limits,
  type SandboxSettings,
  TerminalBudget,
  writeRoots,
} from "../sandbox/mod.ts";
import type { WriteAccess } from "./session_types.ts";

/** Settings shared by every session a manager opens. */
export interface SessionDefaults {
  /** Program of sessions opened without one (default: the user's shell). */
  program?: string[];
  cwd?: string;
  cols?: number;
  rows?: number;
  scrollback?: number;
  env?: Record<string, string>;
  /** Most sessions open at once. */
  maxSessions?: number;
  /** The sandbox every session's program runs in (default: off). */
  sandbox?: SandboxSettings;
  /** `limits` of the configuration (terminals, commandSeconds, cpuSeconds, memoryBytes, processes). */
  limits?: Limits;
  /** Places for running terminals, shared with the terminal service; by default its own. */
  budget?: TerminalBudget;
  /** Close a session nobody used and nothing ran in for this many seconds (0: never). */
  idleTimeoutSeconds?: number;
  /** Told of every limit a session hits, the idle timeout included (for the audit log). */
  onLimit?: (session: string, hit: LimitHit) => void;
  /** Policy, approvals and audit of every session's program, exec and input. */
  guard?: Guard;
  /** Milliseconds a new session's shell may take to show its first prompt. */
  startTimeoutMs?: number;
}

const NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A recording a session of this manager made. */
export interface RecordingInfo {
  /** The asciicast file. */
  path: string;
  /** The session it recorded. */
  session: string;
  /** When it started, milliseconds since the epoch. */
  startedAt: number;
}

/** Most recordings remembered (the oldest are forgotten first). */
const MAX_RECORDINGS = 200;

/** Named sessions, opened with shared defaults. */
export class SessionManager {
  readonly #sessions = new Map<string, Session>();
  readonly #opening = new Map<string, Promise<Session>>();
  /** Closes under way (the idle reaper's included), for closeAll to wait for. */
  readonly #closing = new Set<Promise<void>>();
  readonly #defaults: SessionDefaults;
  readonly #budget: TerminalBudget;
  readonly #lastUse = new Map<string, number>();
  /** Why a session that is gone went (the idle timeout), for the next request naming it. */
  readonly #gone = new Map<string, string>();
  #reaper: ReturnType<typeof setInterval> | undefined;
  readonly #recordings: RecordingInfo[] = [];

  constructor(defaults: SessionDefaults = {}) {
    this.#defaults = defaults;
    this.#budget = defaults.budget ?? new TerminalBudget(defaults.limits?.terminals ?? 0);
  }

  /**
   * Opens a session.
   * @throws {SessionUsageError} for a bad name
   * @throws {SessionConflictError} when the name is taken or too many sessions are open
   */
  async open(options: SessionOptions): Promise<Session> {
    const { name } = options;
    if (!NAME.test(name)) {
      throw new SessionUsageError(
        `Cannot open session ${JSON.stringify(name)}: a name is 1-64 letters, digits or _ . : -`,
      );
    }
    if (this.#sessions.has(name) || this.#opening.has(name)) {
      throw new SessionConflictError(
        `Cannot open session "${name}": a session with that name is open`,
      );
    }
    const max = this.#defaults.maxSessions ?? Infinity;
    if (this.#sessions.size + this.#opening.size >= max) {
      throw new SessionConflictError(
        `Cannot open session "${name}": ${max} sessions are open, the most allowed`,
      );
    }
    const giveBack = this.#budget.take(`session "${name}"`);
    const {
      maxSessions: _max,
      budget: _budget,
      idleTimeoutSeconds: _idle,
      onLimit,
      ...defaults
    } = this.#defaults;
    const opening = Session.open({
      ...defaults,
      ...withoutUndefined(options),
      name,
      onLimit: (hit) => this.#limitHit(name, hit, onLimit),
      onRecord: (path) => this.#recorded(name, path),
      // The manager's guard wins: a request's own options can never remove it.
      guard: this.#defaults.guard ?? options.guard,
      // So does its sandbox, whose workspace is the manager's directory, not a request's cwd.
      sandbox: this.#sandbox() ?? options.sandbox,
      // Recordings go where the mode's fs/write_text_file may write, whatever the request's cwd.
      writeAccess: this.#writeAccess(),
    });
    this.#opening.set(name, opening);
    try {
      const session = await opening;
      this.#sessions.set(name, session);
      this.#gone.delete(name);
      this.#used(name);
      void session.terminal.wait().then(giveBack);
      return session;
    } catch (error) {
      giveBack();
      throw error;
    } finally {
      this.#opening.delete(name);
    }
  }

  /** The sessions' sandbox, its workspace the default working directory (see SandboxSettings). */
  #sandbox(): SandboxSettings | undefined {
    const { sandbox, cwd } = this.#defaults;
    return sandbox && { workspace: resolve(cwd ?? runtime.cwd()), ...sandbox };
  }

  /** Where every session's recordings may be written: the manager's cwd, environment and sandbox. */
  #writeAccess(): WriteAccess {
    const cwd = this.#defaults.cwd ?? runtime.cwd();
    return {
      cwd,
      env: { ...runtime.env(), ...this.#defaults.env },
      writeRoots: writeRoots(this.#sandbox(), cwd),
    };
  }

  /**
   * The session called `name`.
   * @throws {SessionNotFoundError} naming the sessions that exist
   */
  get(name: string): Session {
    const session = this.#sessions.get(name);
    if (session !== undefined) {
      this.#used(name);
      return session;
    }
    const gone = this.#gone.get(name);
    if (gone !== undefined) {
      throw new SessionNotFoundError(`No session is called "${name}": ${gone}`);
    }
    const open = [...this.#sessions.keys()].map((n) => `"${n}"`).join(", ") || "none";
    throw new SessionNotFoundError(`No session is called "${name}" (open: ${open})`);
  }

  /**
   * The session called `name`, opened with the defaults (and `options`) if it
   * does not exist yet; concurrent callers get the same session.
   */
  async getOrOpen(name: string, options: Omit<SessionOptions, "name"> = {}): Promise<Session> {
    if (this.#sessions.has(name)) return this.get(name);
    return await this.#opening.get(name) ?? await this.open({ ...options, name });
  }

  /** Whether a session called `name` is open. */
  has(name: string): boolean {
    return this.#sessions.has(name);
  }

  /** A row per open session. */
  list(): SessionInfo[] {
    return [...this.#sessions.values()].map((session) => session.info());
  }

  /** The recordings this manager's sessions made, oldest first (a file made again, once). */
  recordings(): RecordingInfo[] {
    return [...this.#recordings];
  }

  #recorded(session: string, path: string): void {
    const again = this.#recordings.findIndex((recording) => recording.path === path);
    if (again !== -1) this.#recordings.splice(again, 1);
    this.#recordings.push({ path, session, startedAt: Date.now() });
    if (this.#recordings.length > MAX_RECORDINGS) this.#recordings.shift();
  }

  /** Closes one session: its process group is killed and reaped. */
  async close(name: string): Promise<void> {
    const session = this.get(name);
    this.#sessions.delete(name);
    this.#lastUse.delete(name);
    if (this.#sessions.size === 0) this.#stopReaper();
    const closing = session.close();
    this.#closing.add(closing);
    try {
      await closing;
    } finally {
      this.#closing.delete(closing);
    }
  }

  /**
   * Hangs up every session's program (its process group: SIGHUP, as closing
   * a terminal window does; SIGKILL after 500 ms); the sessions stay
   * readable until closed.
   */
  async killAll(): Promise<void> {
    await Promise.all(
      [...this.#sessions.values()].map((session) => session.terminal.kill("SIGHUP", 500)),
    );
  }

  /** Closes every session, and waits for closes already under way (the idle reaper's). */
  async closeAll(): Promise<void> {
    this.#stopReaper();
    await Promise.allSettled([...this.#opening.values()]);
    await Promise.all([...this.#sessions.keys()].map((name) => this.close(name)));
    await Promise.allSettled([...this.#closing]);
  }

  #used(name: string): void {
    this.#lastUse.set(name, performance.now());
    const seconds = this.#defaults.idleTimeoutSeconds ?? 0;
    if (seconds > 0 && this.#reaper === undefined) {
      const ms = seconds * 1000;
      this.#reaper = setInterval(() => void this.#closeIdle(ms), Math.min(ms / 4, 15_000));
    }
  }

  #stopReaper(): void {
    clearInterval(this.#reaper);
    this.#reaper = undefined;
  }

  /** Records a limit a session hit in the audit log, then tells `onLimit`. */
  #limitHit(name: string, hit: LimitHit, onLimit: SessionDefaults["onLimit"]): void {
    this.#defaults.guard?.record(this.#defaults.guard.actor({ session: name }), {
      event: "limit",
      limit: hit.limit,
      message: hit.message,
    });
    onLimit?.(name, hit);
  }

  /** Closes the sessions nobody used, that printed nothing and ran nothing for `idleMs`. */
  async #closeIdle(idleMs: number): Promise<void> {
    const now = performance.now();
    for (const info of this.list()) {
      const used = this.#lastUse.get(info.name) ?? 0;
      if (now - used <= idleMs || info.idleMs <= idleMs || info.running !== null) continue;
      const hit = idleHit(info.name, idleMs / 1000);
      this.#gone.set(info.name, hit.message);
      this.#limitHit(info.name, hit, this.#defaults.onLimit);
      await this.close(info.name).catch(() => {}); // Closed meanwhile.
    }
    if (this.#sessions.size === 0) this.#stopReaper();
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
