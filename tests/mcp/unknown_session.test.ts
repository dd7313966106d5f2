/**
 * Issue 16 items 6 and 9, through `termbridge mcp` (the built binary when it
 * is current): a tool given a session nobody opened says so instead of
 * starting a shell, and a wait that times out shows the visible screen.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { withMcp } from "./_kit.ts";

describe("mcp: unknown sessions and wait timeouts", () => {
  it("mcp: tools other than the command tool and openSession never start a session for a typo", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("openSession", { name: "work" });
      const calls: [string, Record<string, unknown>][] = [
        ["getContent", { session: "tpyo" }],
        ["takeScreenshot", { sessionId: "nosuch-id" }],
        ["wait", { session: "other", text: "x", timeout: 0.2 }],
        ["type", { session: "tpyo", text: "ls" }],
      ];
      for (const [name, args] of calls) {
        const result = await mcp.call(name, args);
        assert.equal(result.isError, true, `${name}: ${result.text}`);
        assert.match(result.text, /No session is called "[a-z-]+" \(open: "work"\)/, name);
      }
      const { sessions } = JSON.parse(await mcp.ok("listSessions"));
      assert.deepEqual(sessions.map((s: { name: string }) => s.name), ["work"]);
    });
  });

  it("mcp: under --read-only an unknown session is refused too", async () => {
    await withMcp(async (mcp) => {
      const result = await mcp.call("getContent", { session: "tpyo" });
      assert.equal(result.isError, true, result.text);
      assert.match(result.text, /No session is called "tpyo"/);
      const { sessions } = JSON.parse(await mcp.ok("listSessions"));
      assert.deepEqual(sessions, []);
    }, { args: ["--read-only"] });
  });

  it("mcp: a wait that times out shows the visible screen, not the scrollback", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("terminal_execute", { command: "seq 1 3000" });
      const result = await mcp.call("wait", { text: "never-there", timeout: 0.3 });
      assert.equal(result.isError, true);
      assert.match(result.text, /^3000$/m);
      assert.doesNotMatch(result.text, /^1000$/m);
      assert.ok(result.text.split("\n").length < 60, `${result.text.split("\n").length} lines`);
    });
  });
});
