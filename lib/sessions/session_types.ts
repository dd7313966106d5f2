/**
 * The shapes of a session's API (lib/sessions/session.ts): how to open one,
 * what `exec` and `input` report, and a row of the session list.
 * @module
 */

import type { ExitStatus } from "../runtime/mod.ts";
import type { Guard } from "../safety/guard.ts";
import type { LimitHit, Limits, SandboxSettings } from "../sandbox/mod.ts";
import type { TypedLineCheck } from "./typed_lines.ts";

/** How the end of a command was known. */
export type Completion = "shell-integration" | "screen-stable";

/** How to open a session. */
export interface SessionOptions {
  name: string;
  /** Program and arguments; default: the user's shell (`$SHELL`, else bash, else sh). */
  program?: string[];
  cwd?: string;
  /** Variables added to termbridge's environment. */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  scrollback?: number;
  /** Record the session to this asciicast file (an absolute path) from the start. */
  record?: string;
  /** Replace `record` even when it exists and is not an asciicast recording. */
  recordOverwrite?: boolean;
  /**
   * `record` comes from the configuration (mcp's `--record DIR`), not from a
   * request: the `write` globs and the sandbox do not apply to it (termbridge's
   * own files are still refused).
   */
  recordConfigured?: boolean;
  /** Record what is sent to the program too (typed passwords included); default: output only. */
  recordInput?: boolean;
  /**
   * Where the session's recordings and pipes may be written: as termbridge's
   * `fs/write_text_file` may (the `write` globs with `${cwd}` and `~` of
   * `cwd` and `env`, the sandbox's writable directories `writeRoots`, null
   * without a sandbox; never termbridge's own files). The session manager
   * sets it from its own defaults, so a request's `cwd` or `env` cannot
   * widen it. Default: the session's cwd, termbridge's environment and `sandbox`.
   */
  writeAccess?: WriteAccess;
  /** Told of each recording the session starts (its file), e.g. for the dashboard's list. */
  onRecord?: (path: string) => void;
  /** The sandbox the program runs in (default: off). */
  sandbox?: SandboxSettings;
  /** Resource limits of the program, and `commandSeconds` for each command its shell runs. */
  limits?: Limits;
  /** Told of every limit the session hits (for the audit log). */
  onLimit?: (hit: LimitHit) => void;
  /**
   * Checks each line the shell (bash or zsh) is about to run, at the moment
   * Enter is accepted; a refused line is not run and the shell says why.
   * Leave it out when the policy allows everything: then the hooks cost nothing.
   */
  lineCheck?: TypedLineCheck;
  /** Policy, approvals and audit of the program, `exec` and `input` (default: none). */
  guard?: Guard;
  /**
   * How long a shell may take to show its first prompt (its start-up files
   * run first), in milliseconds; default `FIRST_PROMPT_MS` (10 s).
   */
  startTimeoutMs?: number;
}

/** What the `write` globs of a session's recordings and pipes are judged with (see SessionOptions). */
export interface WriteAccess {
  cwd: string;
  env: Record<string, string>;
  writeRoots: string[] | null;
}

/** What `exec` and `input` report. */
export interface CommandResult {
  /** The command line (for `input`, the text sent). */
  command: string;
  /** The command's own output: no echoed command line, no prompt. */
  output: string;
  /** The exit code once completed (null while running or when unknown). */
  exitCode: number | null;
  status: "completed" | "running";
  /** The working directory after the command, as the shell reported it. */
  cwd: string;
  completion: Completion;
  /** Whether output was dropped from the front (the output ceiling was reached). */
  truncated: boolean;
  /**
   * Set when the session's shell itself ended while running the command (an
   * `exit`, or `set -e` and a failure): says so, with its code.
   */
  shellExited?: string;
}

/** A row of `list`. */
export interface SessionInfo {
  name: string;
  program: string[];
  pid: number;
  cols: number;
  rows: number;
  cwd: string;
  /** The command running now, or null at the prompt. */
  running: string | null;
  /** Milliseconds since the last output. */
  idleMs: number;
  integration: "shell" | "none";
  exitStatus: ExitStatus | null;
  recording: string | null;
}

/**
 * What a session is shown to run (`ls`, the dashboard's tiles): its program,
 * except for an `acp --server` terminal, whose program is termbridge's relay
 * (`termbridge _relay SOCKET ID -- COMMAND`, lib/server/acp_mirror.ts): then
 * the agent's command it carries.
 */
export function shownProgram(program: readonly string[]): string[] {
  const relay = program.indexOf("_relay");
  return relay !== -1 && program[relay + 3] === "--" ? program.slice(relay + 4) : [...program];
}
