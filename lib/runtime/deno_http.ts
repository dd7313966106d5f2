/**
 * The HTTP and WebSocket server on Deno: Deno.serve and Deno.upgradeWebSocket.
 * @module
 */

import { settleWithin } from "../base/timing.ts";
import type { HttpServeOptions, HttpServer, ServerWebSocket } from "./types.ts";

/** How long `close` lets responses that have ended finish sending (ms). */
const DRAIN_MS = 1000;

/** Serves `options.handler` on Deno until `close`. */
export async function serveHttp(options: HttpServeOptions): Promise<HttpServer> {
  const stopping = new AbortController();
  const sockets = new Set<WebSocket>();
  /** Responses still being sent (each settles once its last byte is out). */
  const sending = new Set<Promise<void>>();
  let listening!: (address: Deno.NetAddr) => void;
  const ready = new Promise<Deno.NetAddr>((resolve) => listening = resolve);
  // Binding fails synchronously (address in use, not this machine's): the caller gets it.
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    signal: stopping.signal,
    onListen: (address) => listening(address as Deno.NetAddr),
    onError: () => new Response("Internal error", { status: 500 }),
  }, (request, info) => {
    const sent = info.completed.catch(() => {});
    sending.add(sent);
    void sent.then(() => sending.delete(sent));
    return options.handler(request, (events) => {
      sending.delete(sent); // A WebSocket: closed by `close` itself.
      const { socket, response } = Deno.upgradeWebSocket(request);
      socket.binaryType = "arraybuffer";
      sockets.add(socket);
      const wrapped: ServerWebSocket = {
        send(data) {
          if (socket.readyState === WebSocket.OPEN) {
            socket.send(data as string | Uint8Array<ArrayBuffer>);
          }
        },
        bufferedAmount: () => socket.bufferedAmount,
        close: (code, reason) => socket.close(code, reason),
      };
      socket.onopen = () => events.open(wrapped);
      socket.onmessage = (event) =>
        events.message(
          typeof event.data === "string" ? event.data : new Uint8Array(event.data as ArrayBuffer),
        );
      socket.onerror = () => {}; // "close" follows.
      socket.onclose = () => {
        sockets.delete(socket);
        events.close();
      };
      return response;
    });
  });
  const address = await ready;
  return {
    port: address.port,
    async close() {
      for (const socket of sockets) socket.close(1001, "server stopping");
      // A response whose body has ended (a live asciicast closed by its owner) gets to send
      // its last bytes, so its reader sees the end instead of a cut; then the rest is cut.
      await settleWithin(Promise.all(sending), DRAIN_MS);
      stopping.abort();
      await server.finished;
    },
  };
}
