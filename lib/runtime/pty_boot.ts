/**
 * Reading PTY masters on the JavaScript thread until the reader's worker
 * runs (see `pty_reader.ts`), where a worker is dear to start (Deno). Each
 * round waits in one poll(2) that the runtime runs off the JavaScript thread
 * (Deno's blocking pool), then reads the ready masters and hands their bytes
 * on at once: reading and parsing take turns, as a flood then shows.
 * @module
 */

import { EAGAIN, EINTR, type Libc } from "./libc.ts";

/** poll(2) with an infinite timeout, off the JavaScript thread; `revents` filled in. */
export type PollAsync = (fds: Uint8Array, count: number) => Promise<void>;

/** A master as the reader knows it. */
export interface BootEntry {
  fd: number;
  onData: (bytes: Uint8Array, more: boolean) => void;
  onEnd: () => void;
  pending: Uint8Array[];
}

const POLLIN = 0x1;
const POLLOUT = 0x4;
const POLLERR = 0x8;
const POLLHUP = 0x10;
const POLLNVAL = 0x20;
const CHUNK = 64 * 1024;
/** Bytes read from one master per round before the others get a turn. */
const BUDGET = 4 * CHUNK;
const WAKE = new Uint8Array(new BigUint64Array([1n]).buffer);

/**
 * Calls a terminal's handler of its output or of its end. One loop reads
 * every terminal, so a handler that throws must not end it: the error is
 * printed and the reading goes on, for that terminal too.
 */
export function handOn<T>(
  handler: (value: T, more: boolean) => void,
  value: T,
  more = false,
): void {
  try {
    handler(value, more);
  } catch (error) {
    console.error("termbridge: a terminal's output handler failed (reading goes on):", error);
  }
}

/** The masters' reader while the worker starts. */
export class BootReader {
  #libc: Libc;
  #wakeFd: number;
  #poll: PollAsync;
  #buffer = new Uint8Array(CHUNK);
  #polled: Promise<void> | undefined;
  /** Bytes read so far, from every master. */
  bytesRead = 0;

  constructor(libc: Libc, wakeFd: number, poll: PollAsync) {
    this.#libc = libc;
    this.#wakeFd = wakeFd;
    this.#poll = poll;
  }

  /** Interrupts the pending poll (the set of masters or their writes changed). */
  wake(): void {
    this.#libc.write(this.#wakeFd, WAKE, 8);
  }

  /** Resolves once no poll holds the masters: a master may be closed then. */
  async idle(): Promise<void> {
    if (this.#polled === undefined) return;
    this.wake();
    await this.#polled;
  }

  /**
   * One round: waits until a master (or the wake fd) is ready, then flushes
   * the writable ones and reads the readable ones; a master whose output
   * ended leaves `entries`.
   */
  async round(entries: Map<number, BootEntry>, flush: (entry: BootEntry) => void): Promise<void> {
    const list = [...entries.values()];
    const fds = new Uint8Array(8 * (list.length + 1));
    const view = new DataView(fds.buffer);
    view.setInt32(0, this.#wakeFd, true);
    view.setInt16(4, POLLIN, true);
    list.forEach((entry, i) => {
      view.setInt32(8 * (i + 1), entry.fd, true);
      view.setInt16(8 * (i + 1) + 4, POLLIN | (entry.pending.length > 0 ? POLLOUT : 0), true);
    });
    this.#polled = this.#poll(fds, list.length + 1);
    try {
      await this.#polled;
    } finally {
      this.#polled = undefined;
    }
    if (view.getInt16(6, true) & POLLIN) this.#libc.read(this.#wakeFd, this.#buffer, 8);
    list.forEach((entry, i) => {
      if (entries.get(entry.fd) !== entry) return; // Closed meanwhile.
      const revents = view.getInt16(8 * (i + 1) + 6, true);
      if (revents & POLLOUT) flush(entry);
      if (revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) this.#read(entry, entries);
    });
  }

  /** Reads what the master has, up to the round's budget, and hands each read on. */
  #read(entry: BootEntry, entries: Map<number, BootEntry>): void {
    const c = this.#libc;
    for (let budget = BUDGET; budget > 0;) {
      const n = Number(c.read(entry.fd, this.#buffer, CHUNK));
      if (n > 0) {
        budget -= n;
        this.bytesRead += n;
        handOn(entry.onData, this.#buffer.subarray(0, n));
        if (entries.get(entry.fd) !== entry) return; // Closed by its consumer.
        continue;
      }
      const code = n < 0 ? c.errno() : 0;
      if (code === EAGAIN) return;
      if (code === EINTR) continue;
      entries.delete(entry.fd); // EIO (every slave closed) or end of file.
      handOn(entry.onEnd, undefined);
      return;
    }
  }
}
