/**
 * A test agent that uses the MCP servers the client offers in `session/new`,
 * with the official MCP SDK client, the way real agents do: it starts each
 * stdio server (command, args, env), lists its tools, and for a prompt `run
 * COMMAND` announces a tool call (`rawInput: {command}`), calls the server's
 * `terminal_execute` with it and completes the call with the result's text.
 * It reports the servers it was offered (with the socket's modes), the tool
 * names, and each result.
 * @module
 */

import { statSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import * as acp from "@agentclientprotocol/sdk";
import { Client } from "@modelcontextprotocol/sdk/client";
// @deno-types="../../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { initializeResponse, promptText, report, say, serveStdio } from "./kit.ts";

const clients: Client[] = [];
let offered: unknown[] = [];
let calls = 0;

/** The modes of the `--connect` socket and its directory, as octal strings. */
function socketModes(args: string[]): { dir: string; socket: string } | null {
  const at = args.indexOf("--connect");
  if (at === -1) return null;
  const path = args[at + 1];
  const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
  return { dir: mode(dirname(path)), socket: mode(path) };
}

const app = acp.agent({ name: "mcp-agent" })
  .onRequest(acp.methods.agent.initialize, () => initializeResponse("mcp-agent"))
  .onRequest(acp.methods.agent.session.new, async ({ params }) => {
    offered = params.mcpServers.map((server) => {
      const stdio = server as acp.McpServerStdio;
      return { ...stdio, modes: socketModes(stdio.args ?? []) };
    });
    for (const server of params.mcpServers) {
      const stdio = server as acp.McpServerStdio;
      const client = new Client({ name: "mcp-agent", version: "0.0.1" });
      await client.connect(
        new StdioClientTransport({
          command: stdio.command,
          args: stdio.args,
          env: {
            ...process.env as Record<string, string>,
            ...Object.fromEntries((stdio.env ?? []).map((e) => [e.name, e.value])),
          },
          stderr: "inherit",
        }),
      );
      clients.push(client);
    }
    return { sessionId: "mcp-1", _meta: { meta: params._meta ?? null } };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const text = promptText(params.prompt);
    if (text === "servers") {
      await report(client, sessionId, "servers", offered);
      const tools = clients.length === 0 ? [] : (await clients[0].listTools()).tools;
      await report(client, sessionId, "tools", tools.map((t) => t.name));
    } else if (text.startsWith("run ")) {
      const command = text.slice(4);
      const toolCallId = `call-${++calls}`;
      await client.notify(acp.methods.client.session.update, {
        sessionId,
        update: {
          sessionUpdate: "tool_call",
          toolCallId,
          title: "mcp__termbridge__terminal_execute",
          kind: "execute",
          status: "in_progress",
          rawInput: { command },
        },
      });
      const result = await clients[0].callTool({
        name: "terminal_execute",
        arguments: { command, timeout: 20 },
      });
      const resultText = (result.content as { type: string; text: string }[])[0]?.text ?? "";
      await client.notify(acp.methods.client.session.update, {
        sessionId,
        update: {
          sessionUpdate: "tool_call_update",
          toolCallId,
          status: result.isError ? "failed" : "completed",
          content: [{ type: "content", content: { type: "text", text: resultText } }],
        },
      });
      await report(client, sessionId, "result", {
        isError: result.isError ?? false,
        text: resultText,
      });
    }
    await say(client, sessionId, "turn done");
    return { stopReason: "end_turn" };
  });

await serveStdio(app);
