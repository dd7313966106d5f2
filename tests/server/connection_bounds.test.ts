/**
 * What one client can make the session server hold: answers it never reads
 * (a bounded queue), connections that never say hello (a timeout), and an
 * attached client that stops reading during a flood. Measured in the server
 * process, from /proc/PID/status and /proc/PID/fd, through the built binary
 * and through the sources on the runtime running the tests.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { HELLO_TIMEOUT_MS } from "../../lib/server/socket_streams.ts";
import { waitUntil } from "../helpers.ts";
import { describe, itWhen } from "../harness.ts";
import { BINARY_CURRENT, type Build, inWorld, onJsonLines, type World } from "./_kit.ts";

const MB = 1e6;

/** The server's resident set now and its peak, in bytes. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** How many descriptors the server holds. */
function descriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The one server started in `world`. */
function serverPid(world: World): number {
  const [pid] = world.serverPids();
  assert.ok(pid !== undefined, "a server was started");
  return pid;
}

/** A raw connection to the world's server, not read from (paused) unless asked. */
async function connect(world: World): Promise<Socket> {
  const socket = createConnection(world.socket);
  socket.on("error", () => {}); // The server closing it is what some tests wait for.
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** Whether `socket` was closed by the server. */
function closedByServer(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    socket.on("close", () => resolve());
    socket.on("end", () => resolve());
    socket.resume();
  });
}

/** Fills session `name`'s 16 MiB plain-text log (and a little more). */
async function fillLog(world: World, name: string): Promise<void> {
  await world.ok(["new", name]);
  await world.ok([
    "type",
    name,
    "head -c 17500000 /dev/zero | tr '\\0' a | fold -w 99; echo FLOOD-; echo DONE\n",
  ]);
  await world.ok(["wait", name, "text", "FLOOD-\nDONE", "--timeout", "120"]);
}

const REQUEST = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "sessions/read", params: { name: "s" } }) + "\n";
const HELLO = JSON.stringify({ hello: "termbridge", kind: "rpc" }) + "\n";

function unreadAnswers(build: Build) {
  return inWorld(build, async (world) => {
    await fillLog(world, "s");
    const pid = serverPid(world);
    const before = memory(pid).rss;
    const held = descriptors(pid);
    const greedy = await connect(world);
    try {
      greedy.pause();
      greedy.write(HELLO + Array.from({ length: 20 }, (_, i) => REQUEST(i)).join(""));
      // While its answers sit unread, the server serves others.
      for (let i = 0; i < 3; i++) assert.match(await world.ok(["ls"]), /^s\s/m);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // Time to misbehave, if it would.
      const grown = memory(pid).peak - before;
      // One answer is 16.8 MB of text; all twenty took the server from 102 to 496 MB.
      assert.ok(grown < 160 * MB, `the server grew by ${(grown / MB).toFixed(1)} MB`);
    } finally {
      greedy.destroy();
    }
    await waitUntil(() => descriptors(pid) <= held, "the server to let the connection go");
  });
}

function slowReader(build: Build) {
  return inWorld(build, async (world) => {
    await fillLog(world, "s");
    const socket = await connect(world);
    const count = 6;
    try {
      const ids: number[] = [];
      const all = new Promise<void>((resolve) => {
        onJsonLines(socket, (line) => {
          if (typeof line.id !== "number") return;
          const result = line.result as { text: string };
          assert.ok(result.text.length > 16_000_000, "a full log");
          ids.push(line.id);
          if (ids.length === count) resolve();
        });
      });
      socket.write(HELLO + Array.from({ length: count }, (_, i) => REQUEST(i)).join(""));
      await all;
      assert.deepEqual(ids, Array.from({ length: count }, (_, i) => i));
    } finally {
      socket.destroy();
    }
  });
}

function silentClients(build: Build) {
  return inWorld(build, async (world) => {
    await world.ok(["new", "s"]);
    const pid = serverPid(world);
    const before = descriptors(pid);
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 100; i++) {
        const socket = await connect(world);
        socket.write(i % 2 === 0 ? "garbage\n" : '{"hello":"termbri');
        sockets.push(socket);
      }
      const closed = sockets.map(closedByServer);
      const start = performance.now();
      await Promise.all(closed);
      const took = performance.now() - start;
      assert.ok(took < HELLO_TIMEOUT_MS + 5000, `closed after ${took.toFixed(0)} ms`);
      await waitUntil(() => descriptors(pid) <= before, "the server to close the descriptors");
      assert.match(await world.ok(["ls"]), /^s\s/m, "the server still serves");
    } finally {
      sockets.forEach((socket) => socket.destroy());
    }
  });
}

function stalledAttach(build: Build) {
  return inWorld(build, async (world) => {
    await world.ok(["new", "s"]);
    const pid = serverPid(world);
    const before = memory(pid).rss;
    const watcher = await connect(world);
    try {
      watcher.write(
        JSON.stringify({
          hello: "termbridge",
          kind: "attach",
          name: "s",
          size: null,
          readOnly: true,
        }) +
          "\n",
      );
      watcher.pause(); // Never read again.
      await world.ok(["type", "s", "timeout 10 yes; echo FLOOD-; echo DONE\n"]);
      await world.ok(["wait", "s", "text", "FLOOD-\nDONE", "--timeout", "60"]);
      const bytes = JSON.parse(await world.ok(["ls", "--json"]))[0];
      const grown = memory(pid).peak - before;
      assert.ok(
        grown < 200 * MB,
        `the server grew by ${(grown / MB).toFixed(1)} MB (${JSON.stringify(bytes)})`,
      );
    } finally {
      watcher.destroy();
    }
  });
}

describe("session server: what one client can make it hold", () => {
  for (const build of ["source", "binary"] as const) {
    const when = build === "source" || BINARY_CURRENT;
    itWhen(
      when,
      `twenty sessions/read of a full log never read: at most one answer is queued (${build})`,
      () => unreadAnswers(build),
      "dist/termbridge is not current: make dist/termbridge",
    );
    itWhen(
      when,
      `six sessions/read sent at once: every answer arrives, in order (${build})`,
      () => slowReader(build),
      "dist/termbridge is not current: make dist/termbridge",
    );
    itWhen(
      when,
      `connections that send garbage or half a hello are closed (${build})`,
      () => silentClients(build),
      "dist/termbridge is not current: make dist/termbridge",
    );
    itWhen(
      when,
      `an attached client that stops reading during a flood adds nothing unbounded (${build})`,
      () => stalledAttach(build),
      "dist/termbridge is not current: make dist/termbridge",
    );
  }
});
