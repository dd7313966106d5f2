/**
 * End-to-end tests of Terminal MCP's five tools (seed 004: `type`,
 * `sendKey`, `getContent`, `takeScreenshot`, `clear`) served by `termbridge
 * mcp`, through the official MCP SDK client over stdio: every example of
 * the reference, with its exact texts and errors.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive, waitUntil } from "../helpers.ts";
import { descendants, type McpProcess, removeDir, STEP_MS, tempDir, withMcp } from "./_kit.ts";

/** The lines of a screen text. */
const lines = (text: string) => text.split("\n");

/** The seed's key names, every one of which sendKey must accept. */
const SEED_KEYS = [
  "Enter",
  "Tab",
  "Escape",
  "Backspace",
  "Delete",
  "ArrowUp",
  "ArrowDown",
  "ArrowLeft",
  "ArrowRight",
  "Home",
  "End",
  "PageUp",
  "PageDown",
  "Insert",
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("").map((letter) => `Ctrl+${letter}`),
  "Ctrl+[",
  "Ctrl+\\",
  "Ctrl+Space",
];

/** Opens a session whose program takes every byte as data (raw mode), so no key can end it. */
async function openSink(mcp: McpProcess, name: string): Promise<number> {
  const info = await mcp.json("openSession", {
    name,
    program: ["sh", "-c", "stty raw -echo; exec cat > /dev/null"],
  });
  return info.pid;
}

/** The shell pid of a session (the default one is started by its first use), from listSessions. */
async function shellPid(mcp: McpProcess, name = "default"): Promise<number> {
  await mcp.ok("getContent", { session: name });
  const { sessions } = await mcp.json("listSessions");
  const session = sessions.find((s: { name: string }) => s.name === name);
  assert.ok(session, `session ${name} in ${JSON.stringify(sessions)}`);
  return session.pid;
}

describe("mcp seed-004 tools", () => {
  it('mcp: type "ls -la" + sendKey Enter + getContent shows the listing (seed example)', async () => {
    const dir = tempDir("termbridge-mcp-ls-");
    try {
      writeFileSync(join(dir, "seed-004-marker.txt"), "x");
      await withMcp(async (mcp) => {
        assert.equal(
          await mcp.ok("type", { text: "ls -la" }),
          "Typed 6 character(s) to terminal",
        );
        assert.equal(await mcp.ok("sendKey", { key: "Enter" }), "Sent key: Enter");
        const content = await mcp.contentUntil(
          (text) => lines(text).some((line) => line.endsWith(" seed-004-marker.txt")),
          "the listing",
        );
        assert.ok(lines(content).some((line) => line.endsWith("ls -la")), content);
        assert.ok(lines(content).some((line) => /^total \d+/.test(line)), content);
      }, { args: ["--cwd", dir] });
    } finally {
      removeDir(dir);
    }
  });

  it("mcp: type counts characters, not UTF-16 units, and does not press Enter", async () => {
    await withMcp(async (mcp) => {
      assert.equal(
        await mcp.ok("type", { text: "echo h\u00e9llo-\u{1F600}" }),
        "Typed 12 character(s) to terminal",
      );
      await mcp.contentUntil((text) => text.includes("h\u00e9llo-\u{1F600}"), "the echo");
      // Nothing ran: no output line yet.
      const content = await mcp.ok("getContent");
      assert.ok(!lines(content).includes("h\u00e9llo-\u{1F600}"), content);
      await mcp.ok("sendKey", { key: "Enter" });
      await mcp.contentUntil(
        (text) => lines(text).includes("h\u00e9llo-\u{1F600}"),
        "the output line",
      );
    });
  });

  it("mcp: sendKey Ctrl+C interrupts sleep 100 (seed example)", async () => {
    await withMcp(async (mcp) => {
      const shell = await shellPid(mcp);
      await mcp.ok("type", { text: "sleep 100" });
      await mcp.ok("sendKey", { key: "Enter" });
      let sleeper = 0;
      await waitUntil(() => {
        sleeper = descendants(shell).find((p) => p.name === "sleep")?.pid ?? 0;
        return sleeper !== 0;
      }, "sleep 100 to start");
      assert.equal(await mcp.ok("sendKey", { key: "Ctrl+C" }), "Sent key: Ctrl+C");
      await waitUntil(() => !isAlive(sleeper), `sleep (pid ${sleeper}) to end`);
      await mcp.contentUntil((text) => text.includes("^C"), "the ^C echo");
      // The shell is back and saw the interruption.
      await mcp.ok("type", { text: "echo status=$?" });
      await mcp.ok("sendKey", { key: "Enter" });
      await mcp.contentUntil((text) => lines(text).includes("status=130"), "status=130");
    });
  });

  it('mcp: an unknown key is a tool error "Unknown key" listing the keys (seed text)', async () => {
    await withMcp(async (mcp) => {
      const result = await mcp.call("sendKey", { key: "InvalidKey" });
      assert.equal(result.isError, true);
      const prefix =
        'Error: Unknown key: "InvalidKey". Available keys include: Enter, Tab, Escape, ';
      assert.ok(result.text.startsWith(prefix), result.text);
      const listed = result.text.slice(result.text.indexOf("include: ") + 9).split(", ");
      for (const key of SEED_KEYS) assert.ok(listed.includes(key), `${key} listed`);
    });
  });

  it("mcp: sendKey accepts every key name of the seed and answers Sent key: NAME", async () => {
    await withMcp(async (mcp) => {
      const pid = await openSink(mcp, "keys");
      for (const key of [...SEED_KEYS, "C-c", "M-f", "S-Tab", "BSpace", "PgDn", "Up"]) {
        const result = await mcp.call("sendKey", { key, session: "keys" });
        assert.deepEqual([result.isError, result.text], [false, `Sent key: ${key}`], key);
      }
      assert.ok(isAlive(pid), "raw-mode cat took every key as data");
    });
  });

  it('mcp: clear answers "Terminal cleared" and getContent then reads "(empty terminal)"', async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("terminal_execute", { command: "echo before-clear" });
      assert.match(await mcp.ok("getContent"), /before-clear/);
      assert.equal(await mcp.ok("clear"), "Terminal cleared");
      assert.equal(await mcp.ok("getContent"), "(empty terminal)");
      assert.equal(await mcp.ok("getContent", { visibleOnly: true }), "(empty terminal)");
      // New output shows again.
      await mcp.ok("type", { text: "echo after-$((20+22))" });
      await mcp.ok("sendKey", { key: "Enter" });
      const content = await mcp.contentUntil((text) => lines(text).includes("after-42"), "after");
      assert.doesNotMatch(content, /before-clear/);
    });
  });

  it("mcp: getContent gives the scrollback by default, the screen with visibleOnly", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("terminal_execute", { command: "seq 1 100" });
      const all = lines(await mcp.ok("getContent"));
      const visible = lines(await mcp.ok("getContent", { visibleOnly: true }));
      assert.ok(all.includes("1") && all.includes("100"), all.join("\n"));
      assert.ok(visible.includes("100") && !visible.includes("1"), visible.join("\n"));
      assert.ok(visible.length <= 40, `${visible.length} visible lines`);
      assert.notEqual(all.at(-1), "", "trailing empty lines are trimmed");
    });
  });

  it("mcp: takeScreenshot is JSON with content, 0-based cursor and dimensions", async () => {
    await withMcp(async (mcp) => {
      await mcp.json("openSession", {
        name: "shot",
        program: ["sh", "-c", "printf 'line1\\nab'; exec sleep 100"],
        cols: 50,
        rows: 8,
      });
      const text = await mcp.ok("takeScreenshot", { session: "shot" });
      const shot = JSON.parse(text);
      assert.equal(shot.content, "line1\nab");
      assert.deepEqual(shot.cursor, { x: 2, y: 1 });
      assert.deepEqual(shot.dimensions, { cols: 50, rows: 8 });
      assert.equal(shot.altScreen, false);
      // The default session's size, and a resize.
      const first = JSON.parse(await mcp.ok("takeScreenshot"));
      assert.deepEqual(first.dimensions, { cols: 120, rows: 40 });
      assert.equal(await mcp.ok("resizeSession", { cols: 100, rows: 30 }), "Resized to 100x30");
      assert.deepEqual(JSON.parse(await mcp.ok("takeScreenshot")).dimensions, {
        cols: 100,
        rows: 30,
      });
      assert.equal(
        (await mcp.ok("terminal_execute", { command: "stty size" }).then(JSON.parse)).content,
        "30 100\n",
      );
    });
  });

  it("mcp: less is navigated with ArrowDown, PageDown and q (htop-like navigation)", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("type", { text: "seq 1 200 | less" });
      await mcp.ok("sendKey", { key: "Enter" });
      const firstLine = async () => {
        const shot = JSON.parse(await mcp.ok("takeScreenshot"));
        return { shot, top: lines(shot.content)[0] };
      };
      await mcp.contentUntil((text) => lines(text)[0] === "1", "less", { visibleOnly: true });
      assert.equal((await firstLine()).shot.altScreen, true);
      await mcp.ok("sendKey", { key: "ArrowDown" }); // ESC O B: less asked for cursor-key mode.
      await mcp.contentUntil((text) => lines(text)[0] === "2", "one line down", {
        visibleOnly: true,
      });
      await mcp.ok("sendKey", { key: "PageDown" });
      await mcp.contentUntil((text) => Number(lines(text)[0]) > 30, "a page down", {
        visibleOnly: true,
      });
      await mcp.ok("type", { text: "q" });
      const deadline = performance.now() + STEP_MS;
      while ((await firstLine()).shot.altScreen) {
        assert.ok(performance.now() < deadline, "less to quit its alternate screen");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.match(await mcp.ok("getContent"), /seq 1 200 \| less/);
    });
  });

  it("mcp: top shows its screen to takeScreenshot and quits on q", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("type", { text: "top" });
      await mcp.ok("sendKey", { key: "Enter" });
      const screen = JSON.parse(await mcp.ok("wait", { regex: "load average" })).screen;
      assert.match(screen, /PID/);
      const shot = JSON.parse(await mcp.ok("takeScreenshot"));
      assert.deepEqual(shot.dimensions, { cols: 120, rows: 40 });
      assert.match(shot.content, /Tasks:/);
      const shell = await shellPid(mcp);
      assert.ok(descendants(shell).some((p) => p.name === "top"), "top runs");
      await mcp.ok("type", { text: "q" });
      // Typed before top is gone, the next line would be read (and dropped) by top.
      await waitUntil(() => !descendants(shell).some((p) => p.name === "top"), "top to quit");
      await mcp.ok("type", { text: "echo top-$((6*7))" });
      await mcp.ok("sendKey", { key: "Enter" });
      await mcp.contentUntil((text) => lines(text).includes("top-42"), "the shell after top");
    });
  });

  it('mcp: a closed session answers "Terminal session has been disposed" to every tool', async () => {
    await withMcp(async (mcp) => {
      await mcp.json("openSession", { name: "gone" });
      const pid = await shellPid(mcp, "gone");
      assert.equal(await mcp.ok("closeSession", { name: "gone" }), 'Session "gone" closed');
      assert.ok(!isAlive(pid), "its shell was killed and reaped");
      const calls: [string, Record<string, unknown>][] = [
        ["type", { text: "x", session: "gone" }],
        ["sendKey", { key: "Enter", session: "gone" }],
        ["getContent", { session: "gone" }],
        ["takeScreenshot", { session: "gone" }],
        ["clear", { session: "gone" }],
        ["terminal_execute", { command: "echo", terminal_id: "gone" }],
      ];
      for (const [name, args] of calls) {
        const result = await mcp.call(name, args);
        assert.deepEqual(
          [result.isError, result.text],
          [
            true,
            'Error: Terminal session has been disposed: session "gone" was closed; openSession {"name": "gone"} opens a new one',
          ],
          name,
        );
      }
      // Opening it again gives a fresh session.
      await mcp.json("openSession", { name: "gone" });
      assert.equal((await mcp.call("getContent", { session: "gone" })).isError, false);
    });
  });

  it("mcp: a session whose program exited is disposed for input but still readable", async () => {
    await withMcp(async (mcp) => {
      const result = JSON.parse(await mcp.ok("terminal_execute", { command: "exit 3" }));
      assert.equal(result.exit_code, 3);
      const typed = await mcp.call("type", { text: "x" });
      assert.equal(typed.isError, true);
      assert.match(typed.text, /^Error: Terminal session has been disposed: .*exited with code 3/);
      assert.match(await mcp.ok("getContent"), /exit 3/);
    });
  });
});
