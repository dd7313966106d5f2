/**
 * An MCP transport over termbridge's own stdin and stdout (through the runtime
 * shim): one JSON-RPC message per line, malformed lines answered with a parse
 * error, and end of input handled without losing a response.
 * @module
 */

// The SDK maps "./*" to "*.d.ts", which misses "x.d.ts" for "x.js": name them for Deno.
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/shared/transport.d.ts"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/types.d.ts"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { runtime } from "../runtime/mod.ts";

type Id = string | number;

/** Where the transport reads and writes its lines. */
export interface TransportIo {
  input(): ReadableStream<Uint8Array>;
  write(text: string): Promise<void>;
}

/** Stdio transport that, at end of input, runs `beforeClose` and answers every pending request before closing. */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #beforeClose: () => Promise<void>;
  readonly #io: TransportIo;
  readonly #unanswered = new Set<Id>();
  #settled: (() => void) | undefined;
  #closed = false;

  /** `io` defaults to termbridge's stdin and stdout (the session server passes a socket's). */
  constructor(beforeClose: () => Promise<void>, io?: TransportIo) {
    this.#beforeClose = beforeClose;
    this.#io = io ?? { input: () => runtime.stdin(), write: (text) => runtime.writeStdout(text) };
  }

  start(): Promise<void> {
    void this.#read().catch((error) => this.onerror?.(error as Error));
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#io.write(JSON.stringify(message) + "\n");
    if ("result" in message || "error" in message) this.#answered(message.id as Id | undefined);
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.onclose?.();
    }
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of this.#io.input()) {
      if (this.#closed) return;
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) await this.#receive(line);
    }
    await this.#receive(pending + decoder.decode());
    await this.#beforeClose();
    if (this.#unanswered.size > 0) await new Promise<void>((resolve) => this.#settled = resolve);
    await this.close();
  }

  async #receive(line: string): Promise<void> {
    const text = line.replace(/\r$/, "").trim();
    if (text === "") return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      await this.#reject(null, -32700, `Parse error: ${(error as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = (json as { id?: Id }).id ?? null;
      await this.#reject(
        id,
        -32600,
        "Invalid request: not a JSON-RPC 2.0 message (jsonrpc, method, id)",
      );
      return;
    }
    const message = parsed.data;
    if ("method" in message && "id" in message) this.#unanswered.add(message.id as Id);
    if ("method" in message && message.method === "notifications/cancelled") {
      // A cancelled request gets no answer (the SDK drops it): stop waiting for one.
      this.#answered((message.params as { requestId?: Id } | undefined)?.requestId);
    }
    this.onmessage?.(message);
  }

  #answered(id: Id | undefined): void {
    if (id === undefined || !this.#unanswered.delete(id)) return;
    if (this.#unanswered.size === 0) this.#settled?.();
  }

  async #reject(id: Id | null, code: number, message: string): Promise<void> {
    await this.#io.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n");
  }
}
