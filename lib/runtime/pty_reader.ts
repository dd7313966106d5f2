/**
 * Every PTY master read on a thread of its own, parsed on the JavaScript
 * thread, with reading and parsing overlapped.
 *
 * With one thread doing both, the writer stopped whenever termbridge parsed:
 * the kernel holds only ~64 KiB between a program and its terminal's reader,
 * so a flood went read, parse, read, parse, each waiting for the other (a
 * plain flood at 0.40x of script(1)). Here a worker (`pty_reader_worker.ts`)
 * polls the masters and reads them into a 1 MiB ring in a SharedArrayBuffer,
 * 256 KiB per master and round so that a flood cannot starve the others;
 * the JavaScript thread takes records out in order, copies them (joined per
 * terminal, up to 1 MiB) and hands them on. A full ring stops the worker,
 * which stops the writer: a slow consumer still slows the program instead of
 * growing a queue. Writes stay on the JavaScript thread; the worker only
 * says when a master can take queued input.
 * @module
 */

import { EAGAIN, EFD_CLOEXEC, EFD_NONBLOCK, EINTR, type Libc } from "./libc.ts";
import { BootReader, handOn, type PollAsync } from "./pty_boot.ts";
import { LAYOUT, RECORD, sharedBytes, SLOT } from "./pty_reader_worker.ts";

/** The worker as the runtime started it. */
export interface ReaderThread {
  /** Keeps the process alive while terminals are open. */
  ref(): void;
  unref(): void;
}

/** How a runtime runs the reader. */
export interface ReaderStart {
  /** Starts the worker on `shared` (runtime-specific: its FFI binding). */
  start(shared: SharedArrayBuffer, wakeFd: number): ReaderThread;
  /**
   * Where starting a worker is dear (Deno: its constructor stalls the
   * JavaScript thread for ~100 ms, and its heap costs ~15 MB): that thread
   * reads the masters itself with `poll` (`pty_boot.ts`) until
   * `startAfterBytes` were read, then starts the worker and hands them over.
   * A process whose terminals never flood never pays for it.
   */
  boot?: { poll: PollAsync; startAfterBytes: number };
}

/**
 * Bytes handed on at most at once (consecutive records of one terminal
 * joined): a consumer that is behind gets larger chunks, which the emulator
 * parses faster (it skips the lines of a chunk that scroll out unseen).
 */
const GATHER = 1024 * 1024;
/**
 * A chunk at least this large was waiting for the JavaScript thread: the
 * terminal floods, and its handler is told that more probably follows.
 */
export const FLOODING = 128 * 1024;
/** Bytes taken out of the ring per event-loop turn before other I/O gets a turn. */
const TURN = 512 * 1024;
/**
 * With more than this waiting in the ring, terminals with little waiting
 * (at most `SMALL` bytes: an echo, a prompt, a redraw) are handed their
 * output before the next chunk of a flood read before it.
 */
const BACKLOG = 64 * 1024;
const SMALL = 16 * 1024;
/**
 * Records of other terminals looked at past the head's, once per stretch of
 * the ring (the head's chunk never goes past what was looked at).
 */
const LOOK_AHEAD = 256;

/** What is added to the eventfd to wake the worker's poll: a 64-bit 1. */
const WAKE = new Uint8Array(new BigUint64Array([1n]).buffer);

interface Entry {
  fd: number;
  onData: (bytes: Uint8Array, more: boolean) => void;
  onEnd: () => void;
  pending: Uint8Array[];
}

/** Multiplexes reads and writes of many PTY masters; reading runs on a worker. */
export class PtyReader {
  #libc: Libc;
  #entries = new Map<number, Entry>();
  #ctl: Int32Array;
  #table: Int32Array;
  #ring: Uint8Array;
  #words: Int32Array;
  #mask = LAYOUT.ringSize - 1;
  #consumed = 0;
  #gather = new Uint8Array(GATHER);
  #wakeFd: number;
  #start: ReaderStart;
  #shared: SharedArrayBuffer;
  #thread: ReaderThread | undefined;
  #running = false;
  /** Closes waiting for the worker to let go of their fd. */
  #closing = 0;
  /** Where the last look for small outputs stopped (a ring position), while a backlog lasts. */
  #lookedTo: number | undefined;
  /** The JavaScript thread's own reading until the worker runs, or undefined. */
  #boot: BootReader | undefined;
  #startAfterBytes = 0;

  /** @throws {Error} when the eventfd or the worker cannot be made */
  constructor(libc: Libc, start: ReaderStart) {
    this.#libc = libc;
    this.#start = start;
    const shared = this.#shared = new SharedArrayBuffer(sharedBytes(LAYOUT));
    this.#ctl = new Int32Array(shared, 0, 16);
    this.#table = new Int32Array(shared, LAYOUT.tableAt, LAYOUT.capacity * 2);
    this.#ring = new Uint8Array(shared, LAYOUT.ringAt, LAYOUT.ringSize);
    this.#words = new Int32Array(shared, LAYOUT.ringAt, LAYOUT.ringSize / 4);
    this.#wakeFd = libc.eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (this.#wakeFd < 0) throw new Error(`Cannot create an eventfd: errno ${libc.errno()}`);
    if (start.boot === undefined) {
      this.#thread = start.start(shared, this.#wakeFd);
      this.#thread?.unref();
    } else {
      this.#boot = new BootReader(libc, this.#wakeFd, start.boot.poll);
      this.#startAfterBytes = start.boot.startAfterBytes;
    }
  }

  /** Starts watching a master fd. `onEnd` is called once at end of output. */
  add(fd: number, onData: (bytes: Uint8Array, more: boolean) => void, onEnd: () => void): void {
    if (this.#entries.size >= LAYOUT.capacity) {
      throw new Error(`Cannot watch more than ${LAYOUT.capacity} terminals`);
    }
    this.#entries.set(fd, { fd, onData, onEnd, pending: [] });
    this.#changed();
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
      this.#changed(); // Poll it for POLLOUT too.
    }
  }

  /** Stops watching `fd` and closes it once the worker no longer touches it. */
  async close(fd: number): Promise<void> {
    this.#entries.delete(fd);
    if (this.#boot !== undefined) {
      // The worker has not seen this fd: only the JavaScript thread's poll may hold it.
      await this.#boot.idle();
      this.#libc.close(fd);
      return;
    }
    const version = this.#publishTable();
    this.#closing++;
    this.#kick();
    try {
      // Never drain inside the caller's turn: it may be an onData of the drain running now.
      await Promise.resolve();
      for (;;) {
        const seen = Atomics.load(this.#ctl, SLOT.SEEN_GEN);
        if (((seen - version) | 0) >= 0) break;
        const wait = Atomics.waitAsync(this.#ctl, SLOT.SEEN_GEN, seen);
        if (wait.async) await wait.value;
      }
      // What the worker read from this fd before it let go goes nowhere; nothing of a later
      // master with the same number can be in the ring before the number is reused.
      this.#drain(Infinity);
      this.#libc.close(fd);
    } finally {
      this.#closing--;
      Atomics.notify(this.#ctl, SLOT.WRITTEN); // The loop may be waiting with nothing left to do.
    }
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

  /** Tells whoever polls the masters that their set or their pending writes changed. */
  #changed(): void {
    if (this.#boot === undefined) this.#publishTable();
    else this.#boot.wake();
  }

  /** Rewrites the fd table for the worker and wakes it; returns the table's new version. */
  #publishTable(): number {
    const ctl = this.#ctl;
    Atomics.add(ctl, SLOT.GEN, 1); // Odd: being rewritten.
    let i = 0;
    for (const entry of this.#entries.values()) {
      this.#table[2 * i] = entry.fd;
      this.#table[2 * i + 1] = entry.pending.length > 0 ? 1 : 0;
      i++;
    }
    Atomics.store(ctl, SLOT.COUNT, i);
    const version = Atomics.add(ctl, SLOT.GEN, 1) + 1;
    this.#ringBell();
    this.#libc.write(this.#wakeFd, WAKE, 8);
    return version;
  }

  #ringBell(): void {
    Atomics.add(this.#ctl, SLOT.BELL, 1);
    Atomics.notify(this.#ctl, SLOT.BELL);
  }

  #kick(): void {
    if (this.#running) return;
    this.#running = true;
    this.#thread?.ref();
    this.#loop().catch((error) => {
      console.error("termbridge: PTY read loop failed:", error);
    }).finally(() => {
      this.#running = false;
      this.#thread?.unref();
    });
  }

  async #loop(): Promise<void> {
    const ctl = this.#ctl;
    while (this.#entries.size > 0 || this.#closing > 0) {
      if (this.#boot !== undefined) {
        if (Atomics.load(ctl, SLOT.READY) === 0) {
          if (this.#thread === undefined && this.#boot.bytesRead >= this.#startAfterBytes) {
            this.#thread = this.#start.start(this.#shared, this.#wakeFd); // Ref'd: the loop runs.
          }
          await this.#boot.round(this.#entries, (entry) => this.#flush(entry));
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        // The worker runs: it takes the masters over from here (everything read so far was
        // handed on, and no poll of this thread holds them).
        this.#boot = undefined;
        this.#publishTable();
      }
      const written = Atomics.load(ctl, SLOT.WRITTEN);
      if (written === this.#consumed) {
        const wait = Atomics.waitAsync(ctl, SLOT.WRITTEN, written);
        if (wait.async) await wait.value;
        continue;
      }
      this.#drain(TURN);
      // Let the event loop look at its other I/O (stdin, sockets) before the next turn.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /**
   * Takes records out of the ring, up to `limit` bytes of data, and hands
   * them on: consecutive data of one terminal joined into one chunk, the
   * ring's room given back before the chunk is parsed, so that the worker
   * reads on meanwhile.
   */
  #drain(limit: number): void {
    const ctl = this.#ctl;
    const words = this.#words;
    const size = LAYOUT.ringSize;
    let taken = 0;
    while (taken < limit) {
      const written = Atomics.load(ctl, SLOT.WRITTEN);
      let consumed = this.#consumed;
      if (consumed === written) return;
      const fd = words[(consumed & this.#mask) >> 2];
      let length = words[((consumed & this.#mask) >> 2) + 1];
      if (fd === RECORD.WRAP) {
        this.#release((consumed + size - (consumed & this.#mask)) | 0);
        continue;
      }
      if (fd === RECORD.HANDED) {
        this.#release((consumed + 8 + ((length + 7) & ~7)) | 0);
        continue;
      }
      if (length < 0) {
        this.#release((consumed + 8) | 0);
        this.#control(fd, length);
        continue;
      }
      // With a backlog, the chunk ends where the last look for small outputs stopped; past
      // there, or before a large record (its parse pays for the look), look again first.
      let end = written;
      if (((written - consumed) | 0) <= BACKLOG) this.#lookedTo = undefined;
      else {
        if (
          this.#lookedTo === undefined || ((this.#lookedTo - consumed) | 0) <= 0 || length > SMALL
        ) {
          const look = this.#handSmallAhead(consumed, written, fd);
          this.#lookedTo = look.stop;
          if (look.handed) continue; // Handlers ran: look at the ring afresh.
        }
        end = this.#lookedTo;
      }
      // Data: join what follows of the same terminal (passing what was handed on already).
      let filled = 0;
      for (;;) {
        const at = consumed & this.#mask;
        this.#gather.set(this.#ring.subarray(at + 8, at + 8 + length), filled);
        filled += length;
        consumed = (consumed + 8 + ((length + 7) & ~7)) | 0;
        let next = -1;
        while (consumed !== end) {
          next = consumed & this.#mask;
          if (words[next >> 2] === RECORD.WRAP) {
            consumed = (consumed + size - next) | 0;
          } else if (words[next >> 2] === RECORD.HANDED) {
            consumed = (consumed + 8 + ((words[(next >> 2) + 1] + 7) & ~7)) | 0;
          } else break;
          next = -1;
        }
        if (next < 0 || words[next >> 2] !== fd) break;
        length = words[(next >> 2) + 1];
        if (length < 0 || filled + length > GATHER) break;
      }
      this.#release(consumed);
      taken += filled;
      const entry = this.#entries.get(fd);
      if (entry !== undefined) {
        handOn(entry.onData, this.#gather.subarray(0, filled), filled >= FLOODING);
      }
    }
  }

  /**
   * Hands on, ahead of their turn, the data waiting in the ring of terminals
   * that have little of it (at most `SMALL` bytes), each terminal's joined in
   * one call, and marks those records handed. Looks at the head terminal's
   * records as far as one chunk of it goes (`GATHER` bytes) and at
   * `LOOK_AHEAD` records of others. A flood keeps its large chunks; an echo
   * behind it need not wait for them. Each terminal's output stays in order:
   * only terminals overtake each other.
   * @returns whether anything was handed on, and where the look stopped
   */
  #handSmallAhead(
    consumed: number,
    written: number,
    headFd: number,
  ): { handed: boolean; stop: number } {
    const words = this.#words;
    // Per other terminal: its data bytes, and where its records are.
    const waiting = new Map<number, { bytes: number; records: number[] }>();
    let headBytes = 0, others = 0;
    for (; consumed !== written;) {
      const at = consumed & this.#mask;
      const fd = words[at >> 2];
      if (fd === RECORD.WRAP) {
        consumed = (consumed + LAYOUT.ringSize - at) | 0;
        continue;
      }
      const length = words[(at >> 2) + 1];
      if (fd === headFd ? headBytes + length > GATHER : others === LOOK_AHEAD) break;
      consumed = (consumed + 8 + (length < 0 ? 0 : (length + 7) & ~7)) | 0;
      if (fd === headFd) {
        headBytes += Math.max(0, length);
        continue;
      }
      others++;
      if (fd === RECORD.HANDED || length < 0) continue;
      const seen = waiting.get(fd);
      if (seen === undefined) waiting.set(fd, { bytes: length, records: [at] });
      else {
        seen.bytes += length;
        seen.records.push(at);
      }
    }
    let handed = false;
    for (const [fd, { bytes, records }] of waiting) {
      if (bytes > SMALL) continue;
      let filled = 0;
      for (const at of records) {
        const length = words[(at >> 2) + 1];
        this.#gather.set(this.#ring.subarray(at + 8, at + 8 + length), filled);
        filled += length;
        words[at >> 2] = RECORD.HANDED;
      }
      handed = true;
      const entry = this.#entries.get(fd);
      if (entry !== undefined) handOn(entry.onData, this.#gather.subarray(0, filled));
    }
    return { handed, stop: consumed };
  }

  /** Gives the ring's room up to `consumed` back, waking the worker if it waits for it. */
  #release(consumed: number): void {
    this.#consumed = consumed;
    Atomics.store(this.#ctl, SLOT.CONSUMED, consumed);
    if (Atomics.load(this.#ctl, SLOT.FULL) !== 0) this.#ringBell();
  }

  #control(fd: number, code: number): void {
    const entry = this.#entries.get(fd);
    if (entry === undefined) return; // Closed meanwhile.
    if (code === RECORD.END) {
      // The worker no longer polls it; the table loses it at the next change (its close).
      this.#entries.delete(fd);
      handOn(entry.onEnd, undefined);
    } else if (code === RECORD.WRITABLE) {
      this.#flush(entry);
      if (entry.pending.length > 0) this.#changed(); // Ask again.
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
}
