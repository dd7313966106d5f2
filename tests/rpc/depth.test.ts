/**
 * Issue 15, item 13: a JSON-RPC message nested deeper than the parser's stack
 * (100,000 levels) or than termbridge's limit (`MAX_DEPTH`) is answered with
 * -32600 naming the request's own id, digit for digit, in every loop of the
 * built binary: `serve`, `mcp`, the session server's socket and `acp`'s side
 * facing the agent. The loop goes on.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseMessage, rawId, stringifyMessage } from "../../lib/jsonrpc/exact_ids.ts";
import { MAX_DEPTH, readLine } from "../../lib/jsonrpc/ndjson.ts";
import { scriptArgv } from "../helpers.ts";
import { runAcp } from "../acp/acp_run.ts";
import { inWorld } from "../server/_kit.ts";
import { MCP_INITIALIZE, RawRpc } from "./_kit.ts";

const BIG = "18446744073709551616";

/** A request whose params nest an array `levels` deep. */
function nested(id: string, method: string, levels: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{"x":${"[".repeat(levels)}${
    "]".repeat(levels)
  }}}`;
}

describe("jsonrpc depth limit", () => {
  it("depth: the raw-text id reader finds the top-level id, digits kept", () => {
    const deep = "[".repeat(50_000);
    assert.equal(rawId(`{"jsonrpc":"2.0","id":7,"params":${deep}`), 7);
    assert.equal(rawId(`{"params":{"id":1,"x":"\\"id\\":2"},"id":"a-\\"b"}`), 'a-"b');
    assert.equal(rawId(`{"id":null}`), null);
    assert.equal(rawId(`[{"id":3}]`), undefined);
    assert.equal(rawId(`{"x":{"id":3}}`), undefined);
    assert.equal(stringifyMessage({ id: rawId(`{"id":${BIG},"p":${deep}`) }), `{"id":${BIG}}`);
    assert.equal(stringifyMessage(parseMessage(`{"id":${BIG}}`)), `{"id":${BIG}}`);
  });

  it(`depth: ${MAX_DEPTH} levels are read, one more is refused with the id`, () => {
    const line = (levels: number) => ({
      kind: "line" as const,
      text: `{"jsonrpc":"2.0","id":5,"method":"m","params":${"[".repeat(levels)}${
        "]".repeat(levels)
      }}`,
    });
    assert.ok("message" in readLine(line(MAX_DEPTH - 1), 1e9)!);
    const refused = readLine(line(MAX_DEPTH), 1e9)!;
    assert.ok("reject" in refused);
    assert.deepEqual(
      { id: refused.reject.id, code: refused.reject.code },
      { id: 5, code: -32600 },
    );
    assert.match(refused.reject.message, new RegExp(`deeper than ${MAX_DEPTH} levels`));
  });

  for (const mode of ["serve", "mcp"] as const) {
    it(`depth: ${mode} answers a request 100,000 levels deep with -32600 and its own id`, async () => {
      const rpc = RawRpc.start(mode, ["--no-audit"]);
      try {
        if (mode === "mcp") {
          await rpc.send(MCP_INITIALIZE);
          await rpc.answer("0");
        }
        const method = mode === "serve" ? "sessions/list" : "ping";
        await rpc.send(
          nested(BIG, method, 100_000),
          nested(`"shallow"`, method, MAX_DEPTH + 10),
          `{"jsonrpc":"2.0","id":9,"method":"${method}"}`,
        );
        for (const id of [BIG, `"shallow"`]) {
          const answer = await rpc.answer(id);
          assert.equal(answer.error?.code, -32600, answer.raw);
          assert.match(answer.error!.message, /deeper than \d+ levels/);
        }
        assert.ok((await rpc.answer("9")).result !== undefined, "the loop goes on");
        assert.equal(rpc.nullIdAnswers().length, 0);
      } finally {
        await rpc.dispose();
      }
    });
  }

  it("depth: the session server's socket answers a deep request with -32600 and its id", async () => {
    await inWorld("binary", async (world) => {
      await world.ok(["new", "probe", "--", "cat"]); // Starts the server (ls starts none).
      const replies = await new Promise<string[]>((resolve, reject) => {
        const socket = connect(world.socket);
        let text = "";
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error(`Timed out waiting for the replies; got: ${text}`));
        }, 30_000);
        socket.on("error", reject);
        socket.on("data", (chunk) => {
          text += chunk.toString("utf8");
          const lines = text.split("\n").filter((line) => line !== "");
          if (lines.length >= 3 && text.endsWith("\n")) {
            clearTimeout(timer);
            socket.destroy();
            resolve(lines);
          }
        });
        socket.write(
          `{"hello":"termbridge","kind":"rpc"}\n${nested(BIG, "server/info", 100_000)}\n` +
            `{"jsonrpc":"2.0","id":3,"method":"server/info"}\n`,
        );
      });
      const deep = replies.find((line) => line.includes(`"id":${BIG}`));
      assert.ok(deep !== undefined, replies.join("\n"));
      assert.equal(JSON.parse(deep).error.code, -32600);
      const info = replies.find((line) => line.includes(`"id":3`));
      assert.equal(typeof JSON.parse(info!).result.pid, "number", "the connection goes on");
    });
  });

  it("depth: acp answers the agent's request 100,000 levels deep with -32600 and its id", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tb-acp-depth-"));
    try {
      writeFileSync(join(cwd, "notes.txt"), "hello\n");
      const agent = scriptArgv(new URL("./raw_id_agent.ts", import.meta.url).pathname);
      const run = await runAcp(agent, {
        cwd,
        prompts: ["go"],
        json: false,
        flags: ["--yes"],
        env: { RAW_AGENT_DEEP: "100000" },
      });
      assert.equal(run.status.exitCode, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`ID-ECHO: ${BIG} CONTENT: \\{"code":-32600`));
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
