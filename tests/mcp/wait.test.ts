/**
 * End-to-end tests of the `wait` tool of `termbridge mcp`, through the
 * official MCP SDK client over stdio: text, regex, gone, idle, prompt, exit,
 * and the timeout error that shows the screen (one test writes raw JSON-RPC
 * lines, to send two requests in one write).
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { withMcp } from "./_kit.ts";
import { call, INITIALIZE, RawServer } from "./_raw.ts";

describe("mcp wait", () => {
  it("mcp: wait for a regex returns when an output line matches, with the screen and the match", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("type", { text: "sleep 0.3; echo ready-$((3+4))" });
      await mcp.ok("sendKey", { key: "Enter" });
      // A regex anchored to a whole line: the echoed command line also contains "ready-".
      const result = JSON.parse(await mcp.ok("wait", { regex: "^ready-\\d+$", timeout: 10 }));
      assert.equal(result.match, "ready-7");
      assert.match(result.screen, /^ready-7$/m);
      assert.equal(typeof result.elapsedMs, "number");
    });
  });

  it("mcp: wait for text, and for text to be gone after clear", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("terminal_execute", { command: "echo visible-marker" });
      const seen = JSON.parse(await mcp.ok("wait", { text: "visible-marker" }));
      assert.match(seen.screen, /visible-marker/);
      await mcp.ok("clear");
      const gone = JSON.parse(await mcp.ok("wait", { text: "visible-marker", gone: true }));
      assert.doesNotMatch(gone.screen, /visible-marker/);
    });
  });

  it("mcp: wait idle_ms returns after that long without output", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("getContent"); // Starts the default shell.
      const result = JSON.parse(await mcp.ok("wait", { idle_ms: 150, timeout: 10 }));
      assert.ok(result.elapsedMs >= 140, `${result.elapsedMs} ms`);
    });
  });

  it("mcp: wait exit returns once a session's program ends", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("openSession", { name: "short", program: ["sh", "-c", "read x; echo bye"] });
      await mcp.ok("type", { text: "go\n", session: "short" });
      const result = JSON.parse(await mcp.ok("wait", { exit: true, session: "short" }));
      assert.match(result.screen, /bye/);
      const { sessions } = JSON.parse(await mcp.ok("listSessions"));
      assert.deepEqual(sessions.find((s: { name: string }) => s.name === "short").exitStatus, {
        exitCode: 0,
        signal: null,
      });
    });
  });

  it("mcp: a wait that times out is a tool error naming the condition and showing the screen", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("terminal_execute", { command: "echo on-screen" });
      const result = await mcp.call("wait", { text: "never-there", timeout: 0.3 });
      assert.equal(result.isError, true);
      assert.match(
        result.text,
        /^Error: Timed out after 300 ms waiting for "never-there" to appear; the screen shows:\n/,
      );
      assert.match(result.text, /^on-screen$/m);
    });
  });

  it("mcp: wait without a condition, or with a bad regex, is a clear error", async () => {
    await withMcp(async (mcp) => {
      const nothing = await mcp.call("wait", {});
      assert.equal(nothing.isError, true);
      assert.match(nothing.text, /^Error: Cannot wait for nothing: give one of text, regex/);
      const bad = await mcp.call("wait", { regex: "(" });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /^Error: Cannot wait for \/\(\/: /);
    });
  });

  it("mcp: wait prompt after type + sendKey Enter waits for that command's prompt", async () => {
    // Right after Enter the old prompt is no longer current, even before the shell says the
    // command started: a prompt wait sent at once must see the command's output.
    const server = new RawServer();
    try {
      server.send(INITIALIZE);
      await server.response(1);
      server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      server.send(call(2, "getContent", {})); // Starts the default shell, waits for its prompt.
      await server.response(2);
      server.send(call(3, "type", { text: "sleep 0.5; echo slept-$((1+1))" }));
      await server.response(3);
      // Enter and the wait in one write, as a client may pipeline them: the server reads both
      // before the shell reads the Enter.
      server.send(call(4, "sendKey", { key: "Enter" }), call(5, "wait", { prompt: true }));
      const waited = await server.response(5) as { result: { content: { text: string }[] } };
      assert.match(JSON.parse(waited.result.content[0].text).screen, /^slept-2$/m);
    } finally {
      await server.stop();
    }
  });
});
