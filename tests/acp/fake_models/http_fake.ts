/**
 * The HTTP side of the fake model APIs: a server on 127.0.0.1 (a free port)
 * that records every request it was sent and hands it to a handler, which
 * answers with JSON or a stream of server-sent events.
 * @module
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the fake was sent. */
export interface RecordedRequest {
  method: string;
  /** Path and query (`/v1/messages?beta=true`). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON, or undefined when it is empty or not JSON. */
  body: unknown;
}

/** How a handler answers. */
export type FakeAnswer =
  | { kind: "json"; status?: number; body: unknown }
  | { kind: "sse"; events: { event?: string; data: unknown }[] }
  | { kind: "empty"; status?: number };

/** Answers one request (the request is already recorded). */
export type FakeHandler = (request: RecordedRequest) => FakeAnswer | Promise<FakeAnswer>;

/** A running fake; `close()` it in `finally`. */
export interface HttpFake {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Every request so far, in arrival order. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of request) chunks.push(chunk as Uint8Array);
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // Not JSON: recorded without a body.
  }
}

function send(response: ServerResponse, answer: FakeAnswer): void {
  if (answer.kind === "empty") {
    response.writeHead(answer.status ?? 200).end();
  } else if (answer.kind === "json") {
    response.writeHead(answer.status ?? 200, { "content-type": "application/json" });
    response.end(JSON.stringify(answer.body));
  } else {
    response.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "close",
    });
    const text = answer.events.map(({ event, data }) =>
      `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`
    ).join("");
    response.end(text);
  }
}

/** Starts a fake on 127.0.0.1 that answers every request with `handler`. */
export async function startHttpFake(handler: FakeHandler): Promise<HttpFake> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    readBody(request).then(async (body) => {
      const recorded: RecordedRequest = {
        method: request.method ?? "GET",
        url: request.url ?? "/",
        headers: request.headers,
        body,
      };
      requests.push(recorded);
      send(response, await handler(recorded));
    }).catch((error) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: `Fake model failed: ${error}` } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
