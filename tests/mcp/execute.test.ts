/**
 * End-to-end tests of the command tool (seed 003) served by `termbridge mcp`
 * as `terminal_execute`, through the official MCP SDK client over stdio:
 * exit codes, working directory, timeouts that never kill, input to running
 * programs, special keys, and separate terminals.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { isAlive, waitUntil } from "../helpers.ts";
import { descendants, type McpProcess, removeDir, tempDir, withMcp } from "./_kit.ts";

/** What terminal_execute answers (seed 003's fields, plus how completion was known). */
interface Execute {
  content: string;
  exit_code: number | null;
  command: string;
  terminal_id: string;
  status: "completed" | "running";
  working_dir: string;
  completion: string;
  shell_exited?: string;
}

async function execute(mcp: McpProcess, args: Record<string, unknown>): Promise<Execute> {
  const result = await mcp.call("terminal_execute", args);
  if (result.isError) throw new Error(`terminal_execute ${JSON.stringify(args)}: ${result.text}`);
  const parsed = JSON.parse(result.text);
  assert.equal(result.structured, undefined, "the result is sent once, as text");
  return parsed;
}

describe("mcp terminal_execute", () => {
  it("mcp: terminal_execute returns the output, exit code and every seed-003 field", async () => {
    const dir = tempDir("termbridge-mcp-exec-");
    try {
      await withMcp(async (mcp) => {
        const result = await execute(mcp, { command: "echo hello; echo world" });
        assert.deepEqual(result, {
          content: "hello\nworld\n",
          exit_code: 0,
          command: "echo hello; echo world",
          terminal_id: "default",
          status: "completed",
          working_dir: dir,
          completion: "shell-integration",
        });
      }, { args: ["--cwd", dir] });
    } finally {
      removeDir(dir);
    }
  });

  it("mcp: terminal_execute reports each command's own exit code", async () => {
    await withMcp(async (mcp) => {
      const cases: [string, number][] = [
        ["true", 0],
        ["false", 1],
        ["(exit 7)", 7],
        ["sh -c 'exit 42'", 42],
        ["ls /nonexistent-termbridge-dir", 2],
        ["no-such-command-termbridge", 127],
        ["true", 0],
      ];
      for (const [command, code] of cases) {
        const result = await execute(mcp, { command });
        assert.deepEqual([result.status, result.exit_code], ["completed", code], command);
      }
    });
  });

  it("mcp: a command line that ends the shell itself says so, and the session then says why it cannot run more", async () => {
    await withMcp(async (mcp) => {
      const ended = await execute(mcp, { command: "set -e; false" });
      assert.equal(ended.exit_code, 1);
      assert.match(ended.shell_exited ?? "", /the shell itself exited \(code 1\)/);
      const next = await mcp.call("terminal_execute", { command: "echo after" });
      assert.equal(next.isError, true);
      assert.match(
        next.text,
        /its program exited with code 1; closeSession \{"name": "default"\} then openSession/,
      );
      // A user's report: after closing the default session, every tool said "has been
      // disposed" without how to go on; opening it again gives a fresh shell.
      await mcp.ok("closeSession", { name: "default" });
      const closed = await mcp.call("terminal_execute", { command: "true" });
      assert.match(closed.text, /was closed; openSession \{"name": "default"\} opens a new one/);
      await mcp.json("openSession", { name: "default" });
      // An ordinary failure says nothing of the kind.
      const failed = await execute(mcp, { command: "false" });
      assert.deepEqual([failed.exit_code, failed.shell_exited], [1, undefined]);
    });
  });

  it("mcp: working_dir follows cd and persists between calls", async () => {
    const dir = tempDir("termbridge-mcp-cwd-");
    try {
      mkdirSync(join(dir, "sub dir"));
      await withMcp(async (mcp) => {
        const cd = await execute(mcp, { command: `cd "${join(dir, "sub dir")}"` });
        assert.equal(cd.working_dir, join(dir, "sub dir"));
        const pwd = await execute(mcp, { command: "pwd" });
        assert.deepEqual([pwd.content, pwd.working_dir], [
          `${join(dir, "sub dir")}\n`,
          join(dir, "sub dir"),
        ]);
        const up = await execute(mcp, { command: "cd .. && export TB_KEPT=yes" });
        assert.equal(up.working_dir, dir);
        assert.equal((await execute(mcp, { command: "echo $TB_KEPT" })).content, "yes\n");
      }, { args: ["--cwd", dir] });
    } finally {
      removeDir(dir);
    }
  });

  it("mcp: on timeout the command keeps running (status running); an empty command collects the rest", async () => {
    await withMcp(async (mcp) => {
      const first = await execute(mcp, {
        command: "echo started; sleep 1; echo finished",
        timeout: 0.2,
      });
      assert.deepEqual(
        [first.status, first.exit_code, first.content],
        ["running", null, "started\n"],
      );
      const rest = await execute(mcp, { command: "", timeout: 10 });
      assert.deepEqual(
        [rest.status, rest.exit_code, rest.content],
        ["completed", 0, "finished\n"],
      );
      // An empty command with nothing running answers at once.
      const idle = await execute(mcp, { command: "" });
      assert.deepEqual([idle.status, idle.content], ["completed", ""]);
    });
  });

  it("mcp: a timed-out command is never killed, and C-c stops it without is_input", async () => {
    await withMcp(async (mcp) => {
      const first = await execute(mcp, { command: "sleep 100", timeout: 0.2 });
      assert.equal(first.status, "running");
      const { sessions } = JSON.parse(await mcp.ok("listSessions"));
      const shell = sessions[0].pid;
      let sleeper = 0;
      await waitUntil(() => {
        sleeper = descendants(shell).find((p) => p.name === "sleep")?.pid ?? 0;
        return sleeper !== 0;
      }, "sleep 100 to run");
      const busy = await mcp.call("terminal_execute", { command: "echo next" });
      assert.equal(busy.isError, true);
      assert.match(busy.text, /^Error: Cannot run "echo next" .*"sleep 100" is still running/);
      assert.ok(isAlive(sleeper), "still running after the timeout and the refused command");
      const stopped = await execute(mcp, { command: "C-c", timeout: 10 });
      assert.deepEqual([stopped.status, stopped.exit_code], ["completed", 130]);
      assert.ok(!isAlive(sleeper), "C-c interrupted it");
      assert.equal((await execute(mcp, { command: "echo next" })).content, "next\n");
    });
  });

  it("mcp: is_input answers a read; no_enter types without submitting", async () => {
    await withMcp(async (mcp) => {
      const asked = await execute(mcp, {
        command: 'read -r -p "name? " NAME; echo "hello $NAME"',
        timeout: 0.3,
      });
      assert.deepEqual([asked.status, asked.content], ["running", "name? "]);
      const partial = await execute(mcp, { command: "wor", is_input: true, no_enter: true });
      assert.equal(partial.status, "running");
      const answered = await execute(mcp, { command: "ld", is_input: true, timeout: 10 });
      assert.equal(answered.status, "completed");
      assert.equal(answered.exit_code, 0);
      assert.match(answered.content, /^hello world$/m);
    });
  });

  it("mcp: special keys (Up, C-c) reach a running program without is_input", async () => {
    await withMcp(async (mcp) => {
      const cat = await execute(mcp, { command: "cat -v", timeout: 0.2 });
      assert.equal(cat.status, "running");
      const up = await execute(mcp, { command: "Up", timeout: 10 });
      // The terminal echoes the key's bytes (ESC [ A) as ^[[A: the key, not the word "Up".
      assert.deepEqual([up.status, up.content], ["running", "^[[A"]);
      const stopped = await execute(mcp, { command: "C-c", timeout: 10 });
      assert.deepEqual([stopped.status, stopped.exit_code], ["completed", 130]);
    });
  });

  it("mcp: two terminal_ids are separate shells: cwd, variables and running commands", async () => {
    await withMcp(async (mcp) => {
      await mcp.ok("openSession", { name: "a" });
      await mcp.ok("openSession", { name: "b" });
      const a = await execute(mcp, { command: "cd /tmp && export TB_WHO=a", terminal_id: "a" });
      assert.deepEqual([a.terminal_id, a.working_dir], ["a", "/tmp"]);
      const b = await execute(mcp, { command: 'echo "${TB_WHO:-unset}"', terminal_id: "b" });
      assert.equal(b.content, "unset\n");
      assert.notEqual(b.working_dir, "/tmp");
      const busy = await execute(mcp, { command: "sleep 100", terminal_id: "a", timeout: 0.2 });
      assert.equal(busy.status, "running");
      const free = await execute(mcp, { command: "echo free", terminal_id: "b" });
      assert.deepEqual([free.status, free.content], ["completed", "free\n"]);
      const stopped = await execute(mcp, { command: "C-c", terminal_id: "a", timeout: 10 });
      assert.equal(stopped.exit_code, 130);
      assert.equal(
        (await execute(mcp, { command: "echo $TB_WHO", terminal_id: "a" })).content,
        "a\n",
      );
    });
  });

  it("mcp: terminal_execute returns at once when the shell dies before the command starts", async () => {
    // A shell that dies before the command starts ends the call at once, not at its timeout.
    await withMcp(async (mcp) => {
      await mcp.ok("openSession", { name: "victim" });
      await mcp.ok("openSession", { name: "killer" });
      const { sessions } = JSON.parse(await mcp.ok("listSessions"));
      const victim = sessions.find((s: { name: string }) => s.name === "victim").pid;
      const started = performance.now();
      // An unterminated quote: bash waits for the rest of the line, so the command never starts.
      const pending = mcp.call("terminal_execute", {
        command: 'echo "unterminated',
        terminal_id: "victim",
        timeout: 8,
      });
      await mcp.ok("wait", { text: "unterminated", session: "victim" });
      await execute(mcp, { command: `kill -KILL ${victim}`, terminal_id: "killer" });
      const result = await pending;
      const elapsed = performance.now() - started;
      assert.ok(
        elapsed < 4000,
        `answered ${Math.round(elapsed)} ms after the call: ${result.text}`,
      );
      // An unfinished line cannot be checked by the shipped policy (it asks, and nobody can
      // answer here): this test is about the shell dying, so it runs without the policy.
    }, { args: ["--policy", "off"] });
  });

  it("mcp: a new terminal_id opens its own session on first use, as seed 003 describes", async () => {
    // A new terminal_id is a new session, opened on first use (seed 003).
    await withMcp(async (mcp) => {
      const result = await execute(mcp, { command: "echo first-use", terminal_id: "fresh" });
      assert.deepEqual([result.terminal_id, result.content], ["fresh", "first-use\n"]);
    });
  });

  it("mcp: terminal_execute works after a command typed with type + sendKey Enter has finished", async () => {
    // A command typed in the terminal (type + Enter) that has ended does not block the next one.
    await withMcp(async (mcp) => {
      await mcp.ok("type", { text: "echo typed-$((40+2))" });
      await mcp.ok("sendKey", { key: "Enter" });
      await mcp.contentUntil((text) => text.split("\n").includes("typed-42"), "typed-42");
      await mcp.ok("wait", { prompt: true });
      const result = await execute(mcp, { command: "echo after" });
      assert.deepEqual([result.status, result.content], ["completed", "after\n"]);
    });
  });

  it("mcp: parallel calls on one terminal run in the order sent; a cancelled one that waits never runs", async () => {
    await withMcp(async (mcp) => {
      // A user's report: the first of two parallel calls on a new terminal was refused,
      // 'Cannot run "sleep 0.3; echo one": "echo two" is still running'.
      const [one, two] = await Promise.all([
        execute(mcp, { command: "sleep 0.3; echo one" }),
        execute(mcp, { command: "echo two" }),
      ]);
      assert.deepEqual([one.content, two.content], ["one\n", "two\n"]);
      const cancel = new AbortController();
      const first = execute(mcp, { command: "sleep 0.5; echo first" });
      const waiting = mcp.client.callTool(
        { name: "terminal_execute", arguments: { command: "echo never-ran > /dev/null; echo x" } },
        undefined,
        { signal: cancel.signal },
      );
      const third = execute(mcp, { command: "echo third" });
      await new Promise((resolve) => setTimeout(resolve, 100));
      cancel.abort();
      await assert.rejects(waiting);
      assert.deepEqual([(await first).content, (await third).content], ["first\n", "third\n"]);
      assert.doesNotMatch(await mcp.ok("getContent"), /never-ran/);
    });
  });

  it("mcp: a cancelled terminal_execute stops waiting, and the next collect has all the output", async () => {
    await withMcp(async (mcp) => {
      const command = "echo before; sleep 2.5; echo after";
      const sent = performance.now();
      const cancel = new AbortController();
      const cancelled = mcp.client.callTool(
        { name: "terminal_execute", arguments: { command, timeout: 2 } },
        undefined,
        { signal: cancel.signal },
      );
      await mcp.ok("wait", { regex: "^before$", timeout: 1.8 });
      cancel.abort(); // The SDK sends notifications/cancelled.
      await assert.rejects(cancelled);
      // Past the cancelled call's own timeout: it must not have taken "before" for itself.
      await new Promise((resolve) => setTimeout(resolve, 2200 - (performance.now() - sent)));
      const rest = await execute(mcp, { command: "", timeout: 10 });
      assert.deepEqual([rest.status, rest.command, rest.content], [
        "completed",
        "",
        "before\nafter\n",
      ]);
    });
  });
});
