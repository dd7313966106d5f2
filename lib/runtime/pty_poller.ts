/**
 * One poll() loop for every PTY master.
 *
 * Parking one blocking read per terminal on a thread stops scaling at a few
 * dozen terminals (Deno's pool for non-blocking FFI calls is capped; Bun has
 * none). Instead every master is non-blocking and a single poll() call, off
 * the JavaScript thread, waits for all of them (plus an eventfd that wakes it
 * when the set changes or a write is queued).
 * Ready masters are read synchronously, a bounded amount per round so that a
 * flooding program cannot starve the others, and each chunk is handed to its
 * consumer before the next read: a slow consumer slows the writer instead of
 * growing a queue.
 * @module
 */

import {
  EAGAIN,
  EFD_CLOEXEC,
  EFD_NONBLOCK,
  EINTR,
  type Libc,
  POLLERR,
  POLLHUP,
  POLLIN,
  POLLNVAL,
  POLLOUT,
} from "./libc.ts";

const CHUNK = 64 * 1024;
/** Bytes read from one master per poll round before the others get a turn. */
const ROUND_BUDGET = 4 * CHUNK;

/** What is added to the eventfd to wake the loop: a 64-bit 1. */
const WAKE = new Uint8Array(new BigUint64Array([1n]).buffer);

interface Entry {
  fd: number;
  onData: (bytes: Uint8Array) => void;
  onEnd: () => void;
  pending: Uint8Array[];
}

/** Multiplexes reads and writes of many PTY masters over one poll() call. */
export class PtyPoller {
  #libc: Libc;
  #entries = new Map<number, Entry>();
  #toClose: { fd: number; done: () => void }[] = [];
  #wakeFd: number;
  #running = false;
  #polling = false;
  #buffer = new Uint8Array(CHUNK);
  /** Reads gathered into one chunk: a flood reaches the emulator in fewer, larger pieces. */
  #gather = new Uint8Array(CHUNK);

  /** @throws {Error} when the eventfd that wakes the loop cannot be made */
  constructor(libc: Libc) {
    this.#libc = libc;
    this.#wakeFd = libc.eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (this.#wakeFd < 0) throw new Error(`Cannot create an eventfd: errno ${libc.errno()}`);
  }

  /** Starts watching a master fd. `onEnd` is called once at end of output. */
  add(fd: number, onData: (bytes: Uint8Array) => void, onEnd: () => void): void {
    this.#entries.set(fd, { fd, onData, onEnd, pending: [] });
    this.#kick();
  }

  /** Writes to a master, queueing what the kernel does not take at once. */
  write(fd: number, data: Uint8Array): void {
    const entry = this.#entries.get(fd);
    if (entry === undefined) return; // Output ended: nothing reads input any more.
    if (entry.pending.length > 0) {
      entry.pending.push(data.slice());
      return;
    }
    const rest = this.#writeNow(fd, data);
    if (rest !== null) {
      entry.pending.push(rest.slice());
      this.#kick();
    }
  }

  /** Stops watching `fd` and closes it once no pending poll() still holds it. */
  close(fd: number): Promise<void> {
    this.#entries.delete(fd);
    if (!this.#polling) {
      this.#libc.close(fd);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#toClose.push({ fd, done: resolve });
      this.#wake();
    });
  }

  /** Returns the unwritten rest of `data`, or null when all was written. */
  #writeNow(fd: number, data: Uint8Array): Uint8Array | null {
    const c = this.#libc;
    let offset = 0;
    while (offset < data.length) {
      const view = data.subarray(offset);
      const n = Number(c.write(fd, view, view.length));
      if (n > 0) {
        offset += n;
        continue;
      }
      const code = c.errno();
      if (code === EINTR) continue;
      if (code === EAGAIN) return data.subarray(offset);
      return null; // The terminal is gone; its end of output will be reported by the reader.
    }
    return null;
  }

  #kick(): void {
    if (this.#running) {
      this.#wake();
      return;
    }
    this.#running = true;
    this.#loop().catch((error) => {
      this.#running = false;
      console.error("termbridge: PTY poll loop failed:", error);
    });
  }

  #wake(): void {
    this.#libc.write(this.#wakeFd, WAKE, 8);
  }

  async #loop(): Promise<void> {
    const c = this.#libc;
    while (this.#entries.size > 0) {
      const entries = [...this.#entries.values()];
      const fds = new Uint8Array(8 * (entries.length + 1));
      const view = new DataView(fds.buffer);
      view.setInt32(0, this.#wakeFd, true);
      view.setInt16(4, POLLIN, true);
      entries.forEach((entry, i) => {
        view.setInt32(8 * (i + 1), entry.fd, true);
        view.setInt16(8 * (i + 1) + 4, POLLIN | (entry.pending.length > 0 ? POLLOUT : 0), true);
      });
      this.#polling = true;
      await c.pollAsync(fds, entries.length + 1);
      this.#polling = false;
      this.#closeRemoved();
      if (view.getInt16(6, true) & POLLIN) c.read(this.#wakeFd, this.#buffer, 8);
      let readable = false;
      entries.forEach((entry, i) => {
        if (this.#entries.get(entry.fd) !== entry) return; // Closed meanwhile.
        const revents = view.getInt16(8 * (i + 1) + 6, true);
        if (revents & POLLOUT) this.#flush(entry);
        if (revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
          readable = true;
          this.#read(entry);
        }
      });
      // Let the event loop look at its other I/O before the next round: a poll that
      // answers at once (a flood; Bun's worker answers as a task) would starve stdin.
      if (readable) await new Promise((resolve) => setImmediate(resolve));
    }
    this.#running = false;
    this.#closeRemoved();
  }

  #closeRemoved(): void {
    const c = this.#libc;
    for (const { fd, done } of this.#toClose.splice(0)) {
      c.close(fd);
      done();
    }
  }

  #flush(entry: Entry): void {
    while (entry.pending.length > 0) {
      const rest = this.#writeNow(entry.fd, entry.pending[0]);
      if (rest !== null) {
        entry.pending[0] = rest;
        return;
      }
      entry.pending.shift();
    }
  }

  /**
   * Reads what the master has (up to the round's budget), gathering the
   * kernel's small reads (a PTY gives about 4 KiB at a time) into chunks of
   * up to 64 KiB: what is there is passed on as soon as a read finds nothing
   * more, so an echo is not held back.
   */
  #read(entry: Entry): void {
    const c = this.#libc;
    let budget = ROUND_BUDGET;
    let filled = 0;
    /** Passes on what was gathered; false when the consumer closed the master meanwhile. */
    const deliver = () => {
      if (filled > 0) {
        entry.onData(this.#gather.subarray(0, filled));
        filled = 0;
      }
      return this.#entries.get(entry.fd) === entry;
    };
    while (budget > 0) {
      const n = Number(c.read(entry.fd, this.#buffer, CHUNK - filled));
      if (n > 0) {
        budget -= n;
        this.#gather.set(this.#buffer.subarray(0, n), filled);
        filled += n;
        if (filled === CHUNK && !deliver()) return;
        continue;
      }
      const code = n < 0 ? c.errno() : 0;
      if (code === EAGAIN) {
        deliver();
        return;
      }
      if (code === EINTR) continue;
      // EIO (every slave closed) or end of file: the output is complete.
      if (!deliver()) return;
      this.#entries.delete(entry.fd);
      entry.onEnd();
      return;
    }
    deliver();
  }
}
