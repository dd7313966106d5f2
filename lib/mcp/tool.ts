/**
 * What an MCP tool is (its name, description, zod schema and what it does)
 * and the pieces its definitions share: the session parameters, results as
 * JSON, lenient numbers.
 * @module
 */

import * as z from "zod";
import type { SessionTools } from "./session_tools.ts";

/** What a tool answers: the one text a model reads (JSON for data; never sent twice). */
export interface ToolResult {
  text: string;
}

/** One tool: its description for a model, its parameters, and what it does. */
export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  schema: S;
  /** Whether the tool sends input or changes sessions (left out in read-only mode). */
  writes: boolean;
  /** Runs the tool; `signal` is aborted when the client cancels the call. */
  run(
    sessions: SessionTools,
    args: z.infer<S>,
    signal: AbortSignal,
  ): Promise<ToolResult> | ToolResult;
}

/** Declares a tool, keeping its argument type. */
export function tool<S extends z.ZodObject>(definition: Tool<S>): Tool<S> {
  return definition;
}

/** A result whose text is `value` as JSON. */
export const json = (value: object): ToolResult => ({ text: JSON.stringify(value, null, 2) });

const name = z.string().min(1).max(64);

/** The session parameters: termbridge's `session` and Terminal MCP's `sessionId`, the same thing. */
export const SESSION = {
  session: name.optional().describe(
    'Session name; default "default", a shell started on first use.',
  ),
  sessionId: name.optional().describe(
    "The same as session (Terminal MCP's name for it, e.g. an id from createSession).",
  ),
};

/**
 * The session named by `session` or `sessionId` (undefined: the default one).
 * @throws {Error} when both are given and differ
 */
export function sessionName(args: { session?: string; sessionId?: string }): string | undefined {
  const { session, sessionId } = args;
  if (session !== undefined && sessionId !== undefined && session !== sessionId) {
    throw new Error(
      `Cannot tell which session to use: session "${session}" and sessionId "${sessionId}" differ; give one of them`,
    );
  }
  return session ?? sessionId;
}

/** A number that also accepts its decimal digits as a string ("5"), as models often send. */
export function lenientNumber(schema: z.ZodNumber) {
  return z.preprocess(
    (value) =>
      typeof value === "string" && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value,
    schema,
  );
}
