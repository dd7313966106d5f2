/**
 * Running one line of the console language: read it, find the command, run
 * it, and turn what happened (or what went wrong) into a step result.
 * @module
 */

import { PolicyDeniedError } from "../safety/guard.ts";
import { SessionBusyError, SessionNotFoundError, SessionUsageError } from "../sessions/errors.ts";
import { TerminalDisposedError } from "../terminal/errors.ts";
import { UnknownKeyError } from "../terminal/keys.ts";
import type { Command, Problem, StepResult } from "./command.ts";
import type { ConsoleContext, HintForm } from "./context.ts";
import { CommandError } from "./errors.ts";
import { findCommand, unknownCommand } from "./table.ts";
import { tokenize } from "./tokenize.ts";

/** A line read and checked, ready to run. */
export interface ParsedLine {
  command: Command;
  parsed: unknown;
  /** The line as written, trimmed. */
  line: string;
}

/**
 * Reads a line without running it: finds the command and checks its words.
 * @param hints how errors name commands: "command-line" for a subcommand's
 *   line (`termbridge help keys`; the console's usage is left out)
 * @returns null for a blank line or a comment
 * @throws {CommandError} saying what is wrong (with the command's usage)
 */
export function parseLine(
  line: string,
  mode: "repl" | "script",
  hints: HintForm = "console",
): ParsedLine | null {
  const trimmed = line.trim();
  if (trimmed === "" || trimmed.startsWith("#")) return null;
  const first = /^\S+/.exec(trimmed)![0];
  const rawCommand = findCommand(first);
  let command: Command;
  let words: string[] = [];
  if (rawCommand?.raw) {
    command = rawCommand;
  } else {
    const all = tokenize(line);
    if (all.length === 0) return null;
    const found = findCommand(all[0]);
    if (found === undefined) throw unknownCommand(all[0]);
    [command, words] = [found, all.slice(1)];
  }
  if (command.only !== undefined && command.only !== mode) {
    throw new CommandError(
      `Cannot run "${command.name}" in a script: it works only in the REPL (termbridge repl)`,
    );
  }
  try {
    const parsed = command.parse({ words, raw: trimmed.slice(first.length), hints });
    return { command, parsed, line: trimmed };
  } catch (error) {
    if (!(error instanceof CommandError) || hints === "command-line") throw error;
    throw new CommandError(`${error.message}\nUsage: ${command.usage}`);
  }
}

/**
 * Runs one line in `ctx`. Never throws for a bad line or a failed command:
 * the result says what went wrong. Successful commands that change something
 * are added to `ctx.transcript`.
 * @returns null for a blank line or a comment
 * @example
 * ```ts
 * const result = await runCommand(ctx, 'expect "$ "');
 * if (!result?.ok) console.error(result?.error);
 * ```
 */
export async function runCommand(
  ctx: ConsoleContext,
  line: string,
  options: { signal?: AbortSignal } = {},
): Promise<StepResult | null> {
  let parsed: ParsedLine | null;
  try {
    parsed = parseLine(line, ctx.mode, ctx.hints);
  } catch (error) {
    const first = line.trim().split(/\s+/)[0];
    return {
      command: findCommand(first)?.name ?? first,
      ok: false,
      output: "",
      error: describe(error),
      problem: error instanceof CommandError ? "usage" : problemOf(error),
    };
  }
  if (parsed === null) return null;
  return await runParsed(ctx, parsed, options);
}

/** Runs a line already read with {@linkcode parseLine}. */
export async function runParsed(
  ctx: ConsoleContext,
  { command, parsed, line }: ParsedLine,
  options: { signal?: AbortSignal } = {},
): Promise<StepResult> {
  try {
    const outcome = await command.run(ctx, parsed, options.signal);
    if (outcome.replayAs !== undefined) ctx.transcript.push(outcome.replayAs);
    else if (command.replay !== false) ctx.transcript.push(line);
    return {
      command: command.name,
      ok: true,
      output: outcome.output ?? "",
      ...(outcome.note === undefined ? {} : { note: outcome.note }),
      ...(outcome.data === undefined ? {} : { data: outcome.data }),
    };
  } catch (error) {
    return {
      command: command.name,
      ok: false,
      output: "",
      error: describe(error),
      problem: problemOf(error),
    };
  }
}

/**
 * The kind of a failure of a command that ran, for callers that tell kinds
 * apart (exit statuses). A CommandError there is an expectation that failed.
 */
export function problemOf(error: unknown): Problem {
  if (error instanceof SessionUsageError) return "usage";
  if (error instanceof UnknownKeyError) return "usage";
  if (error instanceof SessionNotFoundError) return "unknown-session";
  if (error instanceof SessionBusyError || error instanceof TerminalDisposedError) return "busy";
  if (error instanceof PolicyDeniedError) return "policy";
  return "failure";
}

/** A message for the person: the error's own for expected errors, the stack for bugs. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const bug = error instanceof TypeError || error instanceof ReferenceError ||
    error instanceof SyntaxError;
  return bug ? `Internal error (a bug in termbridge): ${error.stack}` : error.message;
}
