/**
 * The named sessions of one termbridge process: open, find, list, close.
 * @module
 */

import { SessionConflictError, SessionNotFoundError, SessionUsageError } from "./errors.ts";
import { Session, type SessionInfo, type SessionOptions } from "./session.ts";

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
}

const NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Named sessions, opened with shared defaults. */
export class SessionManager {
  readonly #sessions = new Map<string, Session>();
  readonly #opening = new Map<string, Promise<Session>>();
  readonly #defaults: SessionDefaults;

  constructor(defaults: SessionDefaults = {}) {
    this.#defaults = defaults;
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
    const { maxSessions: _, ...defaults } = this.#defaults;
    const opening = Session.open({ ...defaults, ...withoutUndefined(options), name });
    this.#opening.set(name, opening);
    try {
      const session = await opening;
      this.#sessions.set(name, session);
      return session;
    } finally {
      this.#opening.delete(name);
    }
  }

  /**
   * The session called `name`.
   * @throws {SessionNotFoundError} naming the sessions that exist
   */
  get(name: string): Session {
    const session = this.#sessions.get(name);
    if (session !== undefined) return session;
    const open = [...this.#sessions.keys()].map((n) => `"${n}"`).join(", ") || "none";
    throw new SessionNotFoundError(`No session is called "${name}" (open: ${open})`);
  }

  /**
   * The session called `name`, opened with the defaults (and `options`) if it
   * does not exist yet; concurrent callers get the same session.
   */
  async getOrOpen(name: string, options: Omit<SessionOptions, "name"> = {}): Promise<Session> {
    return this.#sessions.get(name) ?? await this.#opening.get(name) ??
      await this.open({ ...options, name });
  }

  /** Whether a session called `name` is open. */
  has(name: string): boolean {
    return this.#sessions.has(name);
  }

  /** A row per open session. */
  list(): SessionInfo[] {
    return [...this.#sessions.values()].map((session) => session.info());
  }

  /** Closes one session: its process group is killed and reaped. */
  async close(name: string): Promise<void> {
    const session = this.get(name);
    this.#sessions.delete(name);
    await session.close();
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

  /** Closes every session. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.#opening.values()]);
    await Promise.all([...this.#sessions.keys()].map((name) => this.close(name)));
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
