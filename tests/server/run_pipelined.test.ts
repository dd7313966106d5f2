/**
 * `run --server` sends a script's lines ahead of their answers; the server
 * runs one connection's pipelined lines one after another, in order, and none
 * after a line that stopped the script (failed without --keep-going, quit,
 * cancelled). Through the sources on the runtime running the tests, and
 * through a raw connection that writes every request at once.
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createConnection, type Socket } from "node:net";
import { waitUntil } from "../helpers.ts";
import { describe, it } from "../harness.ts";
import { runtime } from "../../lib/runtime/mod.ts";
import { inWorld, onJsonLines, termbridgeFor, type World } from "./_kit.ts";

/** A raw connection to the world's server. */
async function connect(world: World): Promise<Socket> {
  const socket = createConnection(world.socket);
  await new Promise((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** The hello and `lines` as pipelined console/run requests (ids 0, 1, ...), in one string. */
function pipelinedRequests(world: World, lines: string[], keepGoing = false): string {
  const requests = lines.map((line, id) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "console/run",
      params: { line, cwd: world.dir, persistent: true, pipelined: { keepGoing } },
    }) + "\n"
  );
  return JSON.stringify({ hello: "termbridge", kind: "rpc" }) + "\n" + requests.join("");
}

/** `socket`'s answers to requests, by id, as they come. */
function answersOf(socket: Socket): Map<number, Record<string, unknown>> {
  const answers = new Map<number, Record<string, unknown>>();
  onJsonLines(socket, (message) => {
    if (typeof message.id === "number") answers.set(message.id, message);
  });
  return answers;
}

/** Answers of the JSON-RPC requests `lines` sent in one write, each pipelined, in arrival order. */
async function sendAtOnce(
  world: World,
  lines: string[],
): Promise<{ id: number; result?: Record<string, unknown>; error?: { message: string } }[]> {
  const socket = await connect(world);
  try {
    const answers: { id: number; result?: Record<string, unknown> }[] = [];
    const all = new Promise<void>((resolve) => {
      onJsonLines(socket, (message) => {
        if (typeof message.id === "number") answers.push(message as { id: number });
        if (answers.length === lines.length) resolve();
      });
    });
    socket.write(pipelinedRequests(world, lines));
    await all;
    return answers;
  } finally {
    socket.destroy();
  }
}

describe("run --server: lines sent ahead of their answers", () => {
  it("the server runs pipelined lines one after another, in order, and none after a failure", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "warm"]); // The server is running.
      const marker = join(world.dir, "after-failure");
      const answers = await sendAtOnce(world, [
        "open p",
        "exec sleep 0.3; echo first",
        "exec echo second",
        "expect-exit 7",
        `exec touch ${marker}`,
      ]);
      assert.deepEqual(answers.map((answer) => answer.id), [0, 1, 2, 3, 4]);
      const results = answers.map((answer) => answer.result!);
      // Run at once, "exec echo second" would find the session busy with the sleep.
      assert.deepEqual(results.map((result) => result.ok), [true, true, true, false, false]);
      assert.equal(results[1].output, "first");
      assert.equal(results[2].output, "second");
      assert.ok(results.every((result) => result.pipelined === true));
      assert.match(String(results[4].error), /not run: a line before it failed/);
      assert.equal(existsSync(marker), false, "the line after the failure never ran");
    }));

  it("lines still queued when their connection closes never run", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "p"]);
      const started = join(world.dir, "started");
      const marker = join(world.dir, "after-close");
      const socket = await connect(world);
      // Run at once (not queued), the last line would run while the console sleeps.
      socket.write(
        pipelinedRequests(world, [
          "use p",
          `exec touch ${started}`,
          "sleep 1000",
          `exec touch ${marker}`,
        ]),
      );
      await waitUntil(() => existsSync(started), "the first exec to run");
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await world.ok(["wait", "p", "prompt", "--timeout", "5"]);
      assert.equal(existsSync(marker), false, "the queued line never ran");
    }));

  it("once a line is cancelled, the lines queued after it never run, even with --keep-going", () =>
    inWorld("source", async (world) => {
      await world.ok(["new", "p"]);
      const started = join(world.dir, "started");
      const marker = join(world.dir, "after-cancel");
      const socket = await connect(world);
      try {
        const answers = answersOf(socket);
        socket.write(pipelinedRequests(world, [
          "use p",
          `exec touch ${started}; sleep 30`,
          `exec touch ${marker}`,
        ], true));
        await waitUntil(() => existsSync(started), "the sleep to start");
        // Only the running line is cancelled (as when the client's cancellations of the lines
        // after it have not arrived yet): the next one must not run all the same.
        const cancel = { jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: 1 } };
        socket.write(JSON.stringify(cancel) + "\n");
        await waitUntil(() => answers.has(2), "the queued line's answer");
        const queued = answers.get(2)!.result as Record<string, unknown>;
        assert.equal(queued.ok, false);
        assert.match(String(queued.error), /not run: the script was interrupted/);
        assert.equal(existsSync(marker), false);
      } finally {
        socket.destroy();
        await world.tb(["key", "p", "C-c"]);
      }
    }));

  it("interrupted while behind on output, every line that ran is reported, the interruption after the last", () =>
    inWorld("source", async (world) => {
      const lines = ["open p", "exec head -c 300000 /dev/zero | tr '\\0' x"];
      for (let i = 1; i <= 10; i++) lines.push(`exec echo ${i} > ${join(world.dir, `m${i}`)}`);
      writeFileSync(join(world.dir, "s.tb"), lines.join("\n") + "\n");
      // stdout is a FIFO nobody reads until the lines sent ahead have run: the client is still
      // writing line 2's output when it is interrupted.
      const script = `
        cd "$1"; shift
        mkfifo out; exec 3<>out
        "$@" run --server s.tb >out 2>err & pid=$!
        until [ -e m10 ]; do sleep 0.05; done
        kill -INT $pid
        timeout 10 cat <&3 >/dev/null &
        wait $pid; echo "rc=$?"
      `;
      const child = runtime.spawnPiped({
        argv: ["bash", "-c", script, "bash", world.dir, ...termbridgeFor(world.build)],
        env: world.env,
      });
      await child.stdin.close();
      const [stdout] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      const stderr = readFileSync(join(world.dir, "err"), "utf8");
      assert.match(stdout, /rc=1/, stderr);
      // Lines 3-12 ran (their files are there): the report ends after them, not at line 2.
      assert.match(stderr, /s\.tb:12: interrupted by SIGINT/, stderr);
    }));

  it("a line too long for the server fails where it stands; nothing after it runs, -k goes on", () =>
    inWorld("source", async (world) => {
      const marker = join(world.dir, "after-long");
      // Over the server's 64 MiB line: it would answer without an id (the client waited forever)
      // and read the next line as if this one had never been sent.
      const long = `exec : ${"a".repeat(67_200_000)}\nexec touch ${marker}\n`;
      writeFileSync(join(world.dir, "long.tb"), `open p\n${long}`);
      const stopped = await world.tb(["run", "--server", "long.tb"]);
      assert.equal(stopped.code, 1, stopped.stderr);
      assert.match(stopped.stderr, /long\.tb:2: .*the server reads at most 64 MiB/);
      assert.equal(existsSync(marker), false, "the line after it never ran");
      writeFileSync(join(world.dir, "long.tb"), `use p\n${long}`);
      const going = await world.tb(["run", "--server", "-k", "long.tb"]);
      assert.equal(going.code, 1, going.stderr);
      assert.equal(existsSync(marker), true, "with -k the line after it ran");
    }));

  it("a script's output and exit status are as line by line; a failure stops it, -k goes on", () =>
    inWorld("source", async (world) => {
      const marker = join(world.dir, "after-failure");
      const script = `open p\nexec sleep 0.2; echo one\nexec echo two\nexpect-exit 1\n` +
        `exec touch ${marker}\nexec echo three\n`;
      const stopped = await world.tb(["run", "--server", "-"], { stdin: script });
      assert.equal(stopped.code, 1, stopped.stderr);
      assert.equal(stopped.stdout, "one\ntwo\n");
      assert.match(stopped.stderr, /stdin:4: expect-exit 1: Expected exit code 1 from "echo two"/);
      assert.equal(existsSync(marker), false, "the lines after the failure never ran");
      const going = await world.tb(["run", "--server", "-k", "-"], {
        stdin: script.replace("open p", "use p"),
      });
      assert.equal(going.code, 1, going.stderr);
      assert.equal(going.stdout, "one\ntwo\nthree\n");
      assert.match(going.stderr, /1 of 6 steps failed/);
      assert.equal(existsSync(marker), true, "with -k every line ran");
    }));

  it("quit stops the script: the lines sent after it never run", () =>
    inWorld("source", async (world) => {
      const marker = join(world.dir, "after-quit");
      const run = await world.tb(["run", "--server", "-"], {
        stdin: `open p\nexec echo before\nquit\nexec touch ${marker}\n`,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, "before\n");
      assert.equal(existsSync(marker), false);
    }));
});
