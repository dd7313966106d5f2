/**
 * The agent of bench/_acp_mcp.ts: an ACP agent (the SDK's agent side) that
 * starts the MCP servers offered in `session/new` with the official MCP SDK
 * client, as real agents do, and for the prompt `bench N` runs `true` N
 * times each way, as an agent's tool call: tool_call, permission, then
 * either termbridge's MCP `terminal_execute` or ACP `terminal/create` +
 * `wait_for_exit` + `release`, then tool_call_update. It answers with the
 * round-trip times (ms) as JSON in a message.
 * @module
 */

import process from "node:process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { Client } from "@modelcontextprotocol/sdk/client";
// @deno-types="../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

let mcp: Client | undefined;
let calls = 0;

async function asToolCall(
  client: acp.AgentContext,
  sessionId: string,
  body: () => Promise<void>,
): Promise<void> {
  const toolCallId = `bench-${++calls}`;
  const update = (u: Record<string, unknown>) =>
    client.notify(acp.methods.client.session.update, {
      sessionId,
      update: { toolCallId, ...u } as acp.SessionUpdate,
    });
  await update({
    sessionUpdate: "tool_call",
    title: "true",
    kind: "execute",
    rawInput: { command: "true" },
  });
  await client.request(acp.methods.client.session.requestPermission, {
    sessionId,
    toolCall: { toolCallId, rawInput: { command: "true" } },
    options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
  });
  await body();
  await update({ sessionUpdate: "tool_call_update", status: "completed" });
}

const app = acp.agent({ name: "bench-mcp-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {},
    authMethods: [],
  }))
  .onRequest(acp.methods.agent.session.new, async ({ params }) => {
    const stdio = params.mcpServers[0] as acp.McpServerStdio | undefined;
    if (stdio !== undefined) {
      mcp = new Client({ name: "bench", version: "0.0.1" });
      await mcp.connect(
        new StdioClientTransport({
          command: stdio.command,
          args: stdio.args,
          env: process.env as Record<string, string>,
        }),
      );
      await mcp.listTools();
    }
    return { sessionId: "bench-1" };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const text = params.prompt.map((b) => b.type === "text" ? b.text : "").join("");
    const rounds = Number(text.split(" ")[1] ?? "0");
    const times = { mcp: [] as number[], acp: [] as number[] };
    for (let i = 0; i < rounds && mcp !== undefined; i++) {
      let t = performance.now();
      await asToolCall(client, sessionId, async () => {
        await mcp!.callTool({ name: "terminal_execute", arguments: { command: "true" } });
      });
      times.mcp.push(performance.now() - t);
      t = performance.now();
      await asToolCall(client, sessionId, async () => {
        const terminal = await client.createTerminal({ sessionId, command: "true" });
        await terminal.waitForExit();
        await terminal.release();
      });
      times.acp.push(performance.now() - t);
    }
    await client.notify(acp.methods.client.session.update, {
      sessionId,
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `BENCH ${JSON.stringify(times)}` },
      },
    });
    return { stopReason: "end_turn" };
  });

const connection = app.connect(
  acp.ndJsonStream(
    Writable.toWeb(process.stdout) as unknown as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
  ),
);
await connection.closed;
await mcp?.close();
process.exit(0);
