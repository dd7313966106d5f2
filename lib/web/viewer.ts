/**
 * One dashboard page's WebSocket: the sessions it watches, each streamed as
 * a snapshot then output deltas with offsets, and the keys it sends while it
 * holds a session's input lease.
 *
 * Flow control: the program's output is never held for a page. Each watch
 * only remembers how far the page has been sent and how far the page says
 * it has drawn (its acks); the bytes stay in the session's own bounded
 * output log. A page is sent at most {@linkcode WINDOW} bytes it has not
 * drawn yet, nothing while its socket has more than {@linkcode HIGH_WATER}
 * bytes queued, and output at {@linkcode PAGE_RATE} at most (after a burst
 * of a window): what comes faster waits, whole, until the page may have it.
 * A page that fell more than {@linkcode MAX_BEHIND} bytes behind (or behind
 * what the log still holds) gets a fresh snapshot instead of the bytes it
 * missed, once it has drawn what it had, at most every
 * {@linkcode SNAPSHOT_MS}. So a flood costs a page a few pictures a second,
 * not the parsing and painting of every byte (which, on the same machine,
 * took CPU from the program: bench/RESULTS.md).
 * @module
 */

import type { ServerWebSocket } from "../runtime/mod.ts";
import { asClient } from "../safety/client.ts";
import type { SessionManager } from "../sessions/manager.ts";
import type { Session } from "../sessions/session.ts";
import { outputFrame, type PageMessage, type ServerMessage } from "./protocol.ts";

/** Queued bytes above which nothing more is sent to a page until it drains. */
export const HIGH_WATER = 256 * 1024;

/** How far behind a page may fall before it gets a snapshot instead of the bytes. */
export const MAX_BEHIND = 512 * 1024;

/** Bytes sent to a page and not yet drawn (acked) beyond which it is sent no more. */
export const WINDOW = 256 * 1024;

/** Output a page is sent per second at most (bytes), beyond a first window. */
export const PAGE_RATE = 512 * 1024;

/** Least time between two snapshots of one watch (each costs a serialization and a redraw). */
export const SNAPSHOT_MS = 250;

/** Scrollback lines a snapshot carries. */
const SNAPSHOT_SCROLLBACK = 1000;

/** Largest binary frame's payload. */
const FRAME_BYTES = 64 * 1024;

/**
 * Least time between two sends to a page: output after a quiet spell goes at
 * once (a keystroke's echo), a flood in one frame per interval.
 */
const FRAME_MS = 16;

/**
 * Least time between two sends while output keeps coming in bulk (a send of
 * {@linkcode BUSY_BYTES} or more): a page repaints a flood a few times a
 * second, not at 60 frames (painting, not parsing, is what a flood costs a
 * browser: bench/RESULTS.md). A keystroke's echo is far smaller.
 */
const BUSY_FRAME_MS = 100;

/** What one send must carry for the next to wait {@linkcode BUSY_FRAME_MS}. */
const BUSY_BYTES = 16 * 1024;

/** How long the output must pause for a flood to be over (then the scrollback is sent). */
const QUIET_MS = 200;

/** How soon to look again at output that came faster than PAGE_RATE. */
const FLOOD_WAIT_MS = 50;

/** How soon to look again at a page whose socket is full. */
const RETRY_MS = 10;

/** What a viewer shares with the others: sessions and input leases. */
export interface ViewerHost {
  sessions: SessionManager;
  /** Who holds `name`'s input lease, or undefined. */
  driverOf(name: string): Viewer | undefined;
  /** Gives `name`'s lease to `viewer` (null: nobody) and tells every page. */
  setDriver(name: string, viewer: Viewer | null): void;
  /** This page's answer to policy question `id`. */
  answer(id: number, allow: boolean, viewer: Viewer): void;
}

interface Watch {
  id: number;
  session: Session;
  /** The offset up to which the page has been sent the output. */
  offset: number;
  /** The offset up to which the page says it has drawn the output. */
  acked: number;
  /** When the last snapshot was sent (performance.now()). */
  snapshotAt: number;
  /** Whether the last snapshot left the scrollback out (sent during a flood). */
  partial: boolean;
  /** The log's totalBytes at the last pump (to tell a flood that stopped). */
  seen: number;
  /** When a pump last saw the output grow (performance.now()). */
  grewAt: number;
  /** Bytes the page may be sent now (refilled at PAGE_RATE up to WINDOW; negative after a picture). */
  budget: number;
  /** When the budget was last refilled (performance.now()). */
  refilledAt: number;
  cols: number;
  rows: number;
  stop: () => void;
}

/** One page's connection. */
export class Viewer {
  /** The client's label in the audit log and on other pages ("web 3"). */
  readonly label: string;
  readonly #socket: ServerWebSocket;
  readonly #host: ViewerHost;
  readonly #watches = new Map<string, Watch>();
  #nextId = 1;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(socket: ServerWebSocket, label: string, host: ViewerHost) {
    this.#socket = socket;
    this.label = label;
    this.#host = host;
    this.send({ t: "hello", client: label });
  }

  /** Sends a JSON message. */
  send(message: ServerMessage): void {
    if (!this.#closed) this.#socket.send(JSON.stringify(message));
  }

  /** Handles a message from the page; a bad one is answered with an error, never thrown. */
  receive(data: string | Uint8Array): void {
    let message: PageMessage;
    try {
      message = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
      if (message?.t === "answer") {
        if (!Number.isInteger(message.id) || typeof message.allow !== "boolean") {
          throw new Error("an answer needs a question's id and allow (true or false)");
        }
      } else if (typeof message?.t !== "string" || typeof message.name !== "string") {
        throw new Error("expected an object with a type (t) and a session name");
      }
    } catch (error) {
      this.send({ t: "error", message: `Cannot read a message: ${(error as Error).message}` });
      return;
    }
    try {
      this.#handle(message);
    } catch (error) {
      this.send({ t: "error", message: (error as Error).message });
    }
  }

  /** The page left: its watches end and its leases go back. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    for (const watch of this.#watches.values()) watch.stop();
    for (const name of this.#watches.keys()) {
      if (this.#host.driverOf(name) === this) this.#host.setDriver(name, null);
    }
    this.#watches.clear();
  }

  #handle(message: PageMessage): void {
    if (message.t === "answer") return this.#host.answer(message.id, message.allow, this);
    const { name } = message;
    if (message.t === "ack") return this.#ack(name, message.offset);
    switch (message.t) {
      case "watch":
        return this.#watch(name, message.from);
      case "unwatch": {
        this.#watches.get(name)?.stop();
        this.#watches.delete(name);
        if (this.#host.driverOf(name) === this) this.#host.setDriver(name, null);
        return;
      }
      case "input":
        return this.#input(name, String(message.data));
      case "take": {
        const session = this.#host.sessions.get(name);
        this.#host.setDriver(name, this);
        if (Number.isInteger(message.cols) && Number.isInteger(message.rows)) {
          this.#resize(session, message.cols!, message.rows!);
        }
        return;
      }
      case "release":
        if (this.#host.driverOf(name) === this) this.#host.setDriver(name, null);
        return;
      case "resize":
        if (this.#host.driverOf(name) !== this) return; // A viewer never resizes the program.
        return this.#resize(this.#host.sessions.get(name), message.cols, message.rows);
      default:
        throw new Error(
          `Cannot handle a "${
            (message as { t: string }).t
          }" message: expected watch, unwatch, ack, input, take, release or resize`,
        );
    }
  }

  #watch(name: string, from: number | undefined): void {
    const session = this.#host.sessions.get(name);
    this.#watches.get(name)?.stop();
    const terminal = session.terminal;
    const watch: Watch = {
      id: this.#nextId++,
      session,
      offset: 0,
      acked: 0,
      snapshotAt: -Infinity,
      partial: false,
      seen: -1,
      grewAt: -Infinity,
      budget: WINDOW,
      refilledAt: performance.now(),
      cols: terminal.cols,
      rows: terminal.rows,
      stop: terminal.onChange(() => this.#schedule(this.#frameDelay())),
    };
    this.#watches.set(name, watch);
    const log = terminal.rawLog;
    const resumable = typeof from === "number" && Number.isInteger(from) &&
      from >= log.totalBytes - log.byteLength && from <= log.totalBytes &&
      log.totalBytes - from <= MAX_BEHIND;
    if (resumable) {
      watch.offset = from;
      watch.acked = from;
      this.send({
        t: "resume",
        name,
        id: watch.id,
        offset: from,
        cols: watch.cols,
        rows: watch.rows,
      });
    } else {
      this.#snapshot(name, watch);
    }
    this.#schedule(0);
  }

  /** The page has drawn `name`'s output up to `offset`: the window opens again. */
  #ack(name: string, offset: unknown): void {
    const watch = this.#watches.get(name);
    if (watch === undefined) return; // Unwatched meanwhile.
    if (typeof offset !== "number" || !Number.isFinite(offset)) {
      throw new Error(`Cannot read an ack of "${name}": expected the offset drawn up to`);
    }
    const acked = Math.min(offset, watch.offset);
    if (acked <= watch.acked) return;
    watch.acked = acked;
    this.#schedule(this.#frameDelay());
  }

  /**
   * Sends a picture of the session: with its scrollback, or (`screenOnly`,
   * while a flood goes on) of the screen alone, which a page draws in a
   * fraction of the time; the scrollback follows once the flood is over.
   */
  #snapshot(name: string, watch: Watch, screenOnly = false): void {
    const shot = watch.session.terminal.snapshot(screenOnly ? 0 : SNAPSHOT_SCROLLBACK);
    watch.partial = screenOnly;
    watch.offset = shot.offset;
    // The picture fills the window: nothing more until the page says it has drawn it.
    watch.acked = shot.offset - WINDOW;
    watch.snapshotAt = performance.now();
    watch.budget -= shot.data.length;
    this.#lastSent += shot.data.length;
    watch.cols = shot.cols;
    watch.rows = shot.rows;
    this.send({ t: "snapshot", name, id: watch.id, ...shot });
  }

  #input(name: string, data: string): void {
    const session = this.#host.sessions.get(name);
    if (this.#host.driverOf(name) !== this) {
      const driver = this.#host.driverOf(name);
      throw new Error(
        `Cannot type into "${name}": you are watching (${
          driver ? `"${driver.label}" drives it` : "nobody drives it"
        }); take control first`,
      );
    }
    if (data.length === 0 || session.terminal.exitStatus !== null) return;
    // The same path as attach: the keys go to the program, and the lines its shell runs are
    // checked and audited as this client's.
    asClient(this.label, () => {
      session.noteClient(this.label);
      session.terminal.write(data);
    });
  }

  #resize(session: Session, cols: number, rows: number): void {
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 2 || rows < 1) {
      throw new Error(`Cannot resize "${session.name}" to ${cols}x${rows}: expected whole numbers`);
    }
    if (session.terminal.exitStatus !== null) return;
    const fit = { cols: Math.min(cols, 1000), rows: Math.min(rows, 500) };
    if (fit.cols !== session.terminal.cols || fit.rows !== session.terminal.rows) {
      session.resize(fit.cols, fit.rows);
      this.#schedule(0);
    }
  }

  /** When the last pump ran (performance.now()). */
  #lastPump = -Infinity;

  /** Bytes the pump being run sent (output and pictures). */
  #lastSent = 0;

  /** When the last bulk send was made ({@linkcode BUSY_BYTES} or more), performance.now(). */
  #busyAt = -Infinity;

  /** How long output should wait so that a page gets at most one send per frame. */
  #frameDelay(): number {
    const next = Math.max(this.#lastPump + FRAME_MS, this.#busyAt + BUSY_FRAME_MS);
    return Math.max(0, next - performance.now());
  }

  #schedule(delay: number): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, delay);
  }

  /** Sends each watch what it has not had yet, as far as the page's socket takes it. */
  #pump(): void {
    const calm = this.#busyAt + BUSY_FRAME_MS - performance.now();
    if (calm > 0) return this.#schedule(calm); // Bulk output: a few sends a second.
    this.#lastPump = performance.now();
    this.#lastSent = 0;
    for (const [name, watch] of this.#watches) {
      const terminal = watch.session.terminal;
      if (terminal.disposed) {
        watch.stop();
        this.#watches.delete(name);
        this.send({ t: "gone", name });
        continue;
      }
      if (this.#socket.bufferedAmount() > HIGH_WATER) return this.#schedule(RETRY_MS);
      if (terminal.cols !== watch.cols || terminal.rows !== watch.rows) {
        watch.cols = terminal.cols;
        watch.rows = terminal.rows;
        this.send({ t: "size", id: watch.id, cols: watch.cols, rows: watch.rows });
      }
      const log = terminal.rawLog;
      const now = performance.now();
      if (log.totalBytes !== watch.seen) watch.grewAt = now;
      watch.seen = log.totalBytes;
      if (watch.offset === log.totalBytes && !watch.partial) continue;
      watch.budget = Math.min(WINDOW, watch.budget + (now - watch.refilledAt) * PAGE_RATE / 1000);
      watch.refilledAt = now;
      const room = WINDOW - (watch.offset - watch.acked);
      const behind = log.totalBytes - watch.offset;
      const kept = log.totalBytes - log.byteLength;
      // After pictures of the screen alone, the flood is over once the output stops a moment;
      // until then the page gets pictures of the screen only, not the bytes between them.
      const quiet = now - watch.grewAt >= QUIET_MS;
      const flooded = watch.offset < kept || behind > MAX_BEHIND ||
        (watch.partial && !quiet && behind > 0);
      const over = watch.partial && quiet;
      if (watch.partial && !quiet) this.#schedule(QUIET_MS); // To see the flood end.
      if (flooded || over) {
        // Too far behind: a picture instead of the bytes, once the page has drawn what it has;
        // of the screen alone while the flood goes on, with the scrollback once it is over.
        if (room < WINDOW) continue; // Its ack schedules the next pump.
        const wait = Math.max(
          watch.snapshotAt + SNAPSHOT_MS - now,
          -watch.budget / PAGE_RATE * 1000,
        );
        if (wait > 0) {
          this.#schedule(wait);
          continue;
        }
        this.#snapshot(name, watch, !over);
        continue;
      }
      if (watch.offset === log.totalBytes) continue;
      if (room <= 0) continue; // Its ack schedules the next pump.
      const due = Math.min(behind, room);
      if (due > watch.budget) {
        // Faster than a page is sent: it waits, whole (a flood grows into a picture).
        this.#schedule(Math.min(FLOOD_WAIT_MS, (due - watch.budget) / PAGE_RATE * 1000));
        continue;
      }
      watch.budget -= due;
      const bytes = log.since(watch.offset).subarray(0, due);
      for (let at = 0; at < bytes.length; at += FRAME_BYTES) {
        const part = bytes.subarray(at, at + FRAME_BYTES);
        this.#socket.send(outputFrame(watch.id, watch.offset + at, part));
      }
      watch.offset += bytes.length;
      this.#lastSent += bytes.length;
    }
    if (this.#lastSent >= BUSY_BYTES) this.#busyAt = this.#lastPump;
  }
}
