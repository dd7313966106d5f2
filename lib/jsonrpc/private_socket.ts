/**
 * A Unix socket only this user can connect to, for a program termbridge
 * starts (the agent's hook, its MCP relay) to call back: in a new 0700
 * directory under `$XDG_RUNTIME_DIR` (else the temporary directory), or in
 * a private directory the caller gives (one the agent's sandbox shows), and
 * itself 0600.
 * @module
 */

import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime, type ServedConnection } from "../runtime/mod.ts";

/** A listening private socket. */
export interface PrivateSocket {
  /** The socket's path, for the program that connects. */
  readonly path: string;
  /** Stops listening, ends every open connection, removes the socket (and the directory it made). */
  close(): void;
}

/** Where the socket goes, and how its connections are served. */
export interface PrivateSocketOptions {
  /** The socket's file name (`hook.sock`). */
  name: string;
  /** A private directory to put it in; without it one is made, named `prefix` and a random suffix. */
  dir?: string;
  /** The made directory's name before its random suffix (`termbridge-hook-`). */
  prefix: string;
  /** Whether a connection stays writable after its peer ends its side. */
  allowHalfOpen?: boolean;
}

/**
 * Listens on a private socket; `serve` gets each connection (its errors are
 * swallowed: "close" follows, and the connection is forgotten).
 */
export async function listenPrivate(
  options: PrivateSocketOptions,
  serve: (socket: Socket) => void,
): Promise<PrivateSocket> {
  const { dir, path } = privatePath(options);
  const sockets = new Set<Socket>();
  const server = createServer({ allowHalfOpen: options.allowHalfOpen ?? false }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    serve(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
      rmSync(options.dir === undefined ? dir : path, { recursive: true, force: true });
    },
  };
}

/**
 * As {@linkcode listenPrivate}, with the runtime's own socket server
 * (lib/runtime `listenUnix`): connections are half-open and start paused.
 */
export async function listenPrivateConnections(
  options: Omit<PrivateSocketOptions, "allowHalfOpen">,
  serve: (connection: ServedConnection) => void,
): Promise<PrivateSocket> {
  const { dir, path } = privatePath(options);
  const connections = new Set<ServedConnection>();
  const listener = await runtime.listenUnix(path, (connection) => {
    connections.add(connection);
    connection.on("close", () => connections.delete(connection));
    serve(connection);
  });
  chmodSync(path, 0o600);
  return {
    path,
    close: () => {
      listener.close();
      for (const connection of connections) connection.destroy();
      rmSync(options.dir === undefined ? dir : path, { recursive: true, force: true });
    },
  };
}

/** The socket's directory (made when not given: 0700) and path. */
function privatePath(options: PrivateSocketOptions): { dir: string; path: string } {
  const dir = options.dir ??
    mkdtempSync(join(runtime.env().XDG_RUNTIME_DIR || tmpdir(), options.prefix)); // 0700
  return { dir, path: join(dir, options.name) };
}
