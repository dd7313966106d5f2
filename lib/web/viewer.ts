/**
 * One dashboard page's WebSocket: the sessions it watches, each streamed as
 * a snapshot then output deltas with offsets, and the keys it sends while it
 * holds a session's input lease.
 *
 * Flow control: the program's output is never held for a page. Each watch
 * only remembers how far the page has been sent; the bytes stay in the
 * session's own bounded output log. A page whose socket has more than
 * {@linkcode HIGH_WATER} bytes queued is sent nothing until it drains, and
 * one that fell more than {@linkcode MAX_BEHIND} bytes behind (or behind what
 * the log still holds) gets a fresh snapshot instead of the bytes it missed.
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

/** Scrollback lines a snapshot carries. */
const SNAPSHOT_SCROLLBACK = 1000;

/** Largest binary frame's payload. */
const FRAME_BYTES = 64 * 1024;

/**
 * Least time between two sends to a page: output after a quiet spell goes at
 * once (a keystroke's echo), a flood in one frame per interval.
 */
const FRAME_MS = 16;

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
          }" message: expected watch, unwatch, input, take, release or resize`,
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

  #snapshot(name: string, watch: Watch): void {
    const shot = watch.session.terminal.snapshot(SNAPSHOT_SCROLLBACK);
    watch.offset = shot.offset;
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

  /** How long output should wait so that a page gets at most one send per frame. */
  #frameDelay(): number {
    return Math.max(0, this.#lastPump + FRAME_MS - performance.now());
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
    this.#lastPump = performance.now();
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
      if (watch.offset === log.totalBytes) continue;
      const kept = log.totalBytes - log.byteLength;
      if (watch.offset < kept || log.totalBytes - watch.offset > MAX_BEHIND) {
        this.#snapshot(name, watch); // Too far behind: a picture instead of the bytes.
        continue;
      }
      const bytes = log.since(watch.offset);
      for (let at = 0; at < bytes.length; at += FRAME_BYTES) {
        const part = bytes.subarray(at, at + FRAME_BYTES);
        this.#socket.send(outputFrame(watch.id, watch.offset + at, part));
      }
      watch.offset += bytes.length;
    }
  }
}
