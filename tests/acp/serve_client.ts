/**
 * A raw JSON-RPC client of `termbridge serve` for the tests: writes request
 * lines to its stdin and matches the response lines on its stdout by id.
 * @module
 */

import { termbridgeArgv } from "../helpers.ts";
import { Child } from "./child.ts";

/** A JSON-RPC response line. */
export interface RpcResponse {
  jsonrpc: "2.0";
  id: number | string | null;
  // deno-lint-ignore no-explicit-any
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}

function parse(line: string): RpcResponse | undefined {
  try {
    return JSON.parse(line);
  } catch {
    return undefined; // Not JSON: the "stdout carries only protocol" test catches it.
  }
}

/** One `termbridge serve` process; always `dispose()` it. */
export class ServeClient {
  readonly child: Child;
  #nextId = 1;

  private constructor(child: Child) {
    this.child = child;
  }

  /** Starts `termbridge serve` with extra `args`. */
  static start(args: string[] = [], options: { cwd?: string } = {}): ServeClient {
    return new ServeClient(Child.start([...termbridgeArgv(), "serve", ...args], options));
  }

  /** Writes one raw line (a newline is added). */
  send(line: string): Promise<void> {
    return this.child.write(`${line}\n`);
  }

  /** Sends a request and returns its id and a promise of its response, without waiting. */
  async begin(
    method: string,
    params?: unknown,
  ): Promise<{ id: number; response: Promise<RpcResponse> }> {
    const id = this.#nextId++;
    const response = this.responseTo(id);
    await this.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return { id, response };
  }

  /** Sends a request and waits for its response (a result or an error). */
  async request(method: string, params?: unknown): Promise<RpcResponse> {
    return await (await this.begin(method, params)).response;
  }

  /**
   * Sends a request and returns its result.
   * @throws {Error} with the JSON-RPC error when it answered one
   */
  // deno-lint-ignore no-explicit-any
  async call(method: string, params?: unknown): Promise<any> {
    const response = await this.request(method, params);
    if (response.error !== undefined) {
      throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    }
    return response.result;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void> {
    return this.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  /** Waits for the response with this id. */
  async responseTo(id: number | null, timeoutMs = 30_000): Promise<RpcResponse> {
    const line = await this.child.waitForLine(
      (line) => {
        const message = parse(line);
        return message !== undefined && "id" in message && message.id === id &&
          ("result" in message || "error" in message);
      },
      `the response to request ${id}`,
      timeoutMs,
    );
    return parse(line)!;
  }

  /** Closes stdin and waits for the end (kills after a grace). */
  dispose(): Promise<void> {
    return this.child.dispose();
  }
}
