/**
 * Parsing a mode's options with `node:util`'s parseArgs, turning its errors
 * into usage errors that say what was wrong.
 * @module
 */

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./usage.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses `args` for `mode`.
 * @throws {UsageError} for unknown options, missing values and the like
 */
export function parseModeArgs<T extends Options>(
  mode: string,
  args: string[],
  options: T,
  allowPositionals = false,
) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional.*$/s, "");
    throw new UsageError(`Cannot parse the options of "${mode}": ${message}`);
  }
}

/**
 * Reads a whole number option.
 * @throws {UsageError} when it is not one or is below `min`
 */
export function numberOption(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min) {
    throw new UsageError(
      `Cannot use --${name} ${JSON.stringify(value)}: expected a whole number >= ${min}`,
    );
  }
  return number;
}

/**
 * Reads a directory option (`--cwd DIR`): resolves it against termbridge's
 * own working directory and checks, at start-up, that it is a directory.
 * @returns the absolute path, or undefined when the option was not given
 * @throws {UsageError} when it does not exist or is not a directory
 */
export function directoryOption(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const path = resolve(value);
  let stats;
  try {
    stats = statSync(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === "ENOENT" || code === "ENOTDIR"
      ? "no such directory"
      : code === "EACCES"
      ? "permission denied"
      : (error as Error).message;
    throw new UsageError(`Cannot use --${name} ${JSON.stringify(value)}: ${why}`);
  }
  if (!stats.isDirectory()) {
    throw new UsageError(`Cannot use --${name} ${JSON.stringify(value)}: it is not a directory`);
  }
  return path;
}
