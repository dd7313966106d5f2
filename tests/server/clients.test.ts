import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, it, itWhen } from "../harness.ts";
import { McpProcess } from "../mcp/_kit.ts";
import { ReplDriver, TIMEOUT_MS } from "../repl/_driver.ts";
import { BINARY_CURRENT, inWorld, termbridgeFor, type World } from "./_kit.ts";
import { onPath } from "../helpers.ts";

/** Whether tmux is installed (the attached client's terminal). */
const HAS_TMUX = onPath("tmux");

/** Runs tmux on the world's private tmux socket and returns its stdout. */
async function tmux(world: World, args: string[]): Promise<string> {
  const child = runtime.spawnPiped({
    argv: ["tmux", "-S", join(world.dir, "tmux.sock"), ...args],
    env: world.env,
    stderr: "pipe",
  });
  await child.stdin.close();
  const [stdout, , status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr!).text(),
    child.exited,
  ]);
  if (status.exitCode !== 0) throw new Error(`tmux ${args.join(" ")} failed`);
  return stdout;
}

/** Polls tmux's pane until it shows `pattern`. */
async function paneShows(world: World, pattern: RegExp, what: string): Promise<string> {
  let pane = "";
  const deadline = performance.now() + 20_000;
  while (!pattern.test(pane = await tmux(world, ["capture-pane", "-p", "-t", "watch"]))) {
    if (performance.now() > deadline) {
      throw new Error(`Timed out waiting for ${what}; the attached pane shows:\n${pane}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return pane;
}

/** The MCP client through `termbridge mcp --server` in `world`. */
function mcpClient(world: World): Promise<McpProcess> {
  return McpProcess.start({ args: ["--server"], env: world.env, cwd: world.dir });
}

describe("session server: several clients", () => {
  it("run --server runs a script on the server's sessions, which stay open after it", () =>
    inWorld("source", async (world) => {
      const script =
        "open job\nexec cd /tmp && echo one\nexpect-exit 0\nexec false\nexpect-exit 1\n";
      const first = await world.tb(["run", "--server", "-"], { stdin: script });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.stdout, "one\n[exit 1]\n");
      assert.equal(await world.ok(["exec", "job", "pwd"]), "/tmp\n");
      const second = await world.tb(["run", "--server", "-"], {
        stdin: "use job\nexec echo two\nexpect-exit 3\n",
      });
      assert.equal(second.code, 1);
      assert.match(
        second.stderr,
        /stdin:3: expect-exit 3: Expected exit code 3 from "echo two", got exit code 0/,
      );
    }));

  it("repl --server runs lines on the server's sessions, attach reaches them, and they stay open", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "agent"]);
      await world.ok(["type", "agent", "echo left-by-the-agent\n"]);
      const repl = new ReplDriver(world.dir, {
        env: world.env,
        args: ["--server", "--no-history"],
      });
      try {
        await repl.untilPrompt(0);
        assert.match(await repl.send("list"), /agent\s+bash/, repl.text());
        assert.match(
          await repl.send("open mine"),
          new RegExp(`Opened "mine": bash .* in ${world.dir}`),
          repl.text(),
        );
        assert.equal(await repl.send("exec echo from-the-repl"), "from-the-repl", repl.text());
        const mark = repl.mark();
        repl.terminal.write("attach agent\r");
        await repl.terminal.waitFor(
          () => /left-by-the-agent[^]*\$ $|# $/.test(repl.since(mark)) || undefined,
          "the attached session's screen",
          TIMEOUT_MS,
        );
        repl.terminal.write("echo typed-while-attached\r");
        await repl.terminal.waitFor(
          () => /\ntyped-while-attached/.test(repl.since(mark)) || undefined,
          "the echo in the attached session",
          TIMEOUT_MS,
        );
        repl.terminal.write("\x1d");
        assert.match(await repl.untilPrompt(mark), /Detached from "agent"/, repl.text());
        repl.terminal.write("quit\r");
        assert.deepEqual(await repl.terminal.wait(), { exitCode: 0, signal: null }, repl.text());
      } finally {
        await repl.dispose();
      }
      assert.match(await world.ok(["read", "agent"]), /\ntyped-while-attached/);
      assert.match(await world.ok(["ls"]), /^mine\s+bash/m);
    }));

  itWhen(
    BINARY_CURRENT,
    "an agent's shells survive an MCP restart (mcp --server)",
    () =>
      inWorld("binary", async (world) => {
        const first = await mcpClient(world);
        try {
          const ran = await first.json("terminal_execute", { command: "cd /tmp; X=42" });
          assert.equal(ran.exit_code, 0);
        } finally {
          await first.close();
        }
        const second = await mcpClient(world);
        try {
          const ran = await second.json("terminal_execute", { command: 'echo "x=$X"; pwd' });
          assert.equal(ran.content, "x=42\n/tmp\n");
          assert.equal(ran.working_dir, "/tmp");
        } finally {
          await second.close();
        }
        assert.match(await world.ok(["ls"]), /^default\s+bash/m);
      }),
  );

  itWhen(
    BINARY_CURRENT && HAS_TMUX,
    "an MCP client and a person attached through tmux share a session, each seeing the other",
    () =>
      inWorld("binary", async (world) => {
        await world.ok(["new", "shared", "--size", "90x20"]);
        // The pane outlives the attach, so that what it said at the end can be read.
        const attach = `${
          [...termbridgeFor("binary"), "attach", "shared"].join(" ")
        }; echo attach-ended; sleep 600`;
        await tmux(world, ["new-session", "-d", "-s", "watch", "-x", "90", "-y", "20", attach]);
        try {
          await paneShows(world, /Attached to "shared"/, "the attach");
          const mcp = await mcpClient(world);
          try {
            // The agent types; the person sees it.
            await mcp.ok("type", { text: "echo from-mcp-$((6*7))", session: "shared" });
            await mcp.ok("sendKey", { key: "Enter", session: "shared" });
            await paneShows(world, /^from-mcp-42$/m, "the agent's command on the attached screen");
            // The person types; the agent sees it.
            await tmux(world, ["send-keys", "-t", "watch", "echo from-person-$((3*3))", "Enter"]);
            const waited = await mcp.json("wait", {
              text: "from-person-9",
              session: "shared",
              timeout: 20,
            });
            assert.ok(waited.elapsedMs >= 0);
            const screen = await mcp.ok("getContent", { session: "shared", visibleOnly: true });
            assert.match(screen, /^from-person-9$/m);
          } finally {
            await mcp.close();
          }
          // Ctrl+] detaches the person; the session goes on.
          await tmux(world, ["send-keys", "-t", "watch", "C-]"]);
          await paneShows(world, /Detached from "shared"[^]*attach-ended/, "the detach");
          assert.equal(await world.ok(["exec", "shared", "echo still-here"]), "still-here\n");
          // A watcher (--read-only) sees the session, and its keys go nowhere but Ctrl+].
          const watch = `${
            [...termbridgeFor("binary"), "attach", "shared", "--read-only"].join(" ")
          }; echo watch-ended; sleep 600`;
          await tmux(world, ["new-window", "-t", "watch", watch]);
          await paneShows(
            world,
            /Watching "shared" \(read-only\)[^]*still-here/,
            "the read-only attach",
          );
          await tmux(world, ["send-keys", "-t", "watch", "echo typed-by-watcher", "Enter"]);
          await world.ok(["exec", "shared", "echo after-the-watcher"]);
          await paneShows(world, /^after-the-watcher$/m, "the watcher seeing new output");
          assert.doesNotMatch(await world.ok(["read", "shared"]), /typed-by-watcher/);
          await tmux(world, ["send-keys", "-t", "watch", "C-]"]);
          await paneShows(world, /Detached from "shared"[^]*watch-ended/, "the watcher's detach");
          // The audit log says which client ran what: the agent's MCP process, the person's attach.
          const audit = readFileSync(join(world.dir, "state", "termbridge", "audit.jsonl"), "utf8")
            .trim().split("\n").map((line) => JSON.parse(line));
          const typed = (text: string) =>
            audit.find((e) => e.origin === "typed" && e.line?.includes(text)) ?? {};
          assert.match(typed("from-mcp").client ?? "", /^mcp pid \d+$/, JSON.stringify(audit));
          assert.match(typed("from-person").client ?? "", /^attach pid \d+$/);
          // A line exec sent is one event: exec's client, seen by the shell.
          const sent = audit.filter((e) => e.event === "command" && e.line?.includes("still-here"));
          assert.equal(sent.length, 1, JSON.stringify(sent));
          assert.equal(sent[0].origin, "exec");
          assert.equal(sent[0].shell, true);
          assert.match(sent[0].client ?? "", /^exec pid \d+$/);
        } finally {
          await tmux(world, ["kill-server"]).catch(() => {});
        }
      }),
  );
});
