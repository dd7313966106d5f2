/**
 * What the commands of the console work on: the sessions, the current one,
 * the last command run with `exec`, default timeouts, and what the front end
 * (REPL or script) can do.
 * @module
 */

import { isAbsolute, resolve } from "node:path";
import type { SessionManager } from "../sessions/manager.ts";
import type { CommandResult, Session } from "../sessions/session.ts";
import { CommandError } from "./errors.ts";
import { quoteWord } from "./tokenize.ts";

/** Default timeouts, in milliseconds. */
export interface Timeouts {
  /** How long `exec` and `input` wait for the command (default 30 s). */
  exec: number;
  /** How long `expect` and `wait` wait (default 10 s). */
  wait: number;
}

/** The defaults of {@linkcode Timeouts}. */
export const DEFAULT_TIMEOUTS: Timeouts = { exec: 30_000, wait: 10_000 };

/** The name `open` gives a session when none is given. */
export const DEFAULT_SESSION = "main";

/** The last command run with `exec` (or finished through `input`), for the `expect-*` commands. */
export interface LastExec {
  session: string;
  result: CommandResult;
}

/** How to make a console context. */
export interface ConsoleOptions {
  sessions: SessionManager;
  /** Which front end runs the commands; some commands exist only in the REPL. */
  mode: "repl" | "script";
  timeouts?: Partial<Timeouts>;
  /** Draw with terminal styles (reverse video for the cursor). */
  styled?: boolean;
  /** Directory against which relative paths (`save`, `record`, `open --cwd`) are read. */
  cwd: string;
  /** Size of sessions opened without `--size` (default: the terminal's own default). */
  size?: { cols: number; rows: number };
  /** Hands the person's terminal to a session until they detach or `signal` aborts (REPL only). */
  attach?: (session: Session, signal?: AbortSignal) => Promise<string>;
  /**
   * How hints name commands: "console" as typed in the REPL or a script (`key C-c`),
   * "command-line" as typed in a shell (`termbridge key NAME C-c`). Default "console".
   */
  hints?: HintForm;
}

/** How error hints name the commands to try. */
export type HintForm = "console" | "command-line";

/** {@linkcode ConsoleContext.hint} in `form`, for code that has no context (a command's parse). */
export function commandHint(
  form: HintForm,
  command: string,
  rest: string,
  session?: string,
): string {
  if (form === "console") return `"${rest === "" ? command : `${command} ${rest}`}"`;
  const words = ["termbridge", command];
  if (session !== undefined) words.push(quoteWord(session));
  if (rest !== "") words.push(rest);
  return `"${words.join(" ")}"`;
}

/** The state commands share. */
export class ConsoleContext {
  readonly sessions: SessionManager;
  readonly mode: "repl" | "script";
  readonly timeouts: Timeouts;
  readonly styled: boolean;
  readonly cwd: string;
  readonly size: { cols: number; rows: number } | undefined;
  readonly attach: ((session: Session, signal?: AbortSignal) => Promise<string>) | undefined;
  readonly hints: HintForm;
  /** The session commands act on. */
  current: string | undefined;
  lastExec: LastExec | undefined;
  /** Successful commands that change something, as lines of a script (what `save` writes). */
  readonly transcript: string[] = [];
  /** Set by `quit`: the front end stops after this command. */
  quitRequested = false;

  constructor(options: ConsoleOptions) {
    this.sessions = options.sessions;
    this.mode = options.mode;
    this.timeouts = {
      exec: options.timeouts?.exec ?? DEFAULT_TIMEOUTS.exec,
      wait: options.timeouts?.wait ?? DEFAULT_TIMEOUTS.wait,
    };
    this.styled = options.styled ?? false;
    this.cwd = options.cwd;
    this.size = options.size;
    this.attach = options.attach;
    this.hints = options.hints ?? "console";
  }

  /**
   * A command to suggest, quoted, in the front end's form: `"key C-c"` in the
   * console, `"termbridge key s C-c"` on the command line (the session's name
   * after the command's, when `session` is given).
   */
  hint(command: string, rest: string, session?: string): string {
    return commandHint(this.hints, command, rest, session);
  }

  /**
   * The current session.
   * @throws {CommandError} when no session is open or current, or the current one is gone
   */
  session(): Session {
    // A current session that is gone (a server command naming it, another client closing it)
    // is named in the error, not described as "none is current".
    if (this.current !== undefined) return this.sessions.get(this.current);
    const open = this.sessions.list().map((s) => s.name);
    throw new CommandError(
      open.length === 0
        ? `No session is open: open one with "open" (a shell) or "open NAME -- PROGRAM ARGS..."`
        : `No session is current: pick one with "use NAME" (open: ${
          open.map((n) => `"${n}"`).join(", ")
        })`,
    );
  }

  /** The session called `name`, or the current one when `name` is undefined. */
  sessionNamed(name: string | undefined): Session {
    return name === undefined ? this.session() : this.sessions.get(name);
  }

  /** Reads `path` against the console's directory. */
  path(path: string): string {
    return isAbsolute(path) ? path : resolve(this.cwd, path);
  }
}
