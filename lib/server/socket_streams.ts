/**
 * A `node:net` socket as the pieces the hosts need: its first line (the
 * hello), then Web streams of bytes, or of JSON-RPC messages.
 * @module
 */

import type { Socket } from "node:net";
import { type MessageStream, ndJsonMessages } from "../jsonrpc/ndjson.ts";

/** The hello line and the bytes that came after it in the same reads. */
export interface Opened {
  line: string;
  rest: Uint8Array;
}

/** Longest hello accepted, in bytes. */
const MAX_HELLO = 64 * 1024;

/**
 * Reads the socket up to its first newline.
 * @throws {Error} when the socket ends or sends too much before one
 */
export function readFirstLine(socket: Socket): Promise<Opened> {
  return new Promise((resolve, reject) => {
    let buffered = new Uint8Array(0);
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
      reject(error);
    };
    const cleanup = () => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", fail);
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("error", fail);
  });
}

/** The socket's bytes after the hello, `rest` first. */
export function socketReadable(socket: Socket, rest: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (rest.length > 0) controller.enqueue(rest);
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        controller.close();
      };
      socket.on("data", (chunk: Uint8Array) => {
        if (!done) controller.enqueue(new Uint8Array(chunk));
      });
      socket.on("end", finish);
      socket.on("close", finish);
      socket.on("error", finish); // A peer gone mid-write: the connection just ends.
      socket.resume();
    },
  });
}

/**
 * JSON-RPC messages, one a line, over the socket: termbridge's own framing
 * (ids kept exact, a bad or over-long line answered and skipped, the loop
 * going on), as serve and mcp have it.
 */
export function socketMessages(
  socket: Socket,
  rest: Uint8Array,
  options: { maxLineBytes?: number } = {},
): MessageStream {
  return ndJsonMessages(socketReadable(socket, rest), (line) => writeLine(socket, line), options);
}

/** Writes one line; the order of calls is the order on the socket. Dropped once the peer left. */
function writeLine(socket: Socket, line: string): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed || !socket.writable) return resolve();
    socket.write(line, () => resolve());
  });
}

/** Writes one JSON line. */
export function writeJsonLine(socket: Socket, value: unknown): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    socket.write(JSON.stringify(value) + "\n", () => resolve());
  });
}
