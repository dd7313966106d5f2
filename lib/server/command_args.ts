/**
 * Reading a subcommand's command line: the options every subcommand takes
 * (-L, --socket, --json, --help), its own, and its words.
 * @module
 */

import { UsageError } from "../cli/usage.ts";

/** An option's kind: a flag, or one that takes a value (repeatable ones collect a list). */
export type OptionKind = "flag" | "value" | "list";

/** What a subcommand's line says. */
export interface CommandArgs {
  options: Record<string, string | boolean | string[] | undefined>;
  /** The words that are not options, in order. */
  words: string[];
  /** The words after "--", or undefined without one. */
  rest: string[] | undefined;
}

const COMMON: Record<string, OptionKind> = {
  name: "value",
  socket: "value",
  json: "flag",
  help: "flag",
};
const SHORT: Record<string, string> = { L: "name", h: "help" };

/**
 * Reads `args` of subcommand `command`. With `textAfter` N, the first word
 * after the first N starts the text: options are no longer read from there on,
 * as in `exec NAME --timeout 5 ls -l`.
 * @throws {UsageError} for unknown options and missing values
 */
export function parseCommandArgs(
  command: string,
  args: string[],
  own: Record<string, OptionKind>,
  textAfter = Infinity,
): CommandArgs {
  const kinds = { ...COMMON, ...own };
  const options: CommandArgs["options"] = {};
  const words: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return { options, words, rest: args.slice(i + 1) };
    // With --literal (type), every word after the session's name is text, "-n" included.
    const literal = options.literal === true && words.length >= 1;
    if (literal || words.length > textAfter || !arg.startsWith("-") || arg === "-") {
      words.push(arg);
      continue;
    }
    const long = arg.startsWith("--");
    const [flag, inline] = long ? splitInline(arg.slice(2)) : [SHORT[arg.slice(1)], undefined];
    const kind = flag === undefined ? undefined : kinds[flag];
    if (kind === undefined) {
      const known = Object.keys(kinds).map((k) => `--${k}`).join(", ");
      throw new UsageError(`Cannot run "${command}": unknown option "${arg}" (known: ${known})`);
    }
    if (kind === "flag") {
      if (inline !== undefined) {
        throw new UsageError(`Cannot run "${command}": --${flag} takes no value`);
      }
      options[flag] = true;
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) {
      throw new UsageError(`Cannot run "${command}": ${arg} needs a value`);
    }
    if (kind === "list") options[flag] = [...(options[flag] as string[] | undefined ?? []), value];
    else options[flag] = value;
  }
  return { options, words, rest: undefined };
}

function splitInline(body: string): [string, string | undefined] {
  const at = body.indexOf("=");
  return at === -1 ? [body, undefined] : [body.slice(0, at), body.slice(at + 1)];
}

/**
 * The session name, the first word.
 * @throws {UsageError} when it is missing
 */
export function sessionName(command: string, words: string[], usage: string): string {
  const name = words[0];
  if (name === undefined || name === "") {
    throw new UsageError(`Cannot run "${command}": give the session's name: termbridge ${usage}`);
  }
  return name;
}

/**
 * Reads a whole number of an option.
 * @throws {UsageError} when it is not one, or below `min`
 */
export function wholeNumber(option: string, value: string, min = 0): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min) {
    throw new UsageError(
      `Cannot use --${option} ${JSON.stringify(value)}: expected a whole number >= ${min}`,
    );
  }
  return number;
}
