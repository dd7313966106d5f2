/**
 * Reading one `termbridge.jsonc`: JSONC syntax, the schema, and where in the
 * file each key is, so errors and `termbridge config` can name file, line and
 * column.
 * @module
 */

import { readFileSync } from "node:fs";
import { findNodeAtLocation, type Node, type ParseError, parseTree } from "jsonc-parser";
import { ConfigError } from "./errors.ts";
import { type Config, validateConfig } from "./schema.ts";

/** A configuration file read and checked. */
export interface ConfigFile {
  path: string;
  config: Config;
  /** The 1-based line of a key (e.g. `["limits", "terminals"]`), or undefined when absent. */
  lineOf(path: string[]): number | undefined;
}

/** Words for jsonc-parser's error codes (its enum names are not for people). */
const SYNTAX_PROBLEMS: Record<number, string> = {
  1: "unexpected character",
  2: "malformed number",
  3: "expected a property name in double quotes",
  4: "expected a value",
  5: 'expected ":" after the property name',
  6: 'expected "," between items',
  7: 'expected "}" to close the object',
  8: 'expected "]" to close the list',
  9: "expected the end of the file after the settings object",
  10: "malformed comment",
  11: 'unterminated comment: expected "*/"',
  12: "unterminated string: expected a closing double quote",
  13: "unterminated number",
  14: "malformed \\u escape in a string",
  15: "unknown escape sequence in a string",
  16: "control character in a string (write it as an escape such as \\n)",
};

/** 1-based line and column of a character offset. */
function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}

function fail(path: string, text: string, offset: number, problem: string): never {
  const { line, column } = position(text, offset);
  throw new ConfigError(`Invalid config ${path}:${line}:${column}: ${problem}`, {
    file: path,
    line,
    column,
  });
}

/**
 * Reads and checks one configuration file.
 * @throws {ConfigError} for an unreadable file, a JSONC syntax error, or an
 *   unknown or mistyped key; the message names the file, line and column
 */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read config "${path}": ${(error as Error).message}`, {
      file: path,
    });
  }
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) {
    const { error, offset } = errors[0];
    fail(path, text, offset, SYNTAX_PROBLEMS[error] ?? "malformed JSONC");
  }
  if (root === undefined) fail(path, text, 0, "the file is empty: expected an object of settings");
  const value = parse(root);
  const problem = validateConfig(value);
  if (problem !== null) {
    const node = problem.path.length === 0 ? root : findNodeAtLocation(root, problem.path);
    const at = problem.atKey ? node?.parent?.children?.[0] ?? node : node;
    fail(path, text, at?.offset ?? 0, problem.message);
  }
  return {
    path,
    config: value as Config,
    lineOf(keyPath) {
      const node = findNodeAtLocation(root, keyPath);
      const key = node?.parent?.type === "property" ? node.parent : node;
      return key === undefined ? undefined : position(text, key.offset).line;
    },
  };
}

/** The plain value of a parse tree (jsonc-parser's getNodeValue, without its quirks on errors). */
function parse(node: Node): unknown {
  switch (node.type) {
    case "object":
      return Object.fromEntries(
        (node.children ?? []).map((p) => [p.children![0].value, parse(p.children![1])]),
      );
    case "array":
      return (node.children ?? []).map(parse);
    default:
      return node.value;
  }
}
