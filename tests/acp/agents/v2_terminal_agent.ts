/**
 * A test agent that shows commands the ACP v2 way, over a v1 connection:
 * agent-owned terminals as `terminal_update` and `terminal_output_chunk`
 * session updates (typed with the SDK's experimental v2 schema). One turn:
 * - `make check` in terminal `v2-make`, embedded by tool call `v2-call`
 *   (which has no `rawInput`: the command is the terminal's), output in two
 *   chunks that split a UTF-8 character, exit code 2, then the call fails;
 * - `sleep 0` in terminal `v2-lone`, which no tool call embeds, its output
 *   as a snapshot, exit code 0.
 * @module
 */

import { Buffer } from "node:buffer";
import * as acp from "@agentclientprotocol/sdk";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { initializeResponse, say, serveStdio } from "./kit.ts";

/** `bytes` (or a text's UTF-8) as base64. */
const base64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString("base64");

/** The session's directory, where its commands run. */
let cwd = "/";

const app = acp.agent({ name: "v2-terminal-agent" })
  .onRequest(acp.methods.agent.initialize, () => initializeResponse("v2-terminal-agent"))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    cwd = params.cwd;
    return { sessionId: "v2-1" };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    // A v1 connection has no type for these: they go out as the v2 schema has them.
    const send = (update: v2.SessionUpdate | acp.SessionUpdate) =>
      client.notify(acp.methods.client.session.update, {
        sessionId,
        update: update as acp.SessionUpdate,
      });
    await send({
      sessionUpdate: "tool_call",
      toolCallId: "v2-call",
      title: "Run the checks",
      kind: "execute",
      status: "in_progress",
      content: [{ type: "terminal", terminalId: "v2-make" }],
    });
    await send({
      sessionUpdate: "terminal_update",
      terminalId: "v2-make",
      command: "make check",
      cwd,
    });
    const bytes = Buffer.from("checking caf\u00e9\nboom\n");
    const split = bytes.indexOf(0xc3) + 1; // Inside the two bytes of "é".
    await send({
      sessionUpdate: "terminal_output_chunk",
      terminalId: "v2-make",
      data: base64(bytes.subarray(0, split)),
    });
    await send({
      sessionUpdate: "terminal_output_chunk",
      terminalId: "v2-make",
      data: base64(bytes.subarray(split)),
    });
    await send({
      sessionUpdate: "terminal_update",
      terminalId: "v2-make",
      exitStatus: { exitCode: 2 },
    });
    await send({ sessionUpdate: "tool_call_update", toolCallId: "v2-call", status: "failed" });
    await send({
      sessionUpdate: "terminal_update",
      terminalId: "v2-lone",
      command: "sleep 0",
      cwd,
    });
    await send({
      sessionUpdate: "terminal_update",
      terminalId: "v2-lone",
      output: { data: base64("lone output\n") },
      exitStatus: { exitCode: 0 },
    });
    await say(client, sessionId, "done");
    return { stopReason: "end_turn" as const };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

await serveStdio(app);
