/**
 * The HTTP and WebSocket server on Deno: Deno.serve and Deno.upgradeWebSocket.
 * @module
 */

import type { HttpServeOptions, HttpServer, ServerWebSocket } from "./types.ts";

/** Serves `options.handler` on Deno until `close`. */
export async function serveHttp(options: HttpServeOptions): Promise<HttpServer> {
  const stopping = new AbortController();
  const sockets = new Set<WebSocket>();
  let listening!: (address: Deno.NetAddr) => void;
  const ready = new Promise<Deno.NetAddr>((resolve) => listening = resolve);
  // Binding fails synchronously (address in use, not this machine's): the caller gets it.
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    signal: stopping.signal,
    onListen: (address) => listening(address as Deno.NetAddr),
    onError: () => new Response("Internal error", { status: 500 }),
  }, (request) =>
    options.handler(request, (events) => {
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
    }));
  const address = await ready;
  return {
    port: address.port,
    async close() {
      for (const socket of sockets) socket.close(1001, "server stopping");
      stopping.abort();
      await server.finished;
    },
  };
}
