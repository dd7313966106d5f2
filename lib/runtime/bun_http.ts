/// <reference types="bun-types" />
/**
 * The HTTP and WebSocket server on Bun: Bun.serve with its `websocket` handlers.
 * @module
 */

import { settleWithin } from "../base/timing.ts";
import type { HttpServeOptions, HttpServer, ServerWebSocket, WebSocketEvents } from "./types.ts";

/** What Bun keeps with each WebSocket: the events its handler asked for. */
interface SocketData {
  events: WebSocketEvents;
}

/** The handler's answer once `upgrade` succeeded: Bun then wants `undefined`. */
const UPGRADED = new Response(null, { status: 101 });

/** How long `close` lets responses that have ended finish sending (ms). */
const DRAIN_MS = 1000;

/** Serves `options.handler` on Bun until `close`. */
export function serveHttp(options: HttpServeOptions): Promise<HttpServer> {
  const sockets = new Set<Bun.ServerWebSocket<SocketData>>();
  // Binding fails synchronously (address in use): the caller gets a rejected promise.
  let server: ReturnType<typeof listen>;
  try {
    server = listen(options, sockets);
  } catch (error) {
    return Promise.reject(error);
  }
  return Promise.resolve({
    port: server.port!,
    async close() {
      for (const ws of sockets) ws.close(1001, "server stopping");
      // A response whose body has ended (a live asciicast closed by its owner) gets to send
      // its last bytes, so its reader sees the end instead of a cut; then the rest is cut.
      await settleWithin(server.stop(false), DRAIN_MS);
      await server.stop(true);
    },
  });
}

function listen(options: HttpServeOptions, sockets: Set<Bun.ServerWebSocket<SocketData>>) {
  return Bun.serve<SocketData, never>({
    hostname: options.hostname,
    port: options.port,
    async fetch(request, bun) {
      const response = await options.handler(request, (events) => {
        if (bun.upgrade(request, { data: { events } })) return UPGRADED;
        return new Response("Cannot open a WebSocket: expected an upgrade request", {
          status: 400,
        });
      });
      return response === UPGRADED ? undefined : response;
    },
    error: () => new Response("Internal error", { status: 500 }),
    websocket: {
      open(ws) {
        sockets.add(ws);
        const wrapped: ServerWebSocket = {
          send: (data) => void ws.send(data),
          bufferedAmount: () => ws.getBufferedAmount(),
          close: (code, reason) => ws.close(code, reason),
        };
        ws.data.events.open(wrapped);
      },
      message(ws, message) {
        ws.data.events.message(typeof message === "string" ? message : new Uint8Array(message));
      },
      close(ws) {
        sockets.delete(ws);
        ws.data.events.close();
      },
    },
  });
}
