/**
 * End-to-end tests of bad arguments to `termbridge mcp`'s tools, through the
 * official MCP SDK client over stdio: wrong types, missing required fields
 * and values out of range are tool errors that name the tool and the field,
 * and the server goes on.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { withMcp } from "./_kit.ts";

/** [tool, arguments, the field the error must name, what it must say about it]. */
const BAD_ARGUMENTS: [string, Record<string, unknown>, string, RegExp][] = [
  ["type", {}, "text", /expected string, received undefined/],
  ["type", { text: 42 }, "text", /expected string, received number/],
  ["type", { text: "x", session: "" }, "session", /too small/i],
  ["type", { text: "x", sessionId: 7 }, "sessionId", /expected string/],
  ["takeScreenshot", { format: "png" }, "format", /"ansi"\|"plain"/],
  ["destroySession", {}, "sessionId", /expected string, received undefined/],
  ["stopRecording", {}, "recordingId", /expected string, received undefined/],
  ["startRecording", { mode: "sometimes" }, "mode", /"always"\|"on-failure"/],
  ["sendKey", {}, "key", /expected string, received undefined/],
  ["sendKey", { key: "" }, "key", /too small/i],
  ["sendKey", { key: ["Enter"] }, "key", /expected string, received array/],
  ["getContent", { visibleOnly: "yes" }, "visibleOnly", /expected boolean, received string/],
  ["terminal_execute", {}, "command", /expected string, received undefined/],
  ["terminal_execute", { command: 3 }, "command", /expected string, received number/],
  ["terminal_execute", { command: "true", timeout: -1 }, "timeout", />=0/],
  ["terminal_execute", { command: "true", timeout: "5s" }, "timeout", /expected number/],
  ["terminal_execute", { command: "x", is_input: "true" }, "is_input", /expected boolean/],
  ["terminal_execute", { command: "x", terminal_id: "" }, "terminal_id", /too small/i],
  ["wait", { idle_ms: 0 }, "idle_ms", />=1/],
  ["wait", { idle_ms: 1.5 }, "idle_ms", /expected int/],
  ["wait", { text: "x", timeout: 61 }, "timeout", /<=60/],
  ["openSession", {}, "name", /expected string, received undefined/],
  ["openSession", { name: "x", cols: 1 }, "cols", />=2/],
  ["openSession", { name: "x", rows: 0 }, "rows", />=1/],
  ["openSession", { name: "x", program: [] }, "program", /too small/i],
  ["openSession", { name: "x", program: "bash" }, "program", /expected array/],
  ["resizeSession", { cols: 80 }, "rows", /expected number, received undefined/],
  ["resizeSession", { cols: 1, rows: 10 }, "cols", />=2/],
  ["closeSession", {}, "name", /expected string, received undefined/],
];

describe("mcp bad arguments", () => {
  it("mcp: wrong types, missing fields and out-of-range values are tool errors naming the field", async () => {
    await withMcp(async (mcp) => {
      for (const [tool, args, field, detail] of BAD_ARGUMENTS) {
        const where = `${tool} ${JSON.stringify(args)}`;
        const result = await mcp.call(tool, args);
        assert.equal(result.isError, true, where);
        const prefix = `Error: Invalid arguments for tool "${tool}": `;
        assert.ok(result.text.startsWith(prefix), `${where}: ${result.text}`);
        const issue = result.text.slice(prefix.length).split("; ").find((part) =>
          part.startsWith(`${field}: `)
        );
        assert.ok(issue !== undefined, `${where} names ${field}: ${result.text}`);
        assert.match(issue, detail, where);
      }
      // A misspelt argument names the ones the tool takes (a user wrote timeout_ms for wait).
      const misspelt = await mcp.call("wait", { text: "x", timeout_ms: 100 });
      assert.equal(misspelt.isError, true);
      assert.match(
        misspelt.text,
        /Unrecognized key: "timeout_ms" \(it takes text, regex, .*timeout/,
      );
      // Never a crash: the same server still runs commands.
      const echo = JSON.parse(await mcp.ok("terminal_execute", { command: "echo alive" }));
      assert.equal(echo.content, "alive\n");
    });
  });

  it("mcp: bad values the schema cannot catch are tool errors that say what is wrong", async () => {
    await withMcp(async (mcp) => {
      const cases: [string, Record<string, unknown>, RegExp][] = [
        [
          "openSession",
          { name: "bad name!" },
          /^Error: Cannot open session "bad name!": a name is/,
        ],
        ["openSession", { name: "p", program: ["no-such-program-tb"] }, /"no-such-program-tb"/],
        ["openSession", { name: "c", cwd: "relative/dir" }, /"relative\/dir".*absolute/],
        ["closeSession", { name: "nobody" }, /^Error: No session is called "nobody"/],
        ["sendKey", { key: "Ctrl+" }, /^Error: Unknown key: "Ctrl\+"/],
      ];
      for (const [tool, args, expected] of cases) {
        const result = await mcp.call(tool, args);
        assert.equal(result.isError, true, tool);
        assert.match(result.text, expected, `${tool} ${JSON.stringify(args)}`);
      }
      await mcp.ok("openSession", { name: "twice" });
      const twice = await mcp.call("openSession", { name: "twice" });
      assert.equal(twice.isError, true);
      assert.match(twice.text, /"twice": a session with that name is open/);
      assert.equal((await mcp.call("listSessions")).isError, false);
    });
  });

  it("mcp: terminal_execute names its session by terminal_id, session or sessionId, as every tool does", async () => {
    await withMcp(async (mcp) => {
      for (
        const [key, name] of [["sessionId", "by-id"], ["session", "by-name"], [
          "terminal_id",
          "by-tid",
        ]]
      ) {
        const result = await mcp.call("terminal_execute", { command: "echo here", [key]: name });
        assert.equal(result.isError, false, result.text);
        assert.equal(JSON.parse(result.text).terminal_id, name);
      }
      const listed = JSON.parse((await mcp.call("listSessions")).text).sessions
        .map((s: { name: string }) => s.name).sort();
      assert.deepEqual(listed, ["by-id", "by-name", "by-tid"]);
      const both = await mcp.call("terminal_execute", {
        command: "echo",
        terminal_id: "a",
        sessionId: "b",
      });
      assert.equal(both.isError, true);
      assert.match(both.text, /terminal_id "a" and session "b" differ/);
    });
  });

  it("mcp: opening sessions, failed or not, leaves no per-session temporary files", async () => {
    // The shell's start-up files are shared by every session (one directory per user).
    await withMcp(async (mcp) => {
      for (const cwd of ["relative/dir", "/nonexistent/termbridge-dir"]) {
        const result = await mcp.call("openSession", { name: "bad-cwd", cwd });
        assert.equal(result.isError, true, cwd);
      }
      await mcp.ok("openSession", { name: "one" });
      await mcp.ok("openSession", { name: "two" });
      await mcp.ok("closeSession", { name: "one" });
      const left = readdirSync(mcp.tmpDir);
      assert.ok(left.length <= 1, `one shared directory at most, got ${JSON.stringify(left)}`);
      assert.deepEqual(left.filter((name) => name.startsWith("termbridge-shell-")), []);
    });
  });

  it("mcp: an argument the schema does not list is an error naming it", async () => {
    // tools/list says additionalProperties: false, so a misspelt option (visible_only) is an error.
    await withMcp(async (mcp) => {
      const result = await mcp.call("getContent", { visible_only: true });
      assert.equal(result.isError, true, result.text);
      assert.match(result.text, /visible_only/);
    });
  });
});
