/**
 * An MCP transport over termbridge's own stdin and stdout (through the runtime
 * shim): one JSON-RPC message per line (ids kept exact), malformed lines
 * answered with an error, and end of input handled without losing a response.
 * @module
 */

// The SDK maps "./*" to "*.d.ts", which misses "x.d.ts" for "x.js": name them for Deno.
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/shared/transport.d.ts"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/types.d.ts"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, INPUT_ENDED } from "../jsonrpc/codes.ts";
import { stringifyMessage } from "../jsonrpc/exact_ids.ts";
import { type EndableInput, endableInput } from "../jsonrpc/endable_input.ts";
import { countingWriter, holdWhileUnsent } from "../jsonrpc/flow_control.ts";
import { type Line, LineSplitter } from "../jsonrpc/lines.ts";
import {
  DEFAULT_MAX_LINE_BYTES,
  errorResponse,
  type Message,
  readLine,
  serializeOrExplain,
} from "../jsonrpc/ndjson.ts";
import { runtime } from "../runtime/mod.ts";

type Id = string | number;

/** Where the transport reads and writes its lines. */
export interface TransportIo {
  input(): ReadableStream<Uint8Array>;
  write(text: string): Promise<void>;
}

/** After `beforeClose` at end of input, how long pending requests may still finish on their own. */
const NATURAL_MS = 300;

/**
 * Stdio transport that, at end of input, runs `beforeClose`, lets pending
 * requests finish for a moment, answers what is still pending with an error
 * and closes: end of input ends everything within about a second. A line
 * that is not a JSON-RPC message is answered with an error and the loop goes on.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #beforeClose: () => Promise<void>;
  readonly #io: TransportIo;
  #input: EndableInput | undefined;
  #inputEnded = false;
  readonly #output: ReturnType<typeof countingWriter>;
  readonly #ready: () => Promise<boolean>;
  readonly #unanswered = new Set<Id>();
  readonly #answeredByUs = new Set<Id>();
  #settled: (() => void) | undefined;
  #closed = false;

  /** `io` defaults to termbridge's stdin and stdout (the session server passes a socket's). */
  constructor(beforeClose: () => Promise<void>, io?: TransportIo) {
    this.#beforeClose = beforeClose;
    this.#io = io ?? { input: () => runtime.stdin(), write: (text) => runtime.writeStdout(text) };
    // A client that does not read its answers stops being read; one gone (EPIPE) ends the input.
    this.#output = countingWriter(async (text) => {
      try {
        await this.#io.write(text);
      } catch (error) {
        this.endInput();
        throw error;
      }
    });
    this.#ready = holdWhileUnsent(this.#output);
  }

  start(): Promise<void> {
    void this.#read().catch((error) => {
      this.onerror?.(error as Error);
      void this.close();
    });
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const isReply = "result" in message || "error" in message;
    const id = (message as { id?: Id }).id;
    if (isReply && id !== undefined && this.#answeredByUs.has(id)) return; // Told already.
    await this.#output.write(serializeOrExplain(explainValidation(message) as Message));
    if (isReply) this.#answered(id);
  }

  /**
   * Ends the input as end of stdin does (a signal): requests already received
   * are still answered, `beforeClose` runs, then the transport closes.
   */
  endInput(): void {
    this.#inputEnded = true;
    this.#input?.end();
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.onclose?.();
    }
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    const splitter = new LineSplitter(DEFAULT_MAX_LINE_BYTES);
    let reading = true;
    this.#input = endableInput(this.#io.input());
    if (this.#inputEnded) this.#input.end();
    for await (const chunk of this.#input.readable) {
      if (this.#closed) return;
      for (const line of splitter.push(chunk)) {
        reading = reading && await this.#ready();
        if (reading) await this.#receive(line, splitter.maxBytes);
      }
      if (!reading) break; // Stdout is gone: nobody reads the answers.
    }
    const last = reading ? splitter.flush() : undefined;
    if (last !== undefined && await this.#ready()) await this.#receive(last, splitter.maxBytes);
    await this.#beforeClose();
    await this.#allAnswered(NATURAL_MS);
    for (const id of [...this.#unanswered]) {
      this.#answeredByUs.add(id);
      // Lets the handler stop; the SDK sends nothing for a cancelled request.
      this.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: "termbridge's input ended" },
      });
      await this.#reject(id, ErrorCode.requestCancelled, INPUT_ENDED);
      this.#unanswered.delete(id);
    }
    await this.close();
  }

  #allAnswered(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#settled = () => {
        clearTimeout(timer);
        resolve();
      };
      if (this.#unanswered.size === 0) this.#settled();
    });
  }

  async #receive(line: Line, maxBytes: number): Promise<void> {
    const verdict = readLine(line, maxBytes);
    if (verdict === undefined) return;
    if ("reject" in verdict) {
      const { id, code, message } = verdict.reject;
      await this.#reject(
        typeof id === "string" || typeof id === "number" ? id : null,
        code,
        message,
      );
      return;
    }
    const json = verdict.message;
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = (json as { id?: unknown }).id;
      await this.#reject(
        typeof id === "string" || typeof id === "number" ? id : null,
        ErrorCode.invalidRequest,
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
    await this.#output.write(stringifyMessage(errorResponse(id, code, message)) + "\n");
  }
}

/**
 * The SDK answers a request whose params fail its schema (`tools/call`
 * without params) with -32603 and zod's issues as JSON in the message; that
 * is invalid params, said in words: `Invalid params: params: expected object,
 * received undefined`.
 */
export function explainValidation(message: JSONRPCMessage): JSONRPCMessage {
  const error = (message as { error?: { code: number; message: string } }).error;
  if (error?.code !== ErrorCode.internalError || !error.message.startsWith("[")) return message;
  let issues: unknown;
  try {
    issues = JSON.parse(error.message);
  } catch {
    return message; // Not zod's issues: an internal error as it was.
  }
  if (!Array.isArray(issues) || issues.length === 0) return message;
  const words: string[] = [];
  for (const issue of issues) {
    const { path, message: problem } = (issue ?? {}) as { path?: unknown; message?: unknown };
    if (!Array.isArray(path) || typeof problem !== "string") return message;
    words.push(`${path.length === 0 ? "request" : path.join(".")}: ${problem}`);
  }
  return {
    ...message,
    error: { code: ErrorCode.invalidParams, message: `Invalid params: ${words.join("; ")}` },
  } as JSONRPCMessage;
}
