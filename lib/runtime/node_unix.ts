/**
 * Unix socket connections with `node:net` (Deno's implementation), loaded
 * only when a connection is made.
 * @module
 */

import type { UnixConnection, UnixEvents } from "./types.ts";

/** Connects to `path`; see `Runtime.connectUnix`. */
export async function connectUnix(path: string, events: UnixEvents): Promise<UnixConnection> {
  const { connect } = await import("node:net");
  const socket = connect(path);
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve();
    });
  });
  let ended = false;
  const finish = (error?: Error) => {
    if (ended) return;
    ended = true;
    events.close(error);
  };
  socket.on("data", (chunk: Uint8Array) => events.data(new Uint8Array(chunk)));
  socket.on("close", () => finish());
  socket.on("error", (error) => finish(error));
  return {
    write(data) {
      if (!socket.destroyed && socket.writable) socket.write(data);
    },
    end() {
      socket.end();
    },
  };
}
