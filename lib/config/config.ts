/**
 * termbridge's configuration: one JSONC file, `termbridge.jsonc` in the working
 * directory or given with `--config`, over a user-level one in the XDG config
 * directory. Every key is optional; command-line options win over both.
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { TerminalError } from "../terminal/errors.ts";

/** The settings a configuration file may hold. */
export interface Config {
  /** Default program of new sessions, e.g. `["bash"]` or `["zsh", "-l"]`. */
  shell?: string[];
  cols?: number;
  rows?: number;
  scrollback?: number;
  /** Working directory of new sessions. */
  cwd?: string;
  /** Variables added to every session's environment. */
  env?: Record<string, string>;
  /** Most sessions open at once (MCP). */
  maxSessions?: number;
  /** Close sessions unused for this many seconds (MCP); 0 never. */
  idleTimeout?: number;
  /** Offer no tools that send input (MCP). */
  readOnly?: boolean;
  /** Directory to record every session into, as asciicast files (MCP). */
  record?: string;
  /** Hard ceiling of kept output per terminal, in bytes. */
  outputLimit?: number;
}

/** A configuration file that cannot be used; the message names the file, the place and the problem. */
export class ConfigError extends TerminalError {}

const KEYS: Record<keyof Config, (value: unknown) => boolean> = {
  shell: (v) => Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === "string"),
  cols: (v) => Number.isInteger(v) && (v as number) >= 2,
  rows: (v) => Number.isInteger(v) && (v as number) >= 1,
  scrollback: (v) => Number.isInteger(v) && (v as number) >= 0,
  cwd: (v) => typeof v === "string",
  env: (v) =>
    typeof v === "object" && v !== null && Object.values(v).every((s) => typeof s === "string"),
  maxSessions: (v) => Number.isInteger(v) && (v as number) >= 1,
  idleTimeout: (v) => typeof v === "number" && v >= 0,
  readOnly: (v) => typeof v === "boolean",
  record: (v) => typeof v === "string",
  outputLimit: (v) => Number.isInteger(v) && (v as number) >= 0,
};

/**
 * Reads one configuration file.
 * @throws {ConfigError} for unreadable files, JSONC syntax errors and unknown or mistyped keys
 */
export function readConfigFile(path: string): Config {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read config "${path}": ${(error as Error).message}`);
  }
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) {
    const { error, offset } = errors[0];
    const line = text.slice(0, offset).split("\n").length;
    throw new ConfigError(
      `Cannot parse config "${path}": ${printParseErrorCode(error)} at line ${line}`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(`Cannot use config "${path}": expected an object of settings`);
  }
  for (const [key, setting] of Object.entries(value)) {
    const check = KEYS[key as keyof Config];
    if (check === undefined) {
      throw new ConfigError(
        `Cannot use config "${path}": unknown key "${key}" (known: ${
          Object.keys(KEYS).join(", ")
        })`,
      );
    }
    if (!check(setting)) {
      throw new ConfigError(
        `Cannot use config "${path}": "${key}" has a wrong value ${JSON.stringify(setting)}`,
      );
    }
  }
  return value as Config;
}

/**
 * Loads the user-level file (`$XDG_CONFIG_HOME/termbridge/termbridge.jsonc`)
 * and over it `explicit` (from `--config`, which must exist) or else
 * `termbridge.jsonc` in `cwd` when present.
 */
export function loadConfig(
  options: { explicit?: string; cwd: string; env: Record<string, string> },
): Config {
  const configHome = options.env.XDG_CONFIG_HOME || join(options.env.HOME || homedir(), ".config");
  const user = join(configHome, "termbridge", "termbridge.jsonc");
  const local = options.explicit !== undefined
    ? resolve(options.cwd, options.explicit)
    : join(options.cwd, "termbridge.jsonc");
  if (options.explicit !== undefined && !existsSync(local)) {
    throw new ConfigError(`Cannot read config "${local}": no such file`);
  }
  return {
    ...(existsSync(user) ? readConfigFile(user) : {}),
    ...(existsSync(local) ? readConfigFile(local) : {}),
  };
}
