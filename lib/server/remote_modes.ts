/**
 * `mcp`, `repl` and `run` with `--server`: the front ends on the session
 * server's sessions, which outlive them.
 * @module
 */

import { UsageError } from "../cli/usage.ts";

/** `termbridge mcp --server`. */
export function mcpServerMain(_args: string[]): Promise<number> {
  throw new UsageError("mcp --server is not available yet");
}

/** `termbridge repl --server`. */
export function replServerMain(_args: string[]): Promise<number> {
  throw new UsageError("repl --server is not available yet");
}

/** `termbridge run --server`. */
export function runServerMain(_args: string[]): Promise<number> {
  throw new UsageError("run --server is not available yet");
}
