/**
 * Issue 16, "No silent surprises", through the built binary (the sources
 * when it is not current): the idle timeout, recordings, the socket's
 * directory, a removed socket, and attach's ends.
 * @module
 */

import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, it, itWhen } from "../harness.ts";
import { onPath, waitUntil } from "../helpers.ts";
import { BINARY_CURRENT, inWorld, termbridgeFor, type World } from "./_kit.ts";

const BUILD = BINARY_CURRENT ? "binary" : "source";

/** Whether tmux is installed (the attached client's terminal). */
const HAS_TMUX = onPath("tmux");

/** Polls an async condition until it holds. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Runs tmux on the world's private tmux socket and returns its stdout. */
async function tmux(world: World, args: string[]): Promise<string> {
  const child = runtime.spawnPiped({
    argv: ["tmux", "-S", join(world.dir, "tmux.sock"), ...args],
    env: world.env,
    stderr: "pipe",
  });
  await child.stdin.close();
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr!).text(),
    child.exited,
  ]);
  if (status.exitCode !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${stderr}`);
  return stdout;
}

/** Polls the tmux pane "watch" until `pattern` shows. */
async function paneShows(world: World, pattern: RegExp, what: string): Promise<string> {
  let pane = "";
  await until(
    async () => pattern.test(pane = await tmux(world, ["capture-pane", "-p", "-t", "watch"])),
    what,
  ).catch(() => {
    throw new Error(`Timed out waiting for ${what}; the pane shows:\n${pane}`);
  });
  return pane;
}

describe("session server: no silent surprises", () => {
  it("idleTimeout closes a session nobody uses; kill-server's log line says why it stopped", () =>
    inWorld(BUILD, async (world) => {
      world.configure('{ "idleTimeout": 1 }');
      await world.ok(["new", "idle"]);
      await until(
        async () => !(await world.ok(["ls"])).includes("idle"),
        "the idle session to be closed",
        15_000,
      );
      await world.ok(["new", "other"]);
      await world.ok(["kill-server"]);
      assert.match(
        readFileSync(world.log, "utf8"),
        /stopped \(kill-server\): [01] sessions? closed/,
      );
    }));

  it("a program that prints without a pause opens (it never gives 400 ms of quiet)", () =>
    inWorld(BUILD, async (world) => {
      const started = performance.now();
      await world.ok(["new", "y", "--", "sh", "-c", "while :; do echo y; sleep 0.1; done"]);
      assert.ok(performance.now() - started < 8000, "opened once it printed steadily");
      assert.match(await world.ok(["ls"]), /^y\b/m);
      assert.match(await world.ok(["screen", "y"]), /^y$/m);
    }));

  it("a recording is 0600 and has no input unless --record-input", () =>
    inWorld(BUILD, async (world) => {
      const cast = join(world.dir, "s.cast");
      await world.ok(["new", "r", "--record", cast]);
      await world.ok(["type", "r", "read -s secret; echo got-it\n"]);
      await world.ok(["wait", "r", "idle", "200"]);
      await world.ok(["type", "r", "hunter2\n"]);
      await world.ok(["wait", "r", "text", "got-it"]);
      await world.ok(["record", "r", "stop"]);
      assert.equal(statSync(cast).mode & 0o777, 0o600);
      const text = readFileSync(cast, "utf8");
      assert.match(text, /got-it/);
      assert.doesNotMatch(text, /hunter2/);
      assert.doesNotMatch(text, /,"i",/);
      const typed = join(world.dir, "typed.cast");
      await world.ok(["record", "r", "--record-input", typed]);
      await world.ok(["type", "r", "echo typed-$((1+1))\n"]);
      await world.ok(["wait", "r", "text", "typed-2"]);
      await world.ok(["record", "r", "stop"]);
      assert.match(readFileSync(typed, "utf8"), /,"i","echo typed-/);
    }));

  it("a socket directory others may write to is refused, with how to fix it", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "a"]);
      const dir = dirname(world.socket);
      chmodSync(dir, 0o777);
      const run = await world.tb(["ls"]);
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /others may write to it \(mode 777, expected 700\)/);
      assert.match(run.stderr, new RegExp(`chmod 700 ${dir}`));
      chmodSync(dir, 0o700);
      assert.match(await world.ok(["ls"]), /^a\s/m);
    }));

  it("a server whose socket directory was removed makes it again and says so", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "kept"]);
      rmSync(dirname(world.socket), { recursive: true });
      await waitUntil(() => existsSync(world.socket), "the socket to be made again", 15_000);
      assert.match(await world.ok(["ls"]), /^kept\s/m, "the same server, with its session");
      assert.match(readFileSync(world.log, "utf8"), /was removed or replaced: making it again/);
      assert.equal(statSync(dirname(world.socket)).mode & 0o777, 0o700);
    }));

  itWhen(
    BINARY_CURRENT && HAS_TMUX,
    "attach: read-only says so, a refusal exits non-zero, and a killed server leaves the terminal restored",
    () =>
      inWorld("binary", async (world) => {
        const tb = termbridgeFor("binary").join(" ");
        await world.ok(["new", "ended", "--", "sh", "-c", "echo bye"]);
        await world.ok(["wait", "ended", "exit"]);
        await world.ok(["new", "ed", "--", "vi", "-u", "NONE", join(world.dir, "notes.txt")]);
        const watch = `${tb} attach ed --read-only; echo "watch-ended=$?"; sleep 600`;
        await tmux(world, ["new-session", "-d", "-s", "watch", "-x", "80", "-y", "20", watch]);
        try {
          await until(
            async () =>
              (await tmux(world, ["display", "-p", "-t", "watch", "#{alternate_on}"])).trim() ===
                "1",
            "vi on the watcher's alternate screen",
          );
          await tmux(world, ["send-keys", "-t", "watch", "C-]"]);
          // Back on the normal screen: the banner said what read-only means.
          await paneShows(
            world,
            /Watching "ed" \(read-only\): what you type is not sent/,
            "banner",
          );
          await paneShows(world, /watch-ended=0/, "the detach");
          await tmux(world, [
            "respawn-pane",
            "-k",
            "-t",
            "watch",
            `${tb} attach ended; echo "refused=$?"; sleep 600`,
          ]);
          await paneShows(world, /refused=122/, "the refusal's status");
          assert.match(
            await tmux(world, ["capture-pane", "-p", "-t", "watch"]),
            /exited with code 0/,
          );
          await tmux(world, [
            "respawn-pane",
            "-k",
            "-t",
            "watch",
            `${tb} attach ed; echo "attach-ended=$?"; sleep 600`,
          ]);
          await until(
            async () =>
              (await tmux(world, ["display", "-p", "-t", "watch", "#{alternate_on}"])).trim() ===
                "1",
            "vi on the alternate screen of the attached pane",
          );
          assert.equal(
            (await tmux(world, ["display", "-p", "-t", "watch", "#{pane_title}"])).trim(),
            "termbridge: ed",
          );
          for (const pid of world.serverPids()) runtime.kill(pid, "SIGKILL");
          await paneShows(world, /attach-ended=1/, "the attach to end with the server");
          assert.equal(
            (await tmux(world, ["display", "-p", "-t", "watch", "#{alternate_on}"])).trim(),
            "0",
          );
          assert.match(
            await tmux(world, ["capture-pane", "-p", "-t", "watch"]),
            /connection to the server ended/,
          );
        } finally {
          await tmux(world, ["kill-server"]).catch(() => {});
        }
      }),
  );
});
