/**
 * One `attach` connection of the session server: the REPL's attach
 * (lib/repl/attach.ts) run in the server, with the client's terminal at the
 * other end of the socket. Several clients may attach to one session: each
 * gets every output byte, and their keys reach the program in the order the
 * server reads them.
 * @module
 */

import type { ServedConnection } from "../runtime/mod.ts";
import { type AttachIo, attachSession, DETACH_BYTE } from "../repl/attach.ts";
import type { SessionManager } from "../sessions/manager.ts";
import { latin1ToBytes, lineSplitter } from "./wire.ts";
import { refuse, writeJsonLine } from "./socket_streams.ts";

/** The attach hello's fields. */
export interface AttachRequest {
  name: string;
  size: { cols: number; rows: number } | null;
  readOnly: boolean;
  /** The client's label, to whom the lines its keys make the shell run are attributed. */
  client: string;
}

/**
 * Attaches the client at `socket` to a session until it detaches (Ctrl+]),
 * leaves, the program ends or `signal` aborts; answers the hello first.
 */
export async function serveAttach(
  socket: ServedConnection,
  request: AttachRequest & { rest: Uint8Array; sessions: SessionManager; signal: AbortSignal },
): Promise<void> {
  let session;
  try {
    session = request.sessions.get(request.name);
  } catch (error) {
    await refuse(socket, (error as Error).message, "unknown-session");
    return;
  }
  const status = session.terminal.exitStatus;
  if (status !== null) {
    await refuse(
      socket,
      `Cannot attach to "${session.name}": its program ${
        status.signal ? `was killed by ${status.signal}` : `exited with code ${status.exitCode}`
      }; "termbridge screen ${session.name}" shows what it left, "termbridge close ${session.name}" closes it`,
      "busy",
    );
    return;
  }
  const attached = session;
  const readOnly = request.readOnly;
  let size = request.size;
  const listeners = new Set<(chunk: Uint8Array) => void>();
  const resized = new Set<() => void>();
  const onLine = lineSplitter((line) => {
    let message: { in?: unknown; resize?: unknown };
    try {
      message = JSON.parse(line);
    } catch {
      return; // Not ours to guess at: a client bug, not worth ending the attach for.
    }
    if (typeof message.in === "string") {
      let bytes = latin1ToBytes(message.in);
      // A watcher's keys go nowhere, except the one that detaches.
      if (readOnly) {
        bytes = bytes.includes(DETACH_BYTE) ? Uint8Array.of(DETACH_BYTE) : bytes.subarray(0, 0);
      }
      if (bytes.length > 0) {
        if (!readOnly) attached.noteClient(request.client);
        listeners.forEach((listener) => listener(bytes));
      }
    } else if (Array.isArray(message.resize) && !readOnly) {
      const [cols, rows] = message.resize as number[];
      if (Number.isInteger(cols) && Number.isInteger(rows)) size = { cols, rows };
      resized.forEach((handler) => handler());
    }
  });
  const left = new AbortController();
  const leave = () => left.abort();
  request.signal.addEventListener("abort", leave, { once: true });
  socket.on("close", leave);
  const io: AttachIo = {
    input: {
      on: (_event, listener) => listeners.add(listener),
      off: (_event, listener) => listeners.delete(listener),
      resume: () => {},
      pause: () => {},
    },
    write: (data) => {
      socket.write(data);
      return socket.flushed();
    },
    setRawMode: () => {}, // The client's own terminal is raw already.
    consoleSize: () => readOnly ? null : size,
    onResize(handler) {
      resized.add(handler);
      return () => resized.delete(handler);
    },
  };
  await writeJsonLine(socket, { ok: true });
  if (request.rest.length > 0) onLine(request.rest);
  socket.on("data", onLine);
  socket.resume();
  let why: string;
  try {
    why = await attachSession(session, io, left.signal, { readOnly });
  } catch (error) {
    why = (error as Error).message;
  } finally {
    request.signal.removeEventListener("abort", leave);
  }
  socket.write(`${why}\r\n`);
  socket.end();
}
