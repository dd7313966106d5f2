/**
 * A scripted ACP agent speaking raw JSON lines (no SDK), for the test of ids
 * kept exact on termbridge's client side: on a prompt it sends
 * `fs/read_text_file` with the id 18446744073709551616 and tells, in its
 * reply, the id text termbridge's answer carried (and, with `RAW_AGENT_DEEP`,
 * params nested that deep).
 * @module
 */

import process from "node:process";

const BIG_ID = "18446744073709551616";
let pending = "";
let sessionCwd = "/";
let promptId: unknown;

function send(text: string): void {
  process.stdout.write(text + "\n");
}

function reply(id: unknown, result: unknown): void {
  send(JSON.stringify({ jsonrpc: "2.0", id, result }));
}

function receive(line: string): void {
  const idText = /"id":([^,}]+)/.exec(line)?.[1];
  const message = JSON.parse(line);
  if (message.method === "initialize") {
    reply(message.id, { protocolVersion: 1, agentCapabilities: {}, authMethods: [] });
  } else if (message.method === "session/new") {
    sessionCwd = message.params.cwd;
    reply(message.id, { sessionId: "raw-1" });
  } else if (message.method === "session/prompt") {
    promptId = message.id;
    // RAW_AGENT_DEEP=N: the request's params carry an array nested N levels deep.
    const deep = Number(process.env.RAW_AGENT_DEEP ?? 0);
    const extra = deep > 0 ? `,"extra":${"[".repeat(deep)}${"]".repeat(deep)}` : "";
    send(
      `{"jsonrpc":"2.0","id":${BIG_ID},"method":"fs/read_text_file","params":` +
        JSON.stringify({ sessionId: "raw-1", path: `${sessionCwd}/notes.txt` }).slice(0, -1) +
        extra + "}}",
    );
  } else if (message.method === undefined && idText !== undefined && promptId !== undefined) {
    const text = `ID-ECHO: ${idText} CONTENT: ${JSON.stringify(message.result ?? message.error)}`;
    send(JSON.stringify({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: "raw-1",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
      },
    }));
    reply(promptId, { stopReason: "end_turn" });
    promptId = undefined;
  }
}

process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk: string) => {
  pending += chunk;
  let newline: number;
  while ((newline = pending.indexOf("\n")) !== -1) {
    const line = pending.slice(0, newline).trim();
    pending = pending.slice(newline + 1);
    if (line !== "") receive(line);
  }
});
