/**
 * Opening a session: the program it runs (the user's shell by default), the
 * policy's check of it, the guard on the lines its shell runs, its sandbox,
 * the audit of its lifetime, and the wait until it is ready.
 * @module
 */

import { basename, dirname } from "node:path";
import { runtime } from "../runtime/mod.ts";
import { sandboxPrefix, type SandboxSettings, writeRoots } from "../sandbox/mod.ts";
import { Guard } from "../safety/guard.ts";
import type { Actor } from "../safety/types.ts";
import { WaitTimeoutError } from "../terminal/errors.ts";
import { resolveProgram } from "../terminal/launch.ts";
import type { Terminal } from "../terminal/terminal.ts";
import { SessionStartError } from "./errors.ts";
import { checkRecordTarget, type RecordTarget } from "./recorder.ts";
import type { SentLineChecks } from "./sent_lines.ts";
import type { SessionOptions, WriteAccess } from "./session_types.ts";
import { type IntegratedShell, supportsLineChecks } from "./shell_integration.ts";
import type { TypedLine, TypedLineCheck } from "./typed_lines.ts";
import { SETTLE_MS, settledFor } from "./waits.ts";

/** How long opening waits for a shell's first prompt by default (`shellStartTimeout`). */
export const FIRST_PROMPT_MS = 10_000;
/** How long a shell that showed no prompt in time gets after SIGHUP (and SIGTERM) to run its traps. */
const HANG_UP_GRACE_MS = 2000;

/** Returns the user's shell: `$SHELL`, else bash, else sh. */
export function defaultShell(env: Record<string, string>): string {
  for (const candidate of [env.SHELL, "bash", "sh"]) {
    if (!candidate) continue;
    try {
      return resolveProgram(candidate, env, "/");
    } catch {
      // Not installed here: try the next one.
    }
  }
  return "/bin/sh";
}

/** A session about to open: what it runs, where, and under which guard. */
export interface Opening {
  program: string[];
  cwd: string;
  /** termbridge's environment with the session's variables. */
  env: Record<string, string>;
  guard: Guard;
  /** Who opens it, for the audit log. */
  actor: Actor;
  /** Where its recordings and pipes may be written. */
  writeAccess: WriteAccess;
  /** The recording's file as the guard allowed it, when it opens with one. */
  record?: RecordTarget;
}

/**
 * Checks that a session may open: its recording's file (the guard's write
 * check), then the policy's verdict on its program (recorded in the audit log).
 * @throws {FileError} when the recording's file is there and not a recording (without
 * `recordOverwrite`), or not a regular file
 * @throws {PolicyDeniedError} when the guard refuses the recording's file
 * @throws {PolicyDeniedError} when the policy refuses the program
 */
export async function checkOpening(options: SessionOptions): Promise<Opening> {
  const env = { ...runtime.env(), ...options.env };
  const cwd = options.cwd ?? runtime.cwd();
  const program = options.program ?? [defaultShell(env)];
  const guard = options.guard ?? Guard.open();
  const actor = guard.actor({ session: options.name });
  const writeAccess = options.writeAccess ??
    { cwd, env: runtime.env(), writeRoots: writeRoots(options.sandbox, cwd) };
  const record = options.record
    ? checkRecordTarget(
      options.record,
      options.recordOverwrite ?? false,
      { guard, actor, ...writeAccess },
      options.recordConfigured,
    )
    : undefined;
  await guard.checkCommand(
    {
      origin: "open",
      argv: program,
      cwd,
      env,
      envNames: Object.keys(options.env ?? {}),
      linesChecked: supportsLineChecks(program[0]),
    },
    actor,
  );
  return { program, cwd, env, guard, actor, writeAccess, ...(record ? { record } : {}) };
}

/**
 * The check of the lines typed into the session's shell: the opening's
 * guard, which takes an "ask" approved and exec's verdict from the lines
 * the session sent (`checks`), and attributes a line to the session's last
 * writer (`lastClient`); undefined when there is no policy to apply.
 */
export function guardTypedLines(
  opening: Opening,
  sent: { checks: SentLineChecks; lastClient: () => string | undefined },
): TypedLineCheck | undefined {
  const { guard, env, actor } = opening;
  if (guard.policy === null) return undefined;
  return (typed: TypedLine) => {
    const preApproved = sent.checks.takeApproval(typed.line);
    // A line exec sent is one event: sent by exec's client, seen by the shell; judged
    // once when the shell runs it with the inputs exec's check had.
    const exec = sent.checks.takeExecLine(typed);
    const client = sent.lastClient();
    return guard.checkTypedLine(typed.line, {
      cwd: typed.cwd,
      // The environment exec's check had (the session's), with the shell's PATH and HOME.
      env: { ...env, PATH: typed.path, HOME: typed.home },
      aliases: typed.aliases,
      globalAliases: typed.globalAliases,
      suffixAliases: typed.suffixAliases,
      shellState: {
        keyword: typed.keyword,
        homeMoved: typed.home !== (env.HOME ?? ""),
        shell: typed.shell,
        braceCcl: typed.braceCcl,
        commentsOff: typed.commentsOff,
      },
      preApproved,
      origin: exec.sent ? "exec" : "typed",
      ...(exec.judged === undefined ? {} : { judged: exec.judged }),
    }, { ...actor, ...(client === undefined ? {} : { client }) });
  };
}

/**
 * The command prefix that runs the program in its sandbox, or undefined
 * without one. The shell's integration files are shown to it, and the
 * folder where the shell writes the lines it asks about stays writable,
 * even in a read-only sandbox.
 * @throws {SandboxUnavailableError} when the sandbox asked for cannot be made
 */
export async function sandboxFor(
  settings: SandboxSettings | undefined,
  opening: Opening & { shell: IntegratedShell | undefined },
): Promise<string[] | undefined> {
  const { shell, cwd, env } = opening;
  const shown = shell ? [shell.directory] : [];
  const writable = shell?.lineDir !== undefined ? [dirname(shell.lineDir)] : [];
  return await sandboxPrefix(settings, cwd, env, shown, writable) ?? undefined;
}

/** Records the program's start in the audit log (when it is on), and its exit when it comes. */
export function auditLifetime(opening: Opening, terminal: Terminal): void {
  const { guard, actor, program } = opening;
  if (!guard.audit.enabled) return;
  guard.record(actor, {
    event: "start",
    pid: terminal.pid,
    command: program.join(" "),
  });
  const started = performance.now();
  void terminal.wait().then((status) =>
    guard.record(actor, {
      event: "exit",
      exitCode: status.exitCode,
      signal: status.signal,
      durationMs: Math.round(performance.now() - started),
      outputBytes: terminal.textLog.totalBytes,
    })
  );
}

/** A session just opened, as the wait until it is ready sees it. */
export interface Starting {
  readonly terminal: Terminal;
  /** Whether the shell's line editor has the terminal; undefined without shell integration. */
  readonly atPrompt: (() => boolean) | undefined;
  /** Closes the session. */
  close(): Promise<void>;
}

/**
 * Waits until a new session is ready: a shell's first prompt, or the screen
 * settling for other programs. A session that is not ready in time is
 * closed (a shell is hung up first).
 * @throws {SessionStartError} when a shell showed no prompt within `timeoutMs`
 * @throws {WaitTimeoutError} when another program's screen never settled
 */
export async function waitUntilReady(
  starting: Starting,
  options: { name: string; program: string; timeoutMs: number },
): Promise<void> {
  const { terminal, atPrompt } = starting;
  try {
    if (atPrompt !== undefined) {
      await terminal.waitFor(
        () => atPrompt() || terminal.exitStatus !== null || undefined,
        "the shell's first prompt",
        options.timeoutMs,
      );
    } else {
      // Ready once quiet and idle: a program may start slowly without a word (a pyenv shim).
      await settledFor(terminal, SETTLE_MS, options.timeoutMs);
    }
  } catch (error) {
    if (error instanceof WaitTimeoutError && atPrompt !== undefined) {
      // Killed mid-rc a shell could leave locks behind (pyenv's rehash): hang it up instead.
      await terminal.hangUp(HANG_UP_GRACE_MS);
      await starting.close();
      throw slowStart(options, error.screen);
    }
    await starting.close();
    throw error;
  }
}

/** The error of a shell that showed no prompt in time: what to check, and how. */
function slowStart(
  opening: { name: string; program: string; timeoutMs: number },
  screen: string,
): SessionStartError {
  const shell = basename(opening.program);
  const skip = shell === "zsh" ? `${shell} --no-rcs` : `${shell} --norc`;
  return new SessionStartError(
    `Cannot open session ${JSON.stringify(opening.name)}: ${shell} showed no prompt within ${
      opening.timeoutMs / 1000
    } s, so it was hung up: its start-up files (~/.${shell}rc and what they run) are the likely cause; ` +
      `time them with "${shell} -ic exit", open the session without them ("${skip}" as its program), ` +
      `or allow longer with --start-timeout SECONDS or the config key shellStartTimeout; ` +
      `the screen showed:\n${screen}`,
    screen,
  );
}
