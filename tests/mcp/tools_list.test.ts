/**
 * End-to-end tests of `termbridge mcp`'s tool list, through the official MCP
 * SDK client over stdio: names, JSON Schemas, read-only mode, unknown tools.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { withMcp } from "./_kit.ts";

/** Every tool, in the order tools/list gives them, with its required and optional parameters. */
const TOOLS: Record<string, { required: string[]; optional: string[]; writes: boolean }> = {
  type: { required: ["text"], optional: ["session", "sessionId"], writes: true },
  sendKey: { required: ["key"], optional: ["session", "sessionId"], writes: true },
  getContent: {
    required: [],
    optional: ["visibleOnly", "fromLine", "session", "sessionId"],
    writes: false,
  },
  takeScreenshot: { required: [], optional: ["format", "session", "sessionId"], writes: false },
  clear: { required: [], optional: ["session", "sessionId"], writes: true },
  terminal_execute: {
    required: ["command"],
    optional: ["is_input", "no_enter", "timeout", "terminal_id", "session", "sessionId"],
    writes: true,
  },
  wait: {
    required: [],
    optional: [
      "text",
      "regex",
      "gone",
      "idle_ms",
      "prompt",
      "exit",
      "timeout",
      "session",
      "sessionId",
    ],
    writes: false,
  },
  listSessions: { required: [], optional: [], writes: false },
  openSession: { required: ["name"], optional: ["program", "cwd", "cols", "rows"], writes: true },
  resizeSession: { required: ["cols", "rows"], optional: ["session", "sessionId"], writes: true },
  closeSession: { required: ["name"], optional: [], writes: true },
  // Terminal MCP's session and recording tools, with its parameters.
  createSession: { required: [], optional: ["shell", "cols", "rows"], writes: true },
  destroySession: { required: ["sessionId"], optional: [], writes: true },
  startRecording: {
    required: [],
    optional: [
      "format",
      "mode",
      "outputDir",
      "idleTimeLimit",
      "maxDuration",
      "inactivityTimeout",
      "session",
      "sessionId",
    ],
    writes: true,
  },
  stopRecording: { required: ["recordingId"], optional: [], writes: true },
};

/** Parameter types as documented by seed 004 (Terminal MCP) and seed 003 (the command tool). */
const TYPES: Record<string, Record<string, string>> = {
  type: { text: "string", session: "string", sessionId: "string" },
  destroySession: { sessionId: "string" },
  stopRecording: { recordingId: "string" },
  startRecording: { format: "string", outputDir: "string", maxDuration: "number" },
  sendKey: { key: "string" },
  getContent: { visibleOnly: "boolean" },
  terminal_execute: {
    command: "string",
    is_input: "boolean",
    no_enter: "boolean",
    timeout: "number",
    terminal_id: "string",
  },
  wait: { text: "string", regex: "string", idle_ms: "integer", timeout: "number" },
  openSession: { name: "string", program: "array", cols: "integer", rows: "integer" },
  resizeSession: { cols: "integer", rows: "integer" },
  closeSession: { name: "string" },
};

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema & { description?: string }>;
  required?: string[];
  minimum?: number;
  maximum?: number;
}

describe("mcp tools/list", () => {
  it("mcp: initialize names the server, offers tools and gives instructions; ping answers", async () => {
    await withMcp(async (mcp) => {
      assert.equal(mcp.client.getServerVersion()?.name, "termbridge");
      assert.ok(mcp.client.getServerCapabilities()?.tools, "tools capability");
      assert.match(mcp.client.getInstructions() ?? "", /terminal_execute/);
      await mcp.client.ping(); // Answered (an error would throw).
    });
  });

  it("mcp: tools/list gives every tool, in order, each with a description", async () => {
    await withMcp(async (mcp) => {
      const { tools } = await mcp.client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), Object.keys(TOOLS));
      for (const tool of tools) {
        assert.ok((tool.description ?? "").length > 20, `${tool.name} has a description`);
      }
    });
  });

  it("mcp: every inputSchema is an object with described properties and the documented required fields", async () => {
    await withMcp(async (mcp) => {
      const { tools } = await mcp.client.listTools();
      for (const tool of tools) {
        const schema = tool.inputSchema as JsonSchema;
        const expected = TOOLS[tool.name];
        assert.equal(schema.type, "object", tool.name);
        const properties = schema.properties ?? {};
        assert.deepEqual(
          Object.keys(properties).sort(),
          [...expected.required, ...expected.optional].sort(),
          `${tool.name} properties`,
        );
        for (const [name, property] of Object.entries(properties)) {
          assert.ok(
            typeof property.description === "string" && property.description.length > 0,
            `${tool.name}.${name} has a description`,
          );
        }
        assert.deepEqual(
          [...schema.required ?? []].sort(),
          [...expected.required].sort(),
          tool.name,
        );
        for (const [name, type] of Object.entries(TYPES[tool.name] ?? {})) {
          assert.equal(properties[name]?.type, type, `${tool.name}.${name} is ${type}`);
        }
      }
    });
  });

  it("mcp: terminal_execute's timeout is at least 0 and says it is capped at 60 seconds", async () => {
    await withMcp(async (mcp) => {
      const { tools } = await mcp.client.listTools();
      const execute = tools.find((tool) => tool.name === "terminal_execute")!;
      const timeout = (execute.inputSchema as JsonSchema).properties!.timeout;
      assert.equal(timeout.minimum, 0);
      assert.equal(timeout.maximum, undefined);
      assert.match(timeout.description ?? "", /CAPPED AT 60/);
    });
  });

  it('mcp: an unknown tool answers "Unknown tool" as a tool error', async () => {
    await withMcp(async (mcp) => {
      const result = await mcp.call("teleport", { to: "mars" });
      assert.deepEqual(result, {
        text: 'Error: Unknown tool: "teleport"',
        isError: true,
        structured: undefined,
      });
      // The server goes on.
      assert.equal((await mcp.call("listSessions")).isError, false);
    });
  });

  it("mcp: --read-only lists only the tools that read, and an input tool is an error", async () => {
    await withMcp(async (mcp) => {
      const { tools } = await mcp.client.listTools();
      const reading = Object.entries(TOOLS).filter(([, tool]) => !tool.writes).map(([n]) => n);
      assert.deepEqual(tools.map((tool) => tool.name), reading);
      const calls: [string, Record<string, unknown>][] = [
        ["type", { text: "touch /tmp/should-not-exist" }],
        ["sendKey", { key: "Enter" }],
        ["clear", {}],
        ["terminal_execute", { command: "echo hi" }],
        ["openSession", { name: "x" }],
        ["resizeSession", { cols: 80, rows: 24 }],
        ["createSession", {}],
        ["startRecording", {}],
        ["closeSession", { name: "default" }],
      ];
      for (const [name, args] of calls) {
        const result = await mcp.call(name, args);
        assert.equal(result.isError, true, name);
        assert.equal(result.text, `Error: Tool "${name}" is not available in read-only mode`);
      }
      // Reading still works, and nothing was typed.
      const content = await mcp.ok("getContent");
      assert.doesNotMatch(content, /should-not-exist/);
      const screenshot = JSON.parse(await mcp.ok("takeScreenshot"));
      assert.deepEqual(screenshot.dimensions, { cols: 120, rows: 40 });
    }, { args: ["--read-only"] });
  });
});
