/**
 * The MCP server: lists the tools with their JSON Schemas and runs them,
 * answering every failure as a tool error (`isError`) whose text says what
 * was wrong, as Terminal MCP does.
 * @module
 */

import { Server } from "@modelcontextprotocol/sdk/server";
// The SDK maps "./*" to "*.d.ts", which misses "types.d.ts" for "types.js": name it for Deno.
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/types.d.ts"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { VERSION } from "../cli/usage.ts";
import type { SessionTools } from "./session_tools.ts";
import { type Tool, TOOLS } from "./tools.ts";

const INSTRUCTIONS = "termbridge gives you real terminals: each session is a shell (or any " +
  "program) in a real pseudo-terminal with a screen emulator. Use terminal_execute to run " +
  "commands and get their output, exit code and working directory; type, sendKey, getContent " +
  "and takeScreenshot to drive interactive and full-screen programs; wait to wait for text or " +
  "quiet instead of polling. Sessions are named by session or sessionId (createSession gives " +
  "one); results are limited to about 100 KB and say what they left out.";

/** Options of the MCP server. */
export interface McpServerOptions {
  /** Leave out every tool that sends input. */
  readOnly?: boolean;
}

/** Turns a zod object schema into the JSON Schema MCP lists for a tool. */
function inputSchema(schema: z.ZodObject): { type: "object"; [key: string]: unknown } {
  const { $schema: _, ...json } = z.toJSONSchema(schema) as Record<string, unknown>;
  return { ...json, type: "object" };
}

function describeIssues(error: z.ZodError, schema: z.ZodObject): string {
  return error.issues.map((issue) => {
    const path = issue.path.join(".");
    // A misspelt argument: name the ones the tool takes (`timeout_ms` for `timeout`).
    const known = issue.code === "unrecognized_keys" && path === ""
      ? ` (it takes ${Object.keys(schema.shape).join(", ")})`
      : "";
    return path === "" ? issue.message + known : `${path}: ${issue.message}`;
  }).join("; ");
}

function failure(message: string): CallToolResult {
  return { content: [{ type: "text", text: `Error: ${message}` }], isError: true };
}

/** Creates the MCP server over `sessions`. */
export function createMcpServer(sessions: SessionTools, options: McpServerOptions = {}): Server {
  const tools = TOOLS.filter((tool) => !(options.readOnly && tool.writes)) as Tool[];
  const server = new Server(
    { name: "termbridge", version: VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchema(tool.schema),
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, { signal }) => {
    const { name, arguments: args } = request.params;
    const tool = tools.find((t) => t.name === name);
    if (tool === undefined) {
      const readOnly = options.readOnly && TOOLS.some((t) => t.name === name);
      return failure(
        readOnly ? `Tool "${name}" is not available in read-only mode` : `Unknown tool: "${name}"`,
      );
    }
    const parsed = tool.schema.safeParse(args ?? {});
    if (!parsed.success) {
      return failure(
        `Invalid arguments for tool "${name}": ${describeIssues(parsed.error, tool.schema)}`,
      );
    }
    try {
      const result = await tool.run(sessions, parsed.data, signal);
      // One text only: data is JSON in it, never repeated as structuredContent.
      return { content: [{ type: "text", text: result.text }] } satisfies CallToolResult;
    } catch (error) {
      return failure(error instanceof Error ? error.message : String(error));
    }
  });
  return server;
}
