/**
 * Is a server listening on a socket path? Tells a live server from a stale
 * socket left by one that crashed or was killed.
 * @module
 */

import { connect } from "node:net";

/** What is at a socket path: a server, a socket nobody listens on, or nothing. */
export type SocketState = "alive" | "stale" | "absent";

/** Connects to `path` once to find out whether a server listens there. */
export function probeSocket(path: string): Promise<SocketState> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve("alive");
    });
    socket.once("error", (error: Error & { code?: string }) => {
      socket.destroy();
      resolve(error.code === "ENOENT" ? "absent" : "stale");
    });
  });
}
