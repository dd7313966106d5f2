/**
 * A page's stream of a real session (a real PTY and program) through a
 * socket of our own whose queue the test fills and drains: what the page is
 * sent while it cannot take more, and after.
 */

import assert from "node:assert/strict";
import { describe, it } from "../harness.ts";
import { waitUntil } from "../helpers.ts";
import type { ServerWebSocket } from "../../lib/runtime/mod.ts";
import { SessionManager } from "../../lib/sessions/manager.ts";
import { HEADER_BYTES } from "../../lib/web/protocol.ts";
import { HIGH_WATER, MAX_BEHIND, Viewer, type ViewerHost } from "../../lib/web/viewer.ts";

/** A socket whose queue is as full as the test says; it keeps what it is sent. */
class TestSocket implements ServerWebSocket {
  queued = 0;
  texts: { t: string; [key: string]: unknown }[] = [];
  /** Output frames: [offset, length]. */
  frames: [number, number][] = [];
  bytesSent = 0;
  send(data: string | Uint8Array): void {
    if (typeof data === "string") {
      this.texts.push(JSON.parse(data));
      this.bytesSent += data.length;
      return;
    }
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    this.frames.push([view.getFloat64(4), data.length - HEADER_BYTES]);
    this.bytesSent += data.length;
  }
  bufferedAmount(): number {
    return this.queued;
  }
  close(): void {}
}

function host(sessions: SessionManager): ViewerHost {
  const drivers = new Map<string, Viewer>();
  return {
    sessions,
    driverOf: (name) => drivers.get(name),
    setDriver: (name, viewer) => viewer ? drivers.set(name, viewer) : drivers.delete(name),
    answer: () => {
      throw new Error("Cannot answer: no question is open in this test");
    },
  };
}

describe("web viewer", () => {
  it("web: output reaches the page in order, each byte once, from a snapshot's offset", async () => {
    const sessions = new SessionManager();
    const socket = new TestSocket();
    const viewer = new Viewer(socket, "web 1", host(sessions));
    try {
      const session = await sessions.open({
        name: "s",
        program: ["bash", "--norc", "--noprofile"],
      });
      viewer.receive(JSON.stringify({ t: "watch", name: "s" }));
      const snapshot = socket.texts.find((m) => m.t === "snapshot")!;
      assert.equal(typeof snapshot.data, "string");
      session.type("seq 1 3000\n");
      const log = session.terminal.rawLog;
      await session.terminal.waitForText(/^3000$/m);
      await waitUntil(() => {
        const last = socket.frames.at(-1);
        return last !== undefined && last[0] + last[1] === log.totalBytes;
      }, "the page to have every byte");
      let expected = snapshot.offset as number;
      for (const [offset, length] of socket.frames) {
        assert.equal(offset, expected, "a frame starts where the last one ended");
        expected += length;
      }
    } finally {
      viewer.close();
      await sessions.closeAll();
    }
  });

  it("web: a page that cannot take more is sent nothing, then a fresh snapshot; the program is not slowed", async () => {
    const sessions = new SessionManager();
    const socket = new TestSocket();
    const viewer = new Viewer(socket, "web 1", host(sessions));
    try {
      const session = await sessions.open({
        name: "s",
        program: ["bash", "--norc", "--noprofile"],
      });
      viewer.receive(JSON.stringify({ t: "watch", name: "s" }));
      socket.queued = HIGH_WATER + 1; // The page stopped reading.
      const sentBefore = socket.bytesSent;
      const framesBefore = socket.frames.length;
      // Four times what the page may fall behind, written while the page is stuck.
      session.type(`head -c ${4 * MAX_BEHIND} /dev/zero | tr '\\0' x; echo; echo flood-done\n`);
      await session.terminal.waitForText(/^flood-done$/m, 30_000);
      assert.equal(socket.frames.length, framesBefore, "nothing sent while the page was stuck");
      assert.equal(socket.bytesSent, sentBefore);
      socket.queued = 0; // It reads again.
      await waitUntil(
        () => socket.texts.filter((m) => m.t === "snapshot").length === 2,
        "a fresh snapshot",
      );
      const fresh = socket.texts.filter((m) => m.t === "snapshot")[1];
      assert.ok(
        (fresh.offset as number) >= 4 * MAX_BEHIND,
        "the snapshot stands after the flood",
      );
      // What it got instead of 2 MiB of x: a picture of one screen and scrollback.
      assert.ok(
        socket.bytesSent - sentBefore < MAX_BEHIND,
        `${socket.bytesSent - sentBefore} bytes`,
      );
    } finally {
      viewer.close();
      await sessions.closeAll();
    }
  });

  it("web: a watcher's input and resize are refused; the driver's reach the program", async () => {
    const sessions = new SessionManager();
    const socket = new TestSocket();
    const shared = host(sessions);
    const viewer = new Viewer(socket, "web 1", shared);
    try {
      const session = await sessions.open({
        name: "s",
        program: ["bash", "--norc", "--noprofile"],
      });
      viewer.receive(JSON.stringify({ t: "watch", name: "s" }));
      viewer.receive(JSON.stringify({ t: "input", name: "s", data: "echo watcher\r" }));
      viewer.receive(JSON.stringify({ t: "resize", name: "s", cols: 50, rows: 10 }));
      assert.match(String(socket.texts.at(-1)?.message), /Cannot type into "s": you are watching/);
      assert.deepEqual([session.terminal.cols, session.terminal.rows], [120, 40]);
      viewer.receive(JSON.stringify({ t: "take", name: "s", cols: 90, rows: 20 }));
      assert.deepEqual([session.terminal.cols, session.terminal.rows], [90, 20]);
      viewer.receive(JSON.stringify({ t: "input", name: "s", data: "echo dr''iver\r" }));
      await session.terminal.waitForText(/^driver$/m);
      assert.doesNotMatch(session.terminal.screenText(), /watcher/);
      assert.equal(session.lastClient, "web 1");
      viewer.receive("not json");
      assert.match(String(socket.texts.at(-1)?.message), /^Cannot read a message/);
      viewer.receive(JSON.stringify({ t: "watch", name: "nope" }));
      assert.match(String(socket.texts.at(-1)?.message), /nope/);
    } finally {
      viewer.close();
      await sessions.closeAll();
    }
  });
});
