/**
 * The JSON-RPC loops of `serve` and `mcp` (the built binary): ids echoed
 * digit for digit, every JSON value that is not a message answered with
 * -32600 while the loop goes on, `$/cancel_request` by `requestId` or `id`,
 * and end of input ending pending requests promptly.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { isAlive, waitUntil } from "../helpers.ts";
import { MCP_INITIALIZE, RawRpc, request } from "./_kit.ts";

/** Runs `body` with a raw client of `termbridge MODE`, always disposed. */
async function withRpc(
  mode: "serve" | "mcp",
  body: (rpc: RawRpc) => Promise<void>,
): Promise<void> {
  const rpc = RawRpc.start(mode);
  try {
    if (mode === "mcp") {
      await rpc.send(MCP_INITIALIZE);
      await rpc.answer("0");
      await rpc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`);
    }
    await body(rpc);
  } finally {
    await rpc.dispose();
  }
}

/** A cheap method of each mode. */
const PING = { serve: "sessions/list", mcp: "ping" } as const;

/** Lines that are JSON but not a message, each answered with -32600 and id null. */
const NOT_MESSAGES = ["null", "5", `"text"`, "true", "[]", `[${request("7", "ping")}]`];

for (const mode of ["serve", "mcp"] as const) {
  describe(`jsonrpc framing (${mode})`, () => {
    it(`${mode}: ids beyond a double's precision come back with the same digits`, async () => {
      await withRpc(mode, async (rpc) => {
        for (const id of ["18446744073709551616", "9007199254740993", "-9007199254740993"]) {
          await rpc.send(request(id, PING[mode]));
          const answer = await rpc.answer(id);
          assert.ok(answer.result !== undefined, answer.raw);
          assert.match(answer.raw, new RegExp(`"id":${id}[,}]`));
        }
        await rpc.send(request(`"x-1"`, PING[mode]));
        assert.ok((await rpc.answer(`"x-1"`)).result !== undefined);
      });
    });

    it(`${mode}: a JSON value that is not a message gets -32600 and the loop goes on`, async () => {
      await withRpc(mode, async (rpc) => {
        await rpc.send(...NOT_MESSAGES, "{not json", request("42", PING[mode]));
        const answer = await rpc.answer("42");
        assert.ok(answer.result !== undefined, answer.raw);
        await waitUntil(
          () => rpc.nullIdAnswers().length >= NOT_MESSAGES.length + 1,
          "an error for every bad line",
        );
        const codes = rpc.nullIdAnswers().map((line) => line.error?.code);
        assert.deepEqual(codes.filter((code) => code === -32600).length, NOT_MESSAGES.length);
        assert.deepEqual(codes.filter((code) => code === -32700).length, 1);
        assert.match(
          rpc.nullIdAnswers()[0].error!.message,
          /expected a JSON-RPC 2\.0 message object, got null/,
        );
      });
    });

    it(`${mode}: a request with id null is refused with -32600 (id null) and not run`, async () => {
      await withRpc(mode, async (rpc) => {
        await rpc.send(request("null", PING[mode]), request("2", PING[mode]));
        await rpc.answer("2");
        await waitUntil(() => rpc.nullIdAnswers().length >= 1, "the answer with id null");
        const [refusal, ...more] = rpc.nullIdAnswers();
        assert.equal(refusal.error?.code, -32600, refusal.raw);
        assert.match(refusal.error!.message, /id is null.*use a string or a number/);
        assert.equal(more.length, 0);
      });
    });

    it(`${mode}: after a line "null", end of input still ends termbridge and its shells`, async () => {
      const rpc = RawRpc.start(mode);
      try {
        const open = mode === "serve"
          ? request("1", "sessions/open", { name: "a" })
          : request("1", "tools/call", { name: "openSession", arguments: { name: "a" } });
        if (mode === "mcp") await rpc.send(MCP_INITIALIZE);
        await rpc.send(open, "null");
        const opened = await rpc.answer("1");
        const pid = mode === "serve"
          ? opened.result.pid
          : JSON.parse(opened.result.content[0].text).pid; // MCP sends the session once, as text.
        assert.ok(pid > 0, opened.raw);
        await rpc.send(request("2", PING[mode]));
        await rpc.answer("2");
        await rpc.child.closeStdin();
        const { status } = await rpc.child.finished(10_000);
        assert.equal(status.exitCode, 0);
        await waitUntil(() => !isAlive(pid), `the shell ${pid} to end`);
      } finally {
        await rpc.dispose();
      }
    });
  });
}

describe("jsonrpc cancellation and end of input", () => {
  const wait = (id: string) =>
    request(id, "sessions/wait", { name: "a", text: "never printed", timeout: 600_000 });

  it("serve: $/cancel_request names the request by requestId (ACP) or by id (LSP)", async () => {
    await withRpc("serve", async (rpc) => {
      await rpc.send(request("1", "sessions/open", { name: "a" }));
      await rpc.answer("1");
      const cancels = [
        ["2", `{"requestId":2}`],
        ["3", `{"id":3}`],
        ["18446744073709551616", `{"requestId":18446744073709551616}`],
        [`"s-4"`, `{"id":"s-4"}`],
      ];
      for (const [id, params] of cancels) {
        await rpc.send(wait(id));
        await rpc.send(`{"jsonrpc":"2.0","method":"$/cancel_request","params":${params}}`);
        const answer = await rpc.answer(id, 10_000);
        assert.equal(answer.error?.code, -32800, answer.raw);
      }
    });
  });

  it("serve: end of input answers a pending wait and exec with an error and exits at once", async () => {
    const rpc = RawRpc.start("serve");
    try {
      await rpc.send(request("1", "sessions/open", { name: "a" }));
      const { result } = await rpc.answer("1");
      await rpc.send(wait("2"), request("3", "sessions/exec", { name: "a", command: "sleep 600" }));
      await rpc.send(request("4", "sessions/list")); // The wait and exec are running.
      await rpc.answer("4");
      const ended = performance.now();
      await rpc.child.closeStdin();
      const answer = await rpc.answer("2", 10_000);
      assert.equal(answer.error?.code, -32800, answer.raw);
      assert.match(answer.error!.message, /input ended/);
      await rpc.answer("3", 10_000);
      const { status } = await rpc.child.finished(10_000);
      const tookMs = performance.now() - ended;
      assert.equal(status.exitCode, 0);
      assert.ok(tookMs < 5000, `exited ${Math.round(tookMs)} ms after end of input`);
      assert.ok(!isAlive(result.pid));
    } finally {
      await rpc.dispose();
    }
  });

  it("mcp: end of input answers a pending wait with an error and exits at once", async () => {
    const rpc = RawRpc.start("mcp");
    try {
      await rpc.send(MCP_INITIALIZE, `{"jsonrpc":"2.0","method":"notifications/initialized"}`);
      await rpc.answer("0");
      await rpc.send(request("1", "tools/call", { name: "getContent", arguments: {} }));
      await rpc.answer("1"); // The default session is open.
      await rpc.send(
        request("2", "tools/call", { name: "wait", arguments: { text: "never", timeout: 60 } }),
        request("3", "ping"),
      );
      await rpc.answer("3");
      const ended = performance.now();
      await rpc.child.closeStdin();
      const answer = await rpc.answer("2", 10_000);
      assert.ok(answer.error !== undefined || answer.result?.isError === true, answer.raw);
      const { status } = await rpc.child.finished(10_000);
      const tookMs = performance.now() - ended;
      assert.equal(status.exitCode, 0);
      assert.ok(tookMs < 5000, `exited ${Math.round(tookMs)} ms after end of input`);
    } finally {
      await rpc.dispose();
    }
  });
});
