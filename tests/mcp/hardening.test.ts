/**
 * `termbridge mcp` (the built binary when current) on what real clients and
 * agents found: `type` writes its text as given, the command tool's timeout
 * is capped rather than refused, a command right after Ctrl+C keeps its first
 * character, results are sized for a model and never sent twice, and what the
 * current upstream Terminal MCP sends (sessionId, format, createSession,
 * destroySession, startRecording, stopRecording) works; startRecording's
 * outputDir is checked as a write.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir, tempDir, withMcp } from "./_kit.ts";

describe("mcp: hardening", () => {
  it('mcp: type "echo single\\n" runs the line (written as given, no bracketed paste)', async () => {
    await withMcp(async (mcp) => {
      assert.equal(
        await mcp.ok("type", { text: "echo sin''gle\n" }),
        "Typed 14 character(s) to terminal",
      );
      await mcp.contentUntil((text) => /^single$/m.test(text), "the echo's output");
    });
  });

  it('mcp: terminal_execute caps timeout at 60 (120 is not an error) and takes "5"', async () => {
    await withMcp(async (mcp) => {
      for (const timeout of [120, "5", "0.5", 60]) {
        const result = await mcp.call("terminal_execute", { command: "echo t", timeout });
        assert.equal(result.isError, false, `${timeout}: ${result.text}`);
        assert.equal(JSON.parse(result.text).content, "t\n");
      }
      const bad = await mcp.call("terminal_execute", { command: "true", timeout: "soon" });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /timeout: .*expected number/);
      const { tools } = await mcp.client.listTools();
      const schema = tools.find((t) => t.name === "terminal_execute")!.inputSchema;
      const timeout = (schema.properties as Record<string, Record<string, unknown>>).timeout;
      assert.equal(timeout.maximum, undefined, "no maximum: a longer wait means 60 s");
      assert.match(String(timeout.description), /CAPPED AT 60/);
    });
  });

  it("mcp: Ctrl+C at an idle prompt, then at once a command: it keeps its first character", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("terminal_execute", { command: "true" });
      for (let i = 0; i < 3; i++) {
        // Sent back to back, as an agent's client pipelines them: no round trip in between.
        const [key, executed] = await Promise.all([
          mcp.ok("sendKey", { key: "Ctrl+C" }),
          mcp.ok("terminal_execute", { command: "echo hello" }),
        ]);
        assert.equal(key, "Sent key: Ctrl+C");
        const result = JSON.parse(executed);
        assert.equal(result.content, "hello\n", `round ${i}`);
        assert.equal(result.exit_code, 0);
      }
    });
  });

  it("mcp: a 3 MB output gives its last 100 KB once, says what was left out; no structuredContent", async () => {
    await withMcp(async (mcp) => {
      const result = await mcp.call("terminal_execute", {
        command: "seq 1 400000 | sed 's/$/ xxxxxx/'",
        timeout: 60,
      });
      assert.equal(result.isError, false, result.text);
      assert.equal(result.structured, undefined, "the text is not sent twice");
      assert.ok(result.text.length < 110_000, `result of ${result.text.length} characters`);
      const parsed = JSON.parse(result.text);
      assert.equal(parsed.exit_code, 0);
      assert.equal(parsed.output_truncated, true);
      assert.ok(parsed.omitted_bytes > 2_500_000, String(parsed.omitted_bytes));
      assert.match(parsed.content, /^\[\d+ bytes of earlier output left out: .* out\.txt/);
      assert.match(parsed.content, /\n400000 xxxxxx\n$/);
      const firstKept = parsed.content.split("\n")[1];
      assert.match(firstKept, /^\d+ xxxxxx$/, "the kept part starts on a whole line");
    });
  });

  it("mcp: --result-limit holds for the text as the client gets it: quotes, backslashes, tabs escaped", async () => {
    await withMcp(async (mcp) => {
      const bytes = (text: string) => new TextEncoder().encode(text).length;
      const result = await mcp.call("terminal_execute", {
        command: String.raw`yes "$(printf 'a"b\\\\c\td')" | head -n 30000`,
        timeout: 60,
      });
      assert.equal(result.isError, false, result.text);
      assert.ok(bytes(result.text) <= 1024, `a result of ${bytes(result.text)} bytes`);
      const parsed = JSON.parse(result.text);
      assert.equal(parsed.output_truncated, true);
      assert.match(parsed.content, /\na"b\\\\c\s+d\n$/);
      await mcp.ok("terminal_execute", { command: "seq -w 1 3000 | sed 's/$/ \"\\\\yyyy/'" });
      for (const fromLine of [undefined, 0, 1500]) {
        const text = await mcp.ok("getContent", fromLine === undefined ? {} : { fromLine });
        assert.ok(bytes(text) <= 1024, `getContent ${fromLine}: ${bytes(text)} bytes`);
      }
    }, { args: ["--result-limit", "1024"] });
  });

  it("mcp: getContent of a big buffer gives its last lines and pages with fromLine", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("terminal_execute", { command: "seq -w 1 3000 | sed 's/$/ yyyy/'" });
      const last = await mcp.ok("getContent");
      assert.ok(last.length <= 2048 + 200, `${last.length} characters`);
      assert.match(
        last,
        /^\[lines 0-\d+ of \d+ left out \(a result carries at most 2048 bytes\); fromLine: \d+ reads earlier ones\]\n/,
      );
      assert.match(last, /3000 yyyy/);
      const first = await mcp.ok("getContent", { fromLine: 0 });
      const [head] = first.split("\n");
      assert.doesNotMatch(head, /left out/);
      assert.match(first, /\n\[lines \d+-\d+ left out; fromLine: (\d+) reads on\]$/);
      const next = Number(/fromLine: (\d+) reads on\]$/.exec(first)![1]);
      const more = await mcp.ok("getContent", { fromLine: next });
      assert.ok(more.startsWith("[lines 0-"), more.slice(0, 80));
    }, { args: ["--result-limit", "2048"] });
  });

  it("mcp: sessionId works wherever session does; takeScreenshot's format ansi keeps colours", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("openSession", { name: "s1" });
      await mcp.ok("type", { text: "echo via-session''id\n", sessionId: "s1" });
      await mcp.ok("wait", { text: "via-sessionid", sessionId: "s1", timeout: 15 });
      await mcp.contentUntil((t) => /^via-sessionid$/m.test(t), "the output", { session: "s1" });
      const shot = await mcp.json("takeScreenshot", { sessionId: "s1", format: "plain" });
      assert.match(shot.content, /via-sessionid/);
      await mcp.ok("type", {
        text: "printf '\\033[31mred\\033[0m-and-\\033[1mbold\\033[0m\\n'\n",
        session: "s1",
      });
      await mcp.contentUntil((t) => /^red-and-bold$/m.test(t), "the coloured line", {
        session: "s1",
      });
      const ansi = await mcp.json("takeScreenshot", { format: "ansi", session: "s1" });
      assert.ok(ansi.content.includes("\x1b[31mred\x1b[0m-and-\x1b[1mbold"), ansi.content);
      const plain = await mcp.json("takeScreenshot", { session: "s1" });
      assert.match(plain.content, /^red-and-bold$/m);
      assert.ok(!plain.content.includes("\x1b"), plain.content);
      const clash = await mcp.call("getContent", { session: "s1", sessionId: "other" });
      assert.equal(clash.isError, true);
      assert.match(clash.text, /session "s1" and sessionId "other" differ/);
    });
  });

  it("mcp: createSession, listSessions and destroySession answer as Terminal MCP does", async () => {
    await withMcp(async (mcp) => {
      const created = await mcp.json("createSession", { cols: 90, rows: 20 });
      assert.deepEqual(
        Object.keys(created).sort(),
        ["cols", "createdAt", "cwd", "rows", "sessionId", "shell"],
      );
      assert.equal(created.cols, 90);
      assert.match(created.sessionId, /^[0-9a-f]{5}$/);
      const shot = await mcp.json("takeScreenshot", { sessionId: created.sessionId });
      assert.deepEqual(shot.dimensions, { cols: 90, rows: 20 });
      const listed = await mcp.json("listSessions");
      assert.equal(listed.maxSessions, 16);
      assert.ok(
        listed.sessions.some((s: { sessionId: string }) => s.sessionId === created.sessionId),
      );
      assert.deepEqual(await mcp.json("destroySession", { sessionId: created.sessionId }), {
        success: true,
        message: `Session '${created.sessionId}' destroyed`,
      });
      assert.deepEqual(await mcp.json("destroySession", { sessionId: "nope" }), {
        success: false,
        message: "Session 'nope' not found",
      });
    });
  });

  it("mcp: startRecording and stopRecording write an asciicast file", async () => {
    const dir = tempDir("termbridge-mcp-rec-");
    try {
      await withMcp(async (mcp) => {
        const started = await mcp.json("startRecording", {
          outputDir: dir,
          format: "v2",
          idleTimeLimit: 1.5,
        });
        assert.equal(started.format, "v2");
        assert.equal(started.mode, "always");
        assert.ok(started.path.startsWith(dir + "/"), started.path);
        await mcp.ok("terminal_execute", { command: "echo recorded-now" });
        const stopped = await mcp.json("stopRecording", { recordingId: started.recordingId });
        assert.equal(stopped.path, started.path);
        assert.equal(stopped.saved, true);
        assert.ok(stopped.bytesWritten > 0 && typeof stopped.durationMs === "number");
        const lines = readFileSync(stopped.path, "utf8").trimEnd().split("\n");
        assert.equal(JSON.parse(lines[0]).version, 2);
        assert.equal(JSON.parse(lines[0]).idle_time_limit, 1.5);
        assert.ok(lines.some((line) => line.includes("recorded-now")));
        const again = await mcp.call("stopRecording", { recordingId: started.recordingId });
        assert.deepEqual([again.isError, again.text], [
          true,
          `Error: Recording already finalized: ${started.recordingId}`,
        ]);
        const onFailure = await mcp.json("startRecording", { outputDir: dir, mode: "on-failure" });
        const dropped = await mcp.json("stopRecording", { recordingId: onFailure.recordingId });
        assert.equal(dropped.saved, false);
        assert.equal(
          existsSync(join(onFailure.path)),
          false,
          "on-failure keeps no file after a stop",
        );
      });
    } finally {
      removeDir(dir);
    }
  });

  it("mcp: startRecording's outputDir is a write (the globs decide; nothing made outside); the configured directory is the user's", async () => {
    const dir = tempDir("termbridge-mcp-rec-");
    try {
      writeFileSync(join(dir, "termbridge.jsonc"), '{ "policy": { "write": ["${cwd}/ok/**"] } }');
      await withMcp(async (mcp) => {
        const refused = await mcp.call("startRecording", {
          outputDir: join(dir, "elsewhere", "casts"),
        });
        assert.equal(refused.isError, true, refused.text);
        assert.match(refused.text, /matches none of the write globs/);
        assert.equal(
          existsSync(join(dir, "elsewhere")),
          false,
          "no directory made outside the globs",
        );
        const inside = await mcp.json("startRecording", { outputDir: join(dir, "ok", "casts") });
        assert.ok(inside.path.startsWith(join(dir, "ok", "casts") + "/"), inside.path);
        await mcp.json("stopRecording", { recordingId: inside.recordingId });
        // The default directory (the state directory's) was not asked for: it is termbridge's own choice.
        const own = await mcp.json("startRecording", {});
        assert.ok(
          own.path.startsWith(join(dir, "state", "termbridge", "recordings") + "/"),
          own.path,
        );
        assert.equal(
          (await mcp.json("stopRecording", { recordingId: own.recordingId })).saved,
          true,
        );
      }, { cwd: dir, env: { XDG_STATE_HOME: join(dir, "state") } });
    } finally {
      removeDir(dir);
    }
  });
});
