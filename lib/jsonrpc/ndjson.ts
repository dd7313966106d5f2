/**
 * Newline-delimited JSON-RPC 2.0 over a pair of byte streams, for every
 * termbridge loop (serve, the ACP agent's pipes, mcp). Bad input never ends
 * the loop: a line that is not JSON gets -32700, a JSON value that is not a
 * message object (null, a number, a string, a batch array, a request whose id
 * is null, an object with neither a method nor a result or an error) gets
 * -32600 (with its id when it has one), a line above the size ceiling gets -32600, and the
 * next line is read. Ids keep their digits ({@link parseMessage}). A reply
 * that cannot be serialized is answered with an error naming the request.
 * @module
 */

import { ErrorCode } from "./codes.ts";
import { parseMessage, rawDepth, rawId, stringifyMessage } from "./exact_ids.ts";
import { DEFAULT_MAX_LINE_BYTES, type Line, LineSplitter } from "./lines.ts";

/** A JSON-RPC message object as read (validated further by the connection). */
export type Message = Record<string, unknown>;

export { DEFAULT_MAX_LINE_BYTES } from "./lines.ts";

/**
 * The deepest nesting of arrays and objects a message may have (the message
 * object itself is level 1). Deeper messages are answered with -32600 naming
 * the request's id, before anything handles them: a parser, a validator or a
 * serializer recursing through them would overflow its stack.
 */
export const MAX_DEPTH = 128;

/** A stream of messages: what the ACP SDK's connections take. */
export interface MessageStream {
  readable: ReadableStream<Message>;
  writable: WritableStream<Message>;
}

/** Options of {@link ndJsonMessages}. */
export interface NdJsonOptions {
  /** Longest line read; a longer one is skipped and answered with -32600. */
  maxLineBytes?: number;
  /** Called with a diagnostic (for stderr) when a message is rejected. */
  onReject?: (problem: string) => void;
  /**
   * Awaited before each line is read (flow control): a host holds the next
   * request back while the answers to earlier ones are unsent. False ends
   * the input there (the peer is gone: what it sent is not worth answering).
   */
  ready?: () => Promise<boolean>;
}

/** An error response with id null (the request's id could not be read) or the given id. */
export function errorResponse(id: unknown, code: number, message: string): Message {
  return { jsonrpc: "2.0", id: id ?? null, error: { code, message } };
}

/** What is wrong with a parsed JSON value as a message, or undefined when it is an object to pass on. */
export function rejectValue(value: unknown): { id: unknown; message: string } | undefined {
  if (Array.isArray(value)) {
    return {
      id: null,
      message:
        "Invalid request: JSON-RPC batches (arrays) are not supported: send one message a line",
    };
  }
  if (typeof value !== "object" || value === null) {
    return {
      id: null,
      message: `Invalid request: expected a JSON-RPC 2.0 message object, got ${
        value === null ? "null" : typeof value
      }`,
    };
  }
  const object = value as Message;
  if (!("method" in object) && !("result" in object) && !("error" in object)) {
    const id = typeof object.id === "string" || typeof object.id === "number" ? object.id : null;
    return {
      id,
      message:
        "Invalid request: the message has neither a method (a request or notification) nor a result or an error (a response)",
    };
  }
  if ("method" in object && "id" in object && object.id === null) {
    return {
      id: null,
      message:
        "Invalid request: the id is null (JSON-RPC 2.0 discourages it and the answer could not be told apart): use a string or a number, or omit the id for a notification",
    };
  }
  return undefined;
}

/** What one line of input is: a message to pass on, or an error reply to send instead. */
export type LineVerdict =
  | { message: Message }
  | { reject: { id: unknown; code: number; message: string } };

/**
 * Reads one line of input: a blank line is nothing (undefined), a line above
 * `maxBytes` or one that is not JSON or not a message object is an error
 * reply to send (-32600, -32700), anything else a message to pass on.
 */
export function readLine(line: Line, maxBytes: number): LineVerdict | undefined {
  if (line.kind === "too-long") {
    return {
      reject: {
        id: null,
        code: ErrorCode.invalidRequest,
        message:
          `Invalid request: a line of ${line.bytes} bytes is longer than the ${maxBytes} allowed`,
      },
    };
  }
  const text = line.text.trim();
  if (text === "") return undefined;
  let value: unknown;
  try {
    value = parseMessage(text);
  } catch (error) {
    // The parser's stack overflowed: the id is read from the text, so the answer names it.
    if (error instanceof RangeError || rawDepth(text, MAX_DEPTH) > MAX_DEPTH) {
      return { reject: tooDeep(rawDepth(text, MAX_DEPTH) > MAX_DEPTH ? rawId(text) : null) };
    }
    return {
      reject: {
        id: null,
        code: ErrorCode.parseError,
        message: `Parse error: ${(error as Error).message}`,
      },
    };
  }
  if (deeperThan(value, MAX_DEPTH)) {
    const object = value as Message;
    return { reject: tooDeep("method" in object ? object.id : null) };
  }
  const problem = rejectValue(value);
  if (problem !== undefined) {
    return { reject: { id: problem.id, code: ErrorCode.invalidRequest, message: problem.message } };
  }
  return { message: value as Message };
}

/** The answer to a message nested deeper than {@link MAX_DEPTH}. */
function tooDeep(id: unknown): { id: unknown; code: number; message: string } {
  return {
    id: id ?? null,
    code: ErrorCode.invalidRequest,
    message: `Invalid request: the message nests arrays and objects deeper than ${MAX_DEPTH} ` +
      `levels, the most termbridge reads: send flatter params`,
  };
}

/** Whether a parsed value nests arrays and objects deeper than `limit` (without recursion). */
function deeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Turns one serialized reply into a line, or, when it cannot be serialized
 * (larger than a string can hold), into an error reply for the same id.
 */
export function serializeOrExplain(message: Message): string {
  try {
    return stringifyMessage(message) + "\n";
  } catch (error) {
    const isReply = "id" in message && ("result" in message || "error" in message);
    if (!isReply) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const why = error instanceof RangeError
      ? `it is too large to send (${reason}); ask for less (line/limit, a smaller scope)`
      : `it cannot be serialized (${reason})`;
    return stringifyMessage(errorResponse(
      message.id,
      error instanceof RangeError ? ErrorCode.tooLarge : ErrorCode.internalError,
      `Cannot send the answer to request ${stringifyMessage(message.id)}: ${why}`,
    )) + "\n";
  }
}

/**
 * A message stream over `input` and `write`: `write(line)` must keep the
 * order of its calls (termbridge's stdout does; see {@link orderedWriter}).
 */
export function ndJsonMessages(
  input: ReadableStream<Uint8Array>,
  write: (line: string) => Promise<void>,
  options: NdJsonOptions = {},
): MessageStream {
  const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  const reject = (id: unknown, code: number, message: string) => {
    options.onReject?.(message);
    return write(stringifyMessage(errorResponse(id, code, message)) + "\n");
  };
  let ended = false;
  const receive = async (line: Line, controller: ReadableStreamDefaultController<Message>) => {
    if (ended || (options.ready !== undefined && !await options.ready())) {
      ended = true;
      return;
    }
    const verdict = readLine(line, splitter.maxBytes);
    if (verdict === undefined) return;
    if ("message" in verdict) controller.enqueue(verdict.message);
    else await reject(verdict.reject.id, verdict.reject.code, verdict.reject.message);
  };
  const readable = new ReadableStream<Message>({
    async start(controller) {
      try {
        for await (const chunk of input) {
          for (const line of splitter.push(chunk)) await receive(line, controller);
          if (ended) break;
        }
        const last = ended ? undefined : splitter.flush();
        if (last !== undefined) await receive(last, controller);
        controller.close();
      } catch (error) {
        controller.error(error);
      }
    },
  });
  const writable = new WritableStream<Message>({
    write: (message) => write(serializeOrExplain(message)),
  });
  return { readable, writable };
}

/** Turns a byte sink into an ordered line writer (each write waits for the one before). */
export function orderedWriter(sink: WritableStream<Uint8Array>): (line: string) => Promise<void> {
  const writer = sink.getWriter();
  const encoder = new TextEncoder();
  let last = Promise.resolve();
  return (line) => {
    const next = last.then(() => writer.write(encoder.encode(line)));
    last = next.catch(() => {}); // The failure is reported to this write's caller.
    return next;
  };
}
