/**
 * The session server's JSON-RPC framing on its socket: termbridge's own
 * (lib/jsonrpc), so ids keep every digit and an over-long line is answered
 * and skipped instead of closing the connection.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runtime, type ServedConnection } from "../../lib/runtime/mod.ts";
import { serveRpc } from "../../lib/server/rpc_host.ts";
import { readFirstLine, socketMessages } from "../../lib/server/socket_streams.ts";
import { SessionManager } from "../../lib/sessions/manager.ts";

/** Serves `rpc` connections on a private socket, with a small line ceiling; runs `body` with its path. */
async function withRpcServer(body: (path: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "termbridge-framing-"));
  const path = join(dir, "s.sock");
  const sockets = new Set<ServedConnection>();
  const server = await runtime.listenUnix(path, async (socket) => {
    sockets.add(socket);
    const { rest } = await readFirstLine(socket);
    const stream = socketMessages(socket, rest, { maxLineBytes: 1024 });
    await serveRpc(stream, { sessions: new SessionManager(), socket: path, stop: () => {} });
    socket.end();
  });
  try {
    await body(path);
  } finally {
    for (const socket of sockets) socket.destroy();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sends `lines` after a hello and collects the raw reply lines until `count` came. */
function exchange(path: string, lines: string[], count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`Timed out waiting for ${count} replies; got: ${text}`));
    }, 30_000);
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      text += chunk.toString("utf8");
      const replies = text.split("\n").filter((line) => line !== "");
      if (replies.length >= count && text.endsWith("\n")) {
        clearTimeout(timer);
        socket.destroy();
        resolve(replies);
      }
    });
    socket.write(`{"hello":"termbridge","kind":"rpc"}\n` + lines.join("\n") + "\n");
  });
}

describe("session server framing", () => {
  it("keeps a big integer id's digits in the reply, answers an over-long line with -32600 and goes on", () =>
    withRpcServer(async (path) => {
      const big = "123456789012345678901234567890";
      const replies = await exchange(path, [
        `{"jsonrpc":"2.0","id":${big},"method":"no/such"}`,
        `{"jsonrpc":"2.0","id":2,"method":"server/info","params":{"pad":"${"x".repeat(4000)}"}}`,
        `{"jsonrpc":"2.0","id":3,"method":"server/info"}`,
      ], 3);
      // The rejection is written by the framing, the answers by the connection: any order.
      const byId = (id: string) => replies.find((line) => line.includes(`"id":${id}`));
      const unknown = byId(big);
      assert.ok(unknown !== undefined, `the id keeps its digits: ${replies.join("\n")}`);
      assert.match(unknown, new RegExp(`"id":${big}[,}]`));
      assert.equal(JSON.parse(unknown).error.code, -32601);
      const tooLong = JSON.parse(byId("null")!);
      assert.equal(tooLong.error.code, -32600);
      assert.match(tooLong.error.message, /longer than the 1024 allowed/);
      const info = JSON.parse(byId("3")!);
      assert.equal(typeof info.result.pid, "number", "the connection survived the long line");
    }));
});
