/**
 * `runtime.listenUnix`, the session server's socket: a connection starts
 * paused and keeps what arrives until resumed, counts what the kernel has not
 * taken yet (the server's flow control reads it), stays writable after the
 * peer's end (half-open) and closes once both sides ended.
 */

import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { runtime, type ServedConnection } from "../../lib/runtime/mod.ts";

/** Listens in a new directory; runs `body` with the path and the next accepted connection. */
async function withListener(
  body: (path: string, accepted: () => Promise<ServedConnection>) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "termbridge-listen-"));
  const path = join(dir, "s.sock");
  const waiting: ((connection: ServedConnection) => void)[] = [];
  const early: ServedConnection[] = [];
  const all: ServedConnection[] = [];
  const listener = await runtime.listenUnix(path, (connection) => {
    all.push(connection);
    const take = waiting.shift();
    if (take) take(connection);
    else early.push(connection);
  });
  const accepted = () =>
    early.length > 0
      ? Promise.resolve(early.shift()!)
      : new Promise<ServedConnection>((resolve) => waiting.push(resolve));
  try {
    await body(path, accepted);
  } finally {
    for (const connection of all) connection.destroy();
    listener.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A node:net client connected to `path`. */
async function client(path: string): Promise<Socket> {
  const socket = connect(path);
  socket.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/** Everything `socket` reads until its end. */
function readAll(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    socket.on("data", (chunk: Uint8Array) => text += new TextDecoder().decode(chunk));
    socket.on("end", () => resolve(text));
    socket.on("close", () => resolve(text));
  });
}

describe("runtime.listenUnix", () => {
  it("holds what arrives while paused, passes it on in order when resumed, then the end", () =>
    withListener(async (path, accepted) => {
      const socket = await client(path);
      const served = await accepted();
      const seen: string[] = [];
      served.on("data", (chunk) => seen.push(new TextDecoder().decode(chunk)));
      const ended = new Promise<void>((resolve) => served.on("end", resolve));
      socket.write("one\n");
      socket.write("two\n");
      socket.end();
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.deepEqual(seen, [], "nothing is passed on before resume");
      served.resume();
      await ended;
      assert.equal(seen.join(""), "one\ntwo\n");
    }));

  it("stays writable after the peer's end, and closes once it ends too", () =>
    withListener(async (path, accepted) => {
      const socket = await client(path);
      const answer = readAll(socket);
      const served = await accepted();
      const closed = new Promise<void>((resolve) => served.on("close", resolve));
      served.on("end", () => {
        served.write("answered after your end\n");
        served.end();
      });
      served.resume();
      socket.end("question\n");
      assert.equal(await answer, "answered after your end\n");
      await closed;
      assert.ok(served.closed);
    }));

  it("counts what the kernel has not taken while the peer does not read, and drains when it does", () =>
    withListener(async (path, accepted) => {
      const socket = await client(path);
      socket.pause();
      const served = await accepted();
      const size = 8 * 1024 * 1024;
      const payload = new Uint8Array(size);
      for (let i = 0; i < size; i++) payload[i] = i % 253;
      served.write(payload);
      payload.fill(0); // The connection kept its own copy.
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.ok(served.unsentBytes > 0, "a peer that does not read leaves bytes unsent");
      assert.ok(served.unsentBytes < size, "what the kernel took is not counted");
      let flushed = false;
      const done = served.flushed().then(() => flushed = true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(flushed, false, "flushed waits for the peer to read");
      const received: Uint8Array[] = [];
      let total = 0;
      const all = new Promise<void>((resolve) =>
        socket.on("data", (chunk: Uint8Array) => {
          received.push(chunk);
          total += chunk.length;
          if (total >= size) resolve();
        })
      );
      socket.resume();
      await done;
      assert.equal(served.unsentBytes, 0);
      await all;
      const joined = new Uint8Array(total);
      let at = 0;
      for (const chunk of received) {
        joined.set(chunk, at);
        at += chunk.length;
      }
      for (let i = 0; i < size; i += 4099) assert.equal(joined[i], i % 253, `byte ${i}`);
    }));

  it("reports the end when the peer leaves, close once, and refuses a path that exists", () =>
    withListener(async (path, accepted) => {
      const socket = await client(path);
      const served = await accepted();
      let closes = 0;
      const closed = new Promise<void>((resolve) =>
        served.on("close", () => {
          closes++;
          resolve();
        })
      );
      const ended = new Promise<void>((resolve) => served.on("end", resolve));
      served.resume();
      socket.destroy();
      await ended;
      served.end();
      await closed;
      served.destroy();
      served.write("dropped");
      assert.equal(closes, 1);
      await assert.rejects(
        runtime.listenUnix(path, () => {}),
        (error: Error & { code?: string }) => error.code === "EADDRINUSE",
      );
      const file = path + ".file";
      writeFileSync(file, "");
      await assert.rejects(
        runtime.listenUnix(file, () => {}),
        (error: Error & { code?: string }) => error.code === "EADDRINUSE",
      );
    }));
});
