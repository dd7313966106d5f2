/**
 * The console language shared by `termbridge repl` and `termbridge run`: one
 * command a line (open, type, key, exec, expect, screen...), a table of
 * commands with their help, and an executor that runs a line against named
 * sessions and reports a step result.
 * @module
 */

export type { Command, CommandInput, Outcome, StepResult } from "./command.ts";
export {
  ConsoleContext,
  type ConsoleOptions,
  DEFAULT_SESSION,
  DEFAULT_TIMEOUTS,
  type LastExec,
  type Timeouts,
} from "./context.ts";
export { CommandError, InterruptedError } from "./errors.ts";
export { type ParsedLine, parseLine, runCommand, runParsed } from "./executor.ts";
export { frame } from "./frame.ts";
export { commandHelp, commandList, KEYS_HELP, overview, QUOTING_HELP } from "./help.ts";
export { drawScreen } from "./screen_view.ts";
export { COMMAND_NAMES, COMMANDS, findCommand } from "./table.ts";
export { quoteWord, tokenize } from "./tokenize.ts";
export { closest, parseDuration, parseSize } from "./words.ts";
