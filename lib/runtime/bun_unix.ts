/**
 * Unix socket connections with Bun's own client (`Bun.connect`), which a
 * short-lived command loads in a fraction of the time `node:net` takes.
 * @module
 */

import type { UnixConnection, UnixEvents } from "./types.ts";

/** Connects to `path`; see `Runtime.connectUnix`. */
export async function connectUnix(path: string, events: UnixEvents): Promise<UnixConnection> {
  const encoder = new TextEncoder();
  let queued = new Uint8Array(0);
  let ending = false;
  let ended = false;
  const finish = (error?: Error) => {
    if (ended) return;
    ended = true;
    events.close(error);
  };
  // Bun writes what the kernel takes now; the rest waits for "drain".
  const flush = (socket: Bun.Socket<undefined>) => {
    while (queued.length > 0) {
      const written = socket.write(queued);
      if (written <= 0) return;
      queued = queued.subarray(written);
    }
    if (ending) socket.end();
  };
  const socket = await Bun.connect({
    unix: path,
    socket: {
      data: (_socket, chunk) => events.data(new Uint8Array(chunk)),
      drain: (socket) => flush(socket),
      close: () => finish(),
      end: () => finish(),
      error: (_socket, error) => finish(error),
    },
  });
  return {
    write(data) {
      if (ended || ending) return;
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      const joined = new Uint8Array(queued.length + bytes.length);
      joined.set(queued);
      joined.set(bytes, queued.length);
      queued = joined;
      flush(socket);
    },
    end() {
      if (ended || ending) return;
      ending = true;
      flush(socket);
    },
  };
}
