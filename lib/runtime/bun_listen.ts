/**
 * A Unix socket server with Bun's own sockets (`Bun.listen`): a connection
 * costs a fraction of what node:net's socket objects and streams cost.
 * @module
 */

import { lstat } from "./bun_stat.ts";
import { ServedConnectionBase } from "./served_connection.ts";
import type { ServedConnection, UnixListener } from "./types.ts";

/** One accepted connection over a Bun socket. */
class BunConnection extends ServedConnectionBase {
  constructor(readonly socket: Bun.Socket<BunConnection | undefined>) {
    super();
    socket.pause(); // A new connection starts paused (see ServedConnection.resume).
  }

  protected transmit(): void {
    // Bun writes what the kernel takes now; the rest waits for "drain".
    while (this.queue.length > 0) {
      const first = this.queue[0];
      const written = this.socket.write(first);
      if (written <= 0) return;
      this.sent(written);
      if (written < first.length) return;
    }
  }

  protected stopReading(): void {
    this.socket.pause();
  }

  protected startReading(): void {
    this.socket.resume();
  }

  protected shutdownWrites(): void {
    this.socket.shutdown();
  }

  protected abort(): void {
    this.socket.terminate();
  }

  /** Bun's events, passed on. */
  onData(chunk: Uint8Array): void {
    this.received(new Uint8Array(chunk));
  }

  onDrain(): void {
    this.transmit();
  }

  onEnd(): void {
    this.peerEnded();
  }

  onClose(): void {
    this.gone();
  }
}

/** Whether anything is at `path` (without loading node:fs, which a short command does not need). */
function exists(path: string): boolean {
  try {
    lstat(path);
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return false;
    throw error;
  }
}

/** Listens on `path`; see `Runtime.listenUnix`. */
export function listenUnix(
  path: string,
  accept: (connection: ServedConnection) => void,
): Promise<UnixListener> {
  if (exists(path)) {
    const error = new Error(`Cannot listen on ${path}: it exists`) as Error & { code: string };
    error.code = "EADDRINUSE";
    return Promise.reject(error);
  }
  const listener = Bun.listen<BunConnection | undefined>({
    unix: path,
    allowHalfOpen: true,
    data: undefined,
    socket: {
      open(socket) {
        const connection = new BunConnection(socket);
        socket.data = connection;
        accept(connection);
      },
      data: (socket, chunk) => socket.data?.onData(chunk),
      drain: (socket) => socket.data?.onDrain(),
      end: (socket) => socket.data?.onEnd(),
      close: (socket) => socket.data?.onClose(),
      error: (socket) => socket.data?.destroy(),
    },
  });
  return Promise.resolve({ close: () => listener.stop(false) });
}
