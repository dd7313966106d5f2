/**
 * The PTY reader's worker on Deno (see `pty_reader.ts`): poll(2) and read(2)
 * through Deno's FFI in a `node:worker_threads` Worker, which, unlike Deno's
 * web Worker, can stop holding the process open (`unref`).
 * @module
 */

import { Worker } from "node:worker_threads";
import { pollAsync } from "./deno_libc.ts";
import type { ReaderStart, ReaderThread } from "./pty_reader.ts";
import { readerWorkerSource } from "./pty_reader_worker.ts";

const BINDING = `
import { parentPort } from "node:worker_threads";
const c = Deno.dlopen("libc.so.6", {
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  __errno_location: { parameters: [], result: "pointer" },
}).symbols;
const sysPoll = (fds, count) => c.poll(fds, count, -1);
const sysRead = (fd, buffer, offset, length) => {
  const n = Number(c.read(fd, buffer.subarray(offset, offset + length), length));
  return n >= 0 ? n : -new Deno.UnsafePointerView(c.__errno_location()).getInt32();
};
const onStart = (handler) => parentPort.once("message", handler);
`;

/** Starts the reader's worker on `shared`; it runs for the life of the process. */
function startDenoReader(shared: SharedArrayBuffer, wakeFd: number): ReaderThread {
  const source = readerWorkerSource(BINDING);
  // Deno's node:worker_threads takes file: and data: URLs only.
  // (Its URL type is node:url's, which bun-types makes differ from the global one.)
  const url = new URL(`data:text/javascript,${encodeURIComponent(source)}`);
  const worker = new Worker(url as ConstructorParameters<typeof Worker>[0]);
  worker.on("error", (error) => console.error("termbridge: the PTY reader failed:", error));
  worker.postMessage({ shared, wakeFd });
  return { ref: () => worker.ref(), unref: () => worker.unref() };
}

/**
 * The reader on Deno: the worker's constructor stalls the JavaScript thread
 * for ~100 ms (60-160 ms measured, loaded machine) and its isolate costs
 * ~15 MB, so it starts only once 8 MiB were read; until then the JavaScript
 * thread reads (one poll on Deno's blocking pool per round).
 */
export const denoReader: ReaderStart = {
  start: startDenoReader,
  boot: { poll: pollAsync, startAfterBytes: 8 * 1024 * 1024 },
};
