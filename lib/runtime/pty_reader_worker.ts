/**
 * The reading side of `pty_reader.ts`: the source of a worker that polls the
 * PTY masters and reads them into a ring in a SharedArrayBuffer, while the
 * JavaScript thread parses what was read before. Shared by the runtimes; each
 * passes the few lines that bind poll(2), read(2) and errno through its FFI.
 *
 * The worker is JavaScript in a string (nothing to transpile, and a compiled
 * binary's functions cannot be relied on to give their source back).
 * @module
 */

/** Int32 slots at the start of the shared buffer. */
export const SLOT = {
  /** Bytes the worker wrote into the ring, as a wrapping 32-bit counter. */
  WRITTEN: 0,
  /** Bytes the JavaScript thread took out of the ring, the same way. */
  CONSUMED: 1,
  /** Version of the fd table: odd while the JavaScript thread rewrites it. */
  GEN: 2,
  /** The table version the worker reads from now on (it no longer touches fds left out). */
  SEEN_GEN: 3,
  /** Entries in the fd table. */
  COUNT: 4,
  /** 1 while the worker waits for room in the ring. */
  FULL: 5,
  /** 1 tells the worker to end. */
  STOP: 6,
  /** Rung (incremented and notified) to wake the worker from Atomics.wait. */
  BELL: 7,
  /** 1 once the worker runs (until then the JavaScript thread may read itself: pty_boot.ts). */
  READY: 8,
} as const;

/** Record headers in the ring: [fd, length]; these lengths mean something else. */
export const RECORD = {
  /** The fd's output ended (EIO: every slave closed, or end of file). */
  END: -1,
  /** The fd can take the input queued for it. */
  WRITABLE: -2,
  /** An fd of -1: the rest of the ring is unused, the next record is at its start. */
  WRAP: -1,
  /**
   * An fd of -2: data the JavaScript thread already handed on ahead of its
   * turn (it rewrites the header; the worker never writes it).
   */
  HANDED: -2,
} as const;

/** Where things are in the shared buffer; the ring size is a power of two. */
export interface ReaderLayout {
  tableAt: number;
  /** fds the table holds: [fd, wants POLLOUT] pairs of Int32. */
  capacity: number;
  ringAt: number;
  ringSize: number;
  /** Largest record of data (the worker gathers the kernel's ~4 KiB reads into it). */
  chunk: number;
  /** Bytes read from one fd per poll round before the others get a turn. */
  budget: number;
}

/** The layout termbridge uses: 1 MiB of ring, 64 KiB records, 256 KiB per fd and round. */
export const LAYOUT: ReaderLayout = {
  tableAt: 64,
  capacity: 65536,
  ringAt: 64 + 65536 * 8,
  ringSize: 1024 * 1024,
  chunk: 64 * 1024,
  budget: 256 * 1024,
};

/** Bytes of the shared buffer for `layout`. */
export function sharedBytes(layout: ReaderLayout): number {
  return layout.ringAt + layout.ringSize;
}

/**
 * The worker's source: `binding` must define `sysPoll(pollfds, count)` (an
 * infinite poll), `sysRead(fd, buffer, offset, length)` (bytes read into
 * `buffer` at `offset`, or minus errno; without allocating, as it runs for
 * every read of a flood) and `onStart(handler)` (calls `handler(message)`
 * with the first message, which is `{ shared, wakeFd }`).
 */
export function readerWorkerSource(binding: string, layout: ReaderLayout = LAYOUT): string {
  return `${binding}
const S = ${JSON.stringify(SLOT)};
const L = ${JSON.stringify(layout)};
const EAGAIN = 11, EINTR = 4, POLLIN = 1, POLLOUT = 4, POLLERR = 8, POLLHUP = 16, POLLNVAL = 32;
onStart(({ shared, wakeFd }) => {
  const ctl = new Int32Array(shared, 0, 16);
  Atomics.store(ctl, S.READY, 1);
  const table = new Int32Array(shared, L.tableAt, L.capacity * 2);
  const ring = new Uint8Array(shared, L.ringAt, L.ringSize);
  const words = new Int32Array(shared, L.ringAt, L.ringSize / 4);
  const mask = L.ringSize - 1;
  const wakeBuffer = new Uint8Array(8);
  const ended = new Set();
  let fds = []; // [{ fd, wantsOut }] of the table, ended ones left out (rebuilt when one ends)
  let gen = -1;
  let written = Atomics.load(ctl, S.WRITTEN);
  let pollfds = new Uint8Array(8);
  let view = new DataView(pollfds.buffer);

  const free = () => L.ringSize - ((written - Atomics.load(ctl, S.CONSUMED)) | 0);
  const publish = () => {
    Atomics.store(ctl, S.WRITTEN, written);
    Atomics.notify(ctl, S.WRITTEN);
  };
  /** Sleeps until the JavaScript thread rings (room made, table changed, stop). */
  const sleep = (stillSo) => {
    const bell = Atomics.load(ctl, S.BELL);
    if (stillSo()) Atomics.wait(ctl, S.BELL, bell);
  };
  /** Contiguous room at the write position for a record of \`need\` bytes, wrapping when the tail is short. */
  const room = (need) => {
    for (;;) {
      const at = written & mask;
      const tail = L.ringSize - at;
      const available = free();
      if (tail >= need) return available >= need ? Math.min(tail, available) : 0;
      if (available < tail) return 0;
      words[at >> 2] = ${RECORD.WRAP};
      written = (written + tail) | 0;
    }
  };
  /** Writes a record without data, waiting for room. */
  const post = (fd, code) => {
    while (room(8) === 0) {
      Atomics.store(ctl, S.FULL, 1);
      sleep(() => room(8) === 0 && Atomics.load(ctl, S.STOP) === 0);
      Atomics.store(ctl, S.FULL, 0);
      if (Atomics.load(ctl, S.STOP) !== 0) return;
    }
    const at = written & mask;
    words[at >> 2] = fd;
    words[(at >> 2) + 1] = code;
    written = (written + 8) | 0;
    publish();
  };
  /** Reads \`fd\` into the ring until it has nothing more or its budget is spent. */
  const readFd = (entry) => {
    let left = L.budget;
    while (left > 0) {
      const contiguous = room(8 + 4096);
      if (contiguous === 0) return;
      const at = written & mask;
      const max = Math.min(L.chunk, contiguous - 8);
      let filled = 0;
      let end = false;
      while (filled < max) {
        const n = sysRead(entry.fd, ring, at + 8 + filled, max - filled);
        if (n > 0) filled += n;
        else if (n === -EINTR) continue;
        else {
          end = n !== -EAGAIN;
          break;
        }
      }
      if (filled > 0) {
        words[at >> 2] = entry.fd;
        words[(at >> 2) + 1] = filled;
        written = (written + 8 + ((filled + 7) & ~7)) | 0;
        publish();
        left -= filled;
      }
      if (end) {
        ended.add(entry.fd);
        post(entry.fd, ${RECORD.END});
        return;
      }
      if (filled < max) return; // EAGAIN: nothing more for now.
    }
  };
  /** Takes the fd table over (a consistent copy: retried while it is rewritten). */
  const readTable = () => {
    for (;;) {
      const version = Atomics.load(ctl, S.GEN);
      if ((version & 1) === 0) {
        const count = Atomics.load(ctl, S.COUNT);
        const next = [];
        const present = new Set();
        for (let i = 0; i < count; i++) {
          const fd = table[2 * i];
          present.add(fd);
          if (!ended.has(fd)) next.push({ fd, wantsOut: table[2 * i + 1] !== 0 });
        }
        if (Atomics.load(ctl, S.GEN) === version) {
          for (const fd of ended) if (!present.has(fd)) ended.delete(fd);
          fds = next;
          gen = version;
          Atomics.store(ctl, S.SEEN_GEN, version);
          Atomics.notify(ctl, S.SEEN_GEN);
          return;
        }
      }
      sleep(() => Atomics.load(ctl, S.GEN) === version);
    }
  };

  while (Atomics.load(ctl, S.STOP) === 0) {
    if (Atomics.load(ctl, S.GEN) !== gen) readTable();
    if (fds.some((entry) => ended.has(entry.fd))) fds = fds.filter((entry) => !ended.has(entry.fd));
    const live = fds;
    if (live.length === 0) {
      sleep(() => Atomics.load(ctl, S.GEN) === gen && Atomics.load(ctl, S.STOP) === 0);
      continue;
    }
    if (room(8 + 4096) === 0) {
      // The ring is full: wait until the JavaScript thread takes some (or anything else changes).
      Atomics.store(ctl, S.FULL, 1);
      sleep(() => room(8 + 4096) === 0 && Atomics.load(ctl, S.GEN) === gen &&
        Atomics.load(ctl, S.STOP) === 0);
      Atomics.store(ctl, S.FULL, 0);
      continue;
    }
    const count = live.length + 1;
    if (pollfds.length < 8 * count) {
      pollfds = new Uint8Array(16 * count);
      view = new DataView(pollfds.buffer);
    }
    view.setInt32(0, wakeFd, true);
    view.setInt16(4, POLLIN, true);
    view.setInt16(6, 0, true);
    for (let i = 0; i < live.length; i++) {
      const entry = live[i];
      const at = 8 * (i + 1);
      view.setInt32(at, entry.fd, true);
      view.setInt16(at + 4, POLLIN | (entry.wantsOut ? POLLOUT : 0), true);
      view.setInt16(at + 6, 0, true);
    }
    sysPoll(pollfds, count);
    if (view.getInt16(6, true) & POLLIN) sysRead(wakeFd, wakeBuffer, 0, 8);
    for (let i = 0; i < live.length; i++) {
      const entry = live[i];
      const revents = view.getInt16(8 * (i + 1) + 6, true);
      if (revents & POLLOUT) {
        entry.wantsOut = false; // Until the JavaScript thread asks again.
        post(entry.fd, ${RECORD.WRITABLE});
      }
      if (revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) readFd(entry);
    }
  }
});
`;
}
