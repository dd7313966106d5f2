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
import {
  HIGH_WATER,
  MAX_BEHIND,
  PAGE_RATE,
  SNAPSHOT_MS,
  Viewer,
  type ViewerHost,
  WINDOW,
} from "../../lib/web/viewer.ts";

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
      // The page drew the picture (until it says so, it is sent nothing more).
      viewer.receive(JSON.stringify({ t: "ack", name: "s", offset: snapshot.offset }));
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
      const first = socket.texts.find((m) => m.t === "snapshot")!;
      viewer.receive(JSON.stringify({ t: "ack", name: "s", offset: first.offset }));
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

  it("web: a page that reads but has not drawn is sent at most a window, then a picture once it acks", async () => {
    const sessions = new SessionManager();
    const socket = new TestSocket(); // Its queue stays empty: the page's socket keeps up.
    const viewer = new Viewer(socket, "web 1", host(sessions));
    try {
      const session = await sessions.open({
        name: "s",
        program: ["bash", "--norc", "--noprofile"],
      });
      viewer.receive(JSON.stringify({ t: "watch", name: "s" }));
      const first = socket.texts.find((m) => m.t === "snapshot")!;
      viewer.receive(JSON.stringify({ t: "ack", name: "s", offset: first.offset }));
      // Four times what the page may fall behind, while it draws nothing (sends no ack).
      session.type(`head -c ${4 * MAX_BEHIND} /dev/zero | tr '\\0' x; echo; echo flood-done\n`);
      await session.terminal.waitForText(/^flood-done$/m, 30_000);
      const sent = () => socket.frames.reduce((sum, [, length]) => sum + length, 0);
      const pictures = () => socket.texts.filter((m) => m.t === "snapshot").length;
      // The viewer's pump runs on its own timer: the screen may have the end before it ran.
      await waitUntil(() => sent() > 0 || pictures() === 2, "the viewer's first send");
      assert.ok(sent() <= WINDOW, `${sent()} bytes sent before an ack`);
      // Bytes up to a window, then nothing until the page draws them; or, when the flood was
      // already more than MAX_BEHIND ahead at the first send (a fast reader), one picture at once.
      assert.ok(pictures() === 1 ? sent() > 0 : pictures() === 2 && sent() === 0, `${pictures()}`);
      // The page draws what it gets: being far behind, it gets a picture, not the rest.
      await waitUntil(() => {
        const last = socket.frames.at(-1);
        if (last) {
          viewer.receive(JSON.stringify({ t: "ack", name: "s", offset: last[0] + last[1] }));
        }
        return pictures() === 2;
      }, "a fresh snapshot");
      assert.ok(sent() <= WINDOW, `${sent()} bytes sent in all`);
      // A bad ack is answered, and the loop goes on.
      viewer.receive(JSON.stringify({ t: "ack", name: "s", offset: "far" }));
      assert.match(String(socket.texts.at(-1)?.message), /Cannot read an ack of "s"/);
    } finally {
      viewer.close();
      await sessions.closeAll();
    }
  });

  it("web: a page that keeps up with a flood is sent it at PAGE_RATE and pictures, and ends current", async () => {
    const sessions = new SessionManager();
    const socket = new TestSocket();
    const viewer = new Viewer(socket, "web 1", host(sessions));
    // The page draws everything at once: it acks each frame and picture as it comes.
    const send = socket.send.bind(socket);
    socket.send = (data) => {
      send(data);
      const last = typeof data === "string" ? socket.texts.at(-1) : undefined;
      const frame = socket.frames.at(-1);
      const offset = last?.t === "snapshot"
        ? last.offset as number
        : typeof data === "string" || frame === undefined
        ? undefined
        : frame[0] + frame[1];
      if (offset !== undefined) {
        queueMicrotask(() => viewer.receive(JSON.stringify({ t: "ack", name: "s", offset })));
      }
    };
    try {
      const session = await sessions.open({
        name: "s",
        program: ["bash", "--norc", "--noprofile"],
      });
      viewer.receive(JSON.stringify({ t: "watch", name: "s" }));
      const started = performance.now();
      session.type(`head -c 8000000 /dev/zero | tr '\\0' y; echo; echo flood-$((6*7))\n`);
      await session.terminal.waitForText(/^flood-42$/m, 60_000);
      const log = session.terminal.rawLog;
      // It ends current: the last picture or frame reaches the end of the output.
      await waitUntil(() => {
        const frame = socket.frames.at(-1);
        const shot = socket.texts.filter((m) => m.t === "snapshot").at(-1)!;
        return Math.max(frame ? frame[0] + frame[1] : 0, shot.offset as number) ===
          log.totalBytes;
      }, "the page to be current");
      const seconds = (performance.now() - started) / 1000;
      const sent = socket.frames.reduce((sum, [, length]) => sum + length, 0);
      // What it was sent: at most a window plus PAGE_RATE a second, not 8 MB.
      assert.ok(sent <= WINDOW + PAGE_RATE * seconds, `${sent} bytes in ${seconds} s`);
      assert.ok(sent < 8_000_000 / 2, `${sent} bytes`);
      // The flood's pictures were of the screen; one after it brings the scrollback back.
      const shots = () => socket.texts.filter((m) => m.t === "snapshot");
      const screenOnly = Math.min(...shots().slice(1).map((m) => String(m.data).length));
      await waitUntil(() => {
        const last = shots().at(-1)!;
        return last.offset === log.totalBytes && String(last.data).length > 5 * screenOnly;
      }, "a picture with the scrollback after the flood");
      const pictures = socket.texts.filter((m) => m.t === "snapshot").length;
      assert.ok(pictures >= 2, `${pictures} pictures`);
      assert.ok(pictures <= 2 + seconds * 1000 / SNAPSHOT_MS, `${pictures} in ${seconds} s`);
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
