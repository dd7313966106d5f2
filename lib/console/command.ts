/**
 * The shape of one command of the console language, and of what running a
 * line gives back.
 * @module
 */

import type { ConsoleContext, HintForm } from "./context.ts";
import type { ArgSpec } from "./words.ts";

/** The words of a line after the command's name. */
export interface CommandInput {
  /** The words, quoting removed (empty for raw commands). */
  words: string[];
  /** The rest of the line after the command's name, as typed. */
  raw: string;
  /** How its errors name other commands (see `ConsoleContext.hint`). */
  hints: HintForm;
}

/** What a command produced. */
export interface Outcome {
  /** Text to show the person (a script prints it on stdout). */
  output?: string;
  /** A short confirmation the REPL shows; a script does not. */
  note?: string;
  /** Data for machines (JSON-able). */
  data?: unknown;
  /** The line to save in the transcript instead of the one typed (made explicit). */
  replayAs?: string;
}

/** One command: its names, help, how it reads its words and what it does. */
export interface Command<P = unknown> {
  name: string;
  aliases: readonly string[];
  /** `open [NAME] [--cwd DIR] ...`: the name and what follows. */
  usage: string;
  /** One line for the list of commands. */
  summary: string;
  /** Paragraphs for `help NAME`, with examples. */
  help: string;
  /** The options and how positionals are read (for parsing and completion). */
  spec?: ArgSpec;
  /** The rest of the line is given raw (a shell command line), not split into words. */
  raw?: boolean;
  /** Exists only in this front end. */
  only?: "repl";
  /** Whether `save` writes it (default true); false for commands that only look. */
  replay?: boolean;
  /**
   * Checks and reads the words; pure, so a script can be checked before it runs.
   * @throws {CommandError} saying what is wrong and what would be right
   */
  parse(input: CommandInput): P;
  /** Does it. Waits end early when `signal` aborts. */
  run(ctx: ConsoleContext, parsed: P, signal?: AbortSignal): Outcome | Promise<Outcome>;
}

/** What running one line gave. */
export interface StepResult {
  /** The command's name (its canonical one), or the first word when it is unknown. */
  command: string;
  ok: boolean;
  /** Text to show the person; empty when there is none. */
  output: string;
  /** A short confirmation for the REPL. */
  note?: string;
  /** Data for machines (JSON-able). */
  data?: unknown;
  /** Why it failed, for a person. */
  error?: string;
  /** What kind of failure it was, for exit statuses (see `problemOf`). */
  problem?: Problem;
}

/**
 * The kinds of failure a caller may treat apart: a line that is wrong as
 * written, a session nobody opened, a session that cannot take it now (a
 * command still running, its program gone), a policy refusal, or anything else.
 */
export type Problem = "usage" | "unknown-session" | "busy" | "policy" | "failure";

/** Declares a command, keeping its parsed type private to it. */
export function defineCommand<P>(command: Command<P>): Command<unknown> {
  return command as Command<unknown>;
}
