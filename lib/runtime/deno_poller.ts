/**
 * One poll() loop for every PTY master on Deno.
 *
 * Deno runs non-blocking FFI calls on a capped thread pool, so parking one
 * blocking read per terminal stops scaling at a few dozen terminals. Instead
 * every master is non-blocking and a single poll() call waits for all of them
 * (plus an eventfd that wakes it when the set changes or a write is queued).
 * Ready masters are read synchronously, a bounded amount per round so that a
 * flooding program cannot starve the others, and each chunk is handed to its
 * consumer before the next read: a slow consumer slows the writer instead of
 * growing a queue.
 * @module
 */

import {
  EAGAIN,
  EINTR,
  errno,
  loadLibc,
  openEventFd,
  POLLERR,
  POLLHUP,
  POLLIN,
  POLLNVAL,
  POLLOUT,
} from "./deno_libc.ts";

const CHUNK = 64 * 1024;
/** Bytes read from one master per poll round before the others get a turn. */
const ROUND_BUDGET = 4 * CHUNK;

interface Entry {
  fd: number;
  onData: (bytes: Uint8Array) => void;
  onEnd: () => void;
  pending: Uint8Array[];
}

/** Multiplexes reads and writes of many PTY masters over one poll() call. */
export class PtyPoller {
  #entries = new Map<number, Entry>();
  #toClose: { fd: number; done: () => void }[] = [];
  #wakeFd = -1;
  #running = false;
  #polling = false;
  #buffer = new Uint8Array(CHUNK);

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
      loadLibc().close(fd);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#toClose.push({ fd, done: resolve });
      this.#wake();
    });
  }

  /** Returns the unwritten rest of `data`, or null when all was written. */
  #writeNow(fd: number, data: Uint8Array): Uint8Array | null {
    const c = loadLibc();
    let offset = 0;
    while (offset < data.length) {
      const view = data.subarray(offset);
      const n = Number(c.write(fd, view, BigInt(view.length)));
      if (n > 0) {
        offset += n;
        continue;
      }
      const code = errno();
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
    if (this.#wakeFd < 0) this.#wakeFd = openEventFd();
    this.#loop().catch((error) => {
      this.#running = false;
      console.error("termbridge: PTY poll loop failed:", error);
    });
  }

  #wake(): void {
    if (this.#wakeFd >= 0) {
      const one = new BigUint64Array([1n]);
      loadLibc().write(this.#wakeFd, new Uint8Array(one.buffer), 8n);
    }
  }

  async #loop(): Promise<void> {
    const c = loadLibc();
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
      await c.poll(fds, BigInt(entries.length + 1), -1);
      this.#polling = false;
      this.#closeRemoved();
      if (view.getInt16(6, true) & POLLIN) c.read(this.#wakeFd, this.#buffer, 8n);
      entries.forEach((entry, i) => {
        if (this.#entries.get(entry.fd) !== entry) return; // Closed meanwhile.
        const revents = view.getInt16(8 * (i + 1) + 6, true);
        if (revents & POLLOUT) this.#flush(entry);
        if (revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) this.#read(entry);
      });
    }
    this.#running = false;
    this.#closeRemoved();
  }

  #closeRemoved(): void {
    const c = loadLibc();
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

  #read(entry: Entry): void {
    const c = loadLibc();
    let budget = ROUND_BUDGET;
    while (budget > 0) {
      const n = Number(c.read(entry.fd, this.#buffer, BigInt(CHUNK)));
      if (n > 0) {
        budget -= n;
        entry.onData(this.#buffer.slice(0, n));
        if (this.#entries.get(entry.fd) !== entry) return; // The consumer closed it.
        continue;
      }
      const code = n < 0 ? errno() : 0;
      if (code === EAGAIN) return;
      if (code === EINTR) continue;
      // EIO (every slave closed) or end of file: the output is complete.
      this.#entries.delete(entry.fd);
      entry.onEnd();
      return;
    }
  }
}
