/// <reference types="bun-types" />
/**
 * The PTY reader's worker on Bun (see `pty_reader.ts`): poll(2) and read(2)
 * through bun:ffi in a Worker of its own.
 * @module
 */

import type { ReaderThread } from "./pty_reader.ts";
import { readerWorkerSource } from "./pty_reader_worker.ts";

const BINDING = `
import { dlopen, FFIType, ptr, read as peek } from "bun:ffi";
const c = dlopen("libc.so.6", {
  poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
  read: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
  __errno_location: { args: [], returns: FFIType.ptr },
}).symbols;
const sysPoll = (fds, count) => c.poll(fds, count, -1);
const sysRead = (fd, buffer, offset, length) => {
  const n = Number(c.read(fd, ptr(buffer) + offset, length));
  return n >= 0 ? n : -peek.i32(c.__errno_location(), 0);
};
const onStart = (handler) => {
  self.onmessage = ({ data }) => {
    self.onmessage = null;
    handler(data);
  };
};
`;

/** Bun's Worker, which can stop holding the process open (Deno's types do not know it). */
type UnrefWorker = Worker & { ref(): void; unref(): void };

/** Starts the reader's worker on `shared`; it runs for the life of the process. */
export function startBunReader(shared: SharedArrayBuffer, wakeFd: number): ReaderThread {
  const url = URL.createObjectURL(
    new Blob([readerWorkerSource(BINDING)], { type: "text/javascript" }),
  );
  const worker = new Worker(url) as UnrefWorker;
  worker.addEventListener("error", (event) => {
    console.error("termbridge: the PTY reader failed:", event.message);
  });
  worker.postMessage({ shared, wakeFd });
  // The worker loads its code after the constructor returned: revoke only once it answered
  // (it never does) or the process ends; one URL for the process's life costs nothing.
  return { ref: () => worker.ref(), unref: () => worker.unref() };
}
