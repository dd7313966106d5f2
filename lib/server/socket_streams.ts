/**
 * A served socket connection (the runtime's, lib/runtime) as the pieces the
 * hosts need: its first line (the hello), then Web streams of bytes, or of
 * JSON-RPC messages.
 * @module
 */

import { holdWhileUnsent, MAX_UNSENT_BYTES } from "../jsonrpc/flow_control.ts";
import { type MessageStream, ndJsonMessages } from "../jsonrpc/ndjson.ts";
import type { ServedConnection } from "../runtime/mod.ts";

/** The hello line and the bytes that came after it in the same reads. */
export interface Opened {
  line: string;
  rest: Uint8Array;
}

/** Longest hello accepted, in bytes. */
const MAX_HELLO = 64 * 1024;

/** How long a new connection has to send its hello line before it is closed. */
export const HELLO_TIMEOUT_MS = 5_000;

/**
 * A connection that leaves this many bytes of answers unread and has another
 * one to send is closed: answers already being made when reading stopped
 * (waits that ended together) cannot grow the server's memory without bound.
 * One answer larger than this is still sent when nothing else is queued.
 */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * Reads the socket up to its first newline, within {@linkcode HELLO_TIMEOUT_MS};
 * leaves it paused after.
 * @throws {Error} when the socket ends, sends too much before one or is too slow
 */
export function readFirstLine(
  socket: ServedConnection,
  timeoutMs = HELLO_TIMEOUT_MS,
): Promise<Opened> {
  return new Promise((resolve, reject) => {
    let buffered = new Uint8Array(0);
    const timer = setTimeout(
      () => fail(new Error(`no hello line within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onData = (chunk: Uint8Array) => {
      const joined = new Uint8Array(buffered.length + chunk.length);
      joined.set(buffered);
      joined.set(chunk, buffered.length);
      buffered = joined;
      const at = buffered.indexOf(0x0a);
      if (at === -1) {
        if (buffered.length > MAX_HELLO) fail(new Error("the hello line is too long"));
        return;
      }
      cleanup();
      socket.pause();
      resolve({
        line: new TextDecoder().decode(buffered.subarray(0, at)),
        rest: buffered.slice(at + 1),
      });
    };
    const onEnd = () => fail(new Error("the client left before saying hello"));
    const fail = (error: Error) => {
      cleanup();
      socket.pause();
      reject(error);
    };
    const cleanup = () => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("close", onEnd);
    socket.resume();
  });
}

/**
 * The socket's bytes after the hello, `rest` first. The socket is paused
 * while a chunk waits to be taken, and while more than
 * {@linkcode MAX_UNSENT_BYTES} of what was written to it is unsent: a client
 * that does not read its answers stops being read.
 */
export function socketReadable(
  socket: ServedConnection,
  rest: Uint8Array,
): ReadableStream<Uint8Array> {
  let done = false;
  let waiting: (() => void) | undefined;
  const wake = () => {
    const resume = waiting;
    waiting = undefined;
    resume?.();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (rest.length > 0) controller.enqueue(rest);
      const finish = () => {
        if (done) return;
        done = true;
        wake();
        controller.close();
      };
      socket.on("data", (chunk: Uint8Array) => {
        if (done) return;
        controller.enqueue(chunk);
        if ((controller.desiredSize ?? 0) <= 0) socket.pause();
      });
      socket.on("drain", wake);
      socket.on("end", finish);
      socket.on("close", finish); // A peer gone mid-write too: the connection just ends.
    },
    async pull() {
      await answersSent(socket, () => done, (resume) => waiting = resume);
      if (!done) socket.resume();
    },
  }, { highWaterMark: 1 });
}

/** Resolves once at most {@linkcode MAX_UNSENT_BYTES} written to `socket` are unsent (or it ended). */
async function answersSent(
  socket: ServedConnection,
  ended: () => boolean,
  onDrain: (resume: () => void) => void,
): Promise<void> {
  while (socket.unsentBytes > MAX_UNSENT_BYTES && !ended() && !socket.closed) {
    await new Promise<void>((resume) => onDrain(resume));
  }
}

/**
 * JSON-RPC messages, one a line, over the socket: termbridge's own framing
 * (ids kept exact, a bad or over-long line answered and skipped, the loop
 * going on), as serve and mcp have it.
 */
export function socketMessages(
  socket: ServedConnection,
  rest: Uint8Array,
  options: { maxLineBytes?: number } = {},
): MessageStream {
  let waiting: (() => void) | undefined;
  const wake = () => {
    const resume = waiting;
    waiting = undefined;
    resume?.();
  };
  socket.on("drain", wake);
  socket.on("close", wake);
  const ready = holdWhileUnsent({
    unsent: () => socket.unsentBytes,
    progress: () => new Promise<void>((resume) => waiting = resume),
    gone: () => socket.closed,
  });
  return ndJsonMessages(
    socketReadable(socket, rest),
    (line) => writeBounded(socket, line),
    { ...options, ready },
  );
}

/**
 * Writes `data` to the socket without waiting for it to be sent (the socket
 * keeps the order of writes); closes the connection instead when more than
 * {@linkcode MAX_QUEUED_BYTES} of earlier writes are still unsent. Nothing
 * is written once the peer left.
 */
export function writeBounded(socket: ServedConnection, data: string | Uint8Array): Promise<void> {
  if (socket.ended) return Promise.resolve();
  if (socket.unsentBytes > MAX_QUEUED_BYTES) {
    socket.destroy(); // Cannot queue more answers: the client does not read them.
    return Promise.resolve();
  }
  socket.write(data);
  return Promise.resolve();
}

/**
 * Answers a connection that cannot be served with one JSON line, then closes
 * it (both ways: a client that never ends its side does not keep it open).
 */
export async function refuse(
  socket: ServedConnection,
  error: string,
  problem?: string,
): Promise<void> {
  await writeJsonLine(
    socket,
    problem === undefined ? { ok: false, error } : { ok: false, error, problem },
  );
  socket.destroy();
}

/** Writes one JSON line; resolves once it was handed to the kernel (or the socket closed). */
export function writeJsonLine(socket: ServedConnection, value: unknown): Promise<void> {
  socket.write(JSON.stringify(value) + "\n");
  return socket.flushed();
}
