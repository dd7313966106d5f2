/**
 * ACP streams over termbridge's own stdio, with error messages that say what
 * was wrong.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import { runtime } from "../runtime/mod.ts";

/** An ndjson ACP stream over termbridge's stdin and stdout. */
export function stdioStream(): acp.Stream {
  const stdout = new WritableStream<Uint8Array>({
    write: (chunk) => runtime.writeStdout(chunk),
  });
  return explainInvalidParams(acp.ndJsonStream(stdout, runtime.stdin()));
}

/** Zod's formatted error: `_errors` at each level, keyed by field. */
interface FormattedIssues {
  _errors?: string[];
  [field: string]: unknown;
}

/** Flattens a formatted validation error into `field: problem` phrases. */
export function describeIssues(issues: unknown, path: string[] = []): string[] {
  if (typeof issues !== "object" || issues === null) return [];
  const { _errors = [], ...fields } = issues as FormattedIssues;
  const here = path.length === 0 ? "params" : path.join(".");
  return [
    ...(Array.isArray(_errors) ? _errors.map((e) => `${here}: ${e}`) : []),
    ...Object.entries(fields).flatMap(([field, nested]) =>
      describeIssues(nested, [...path, field])
    ),
  ];
}

/**
 * The SDK answers a request whose params fail validation with the bare
 * message "Invalid params" and the details in `data`; this puts the details
 * in the message too, e.g. `Invalid params: command: expected string`. An
 * unknown method gets `Method not found: "bogus/method"`.
 */
export function explainInvalidParams(stream: acp.Stream): acp.Stream {
  const explain = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      const error =
        (message as { error?: { code: number; message: string; data?: unknown } }).error;
      if (error?.code === -32602 && error.message === "Invalid params") {
        const details = describeIssues(error.data);
        if (details.length > 0) error.message = `Invalid params: ${details.join("; ")}`;
      }
      // The SDK says `"Method not found": bogus/method`; the value is what belongs in quotes.
      const method = (error?.data as { method?: unknown } | undefined)?.method;
      if (error?.code === -32601 && typeof method === "string") {
        error.message = `Method not found: ${JSON.stringify(method)}`;
      }
      controller.enqueue(message);
    },
  });
  void explain.readable.pipeTo(stream.writable).catch(() => {}); // Closed with the connection.
  return { readable: stream.readable, writable: explain.writable };
}

/** A request the connection will answer with its own id (an invalid one is answered with id null). */
function isRequest(message: acp.AnyMessage): message is acp.AnyRequest {
  const { jsonrpc, method, id } = message as { jsonrpc?: unknown; method?: unknown; id?: unknown };
  return jsonrpc === "2.0" && typeof method === "string" &&
    (typeof id === "string" || typeof id === "number");
}

/**
 * Keeps a connection open after the peer's input ended until `beforeClose`
 * has run and every request already received has been answered, so that end
 * of input loses no response.
 */
export function answerBeforeClosing(
  stream: acp.Stream,
  beforeClose: () => Promise<void>,
): acp.Stream {
  // Counted per id: a careless client may reuse one while the first is pending.
  const unanswered = new Map<acp.JsonRpcId, number>();
  let settled: (() => void) | undefined;
  const checkSettled = () => {
    if (unanswered.size === 0) settled?.();
  };
  const readable = new ReadableStream<acp.AnyMessage>({
    async start(controller) {
      for await (const message of stream.readable) {
        if (isRequest(message)) unanswered.set(message.id, (unanswered.get(message.id) ?? 0) + 1);
        controller.enqueue(message);
      }
      await beforeClose();
      await new Promise<void>((resolve) => {
        settled = resolve;
        checkSettled();
      });
      controller.close();
    },
  });
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<acp.AnyMessage>({
    async write(message) {
      await writer.write(message);
      if (!("method" in message) && "id" in message) {
        const left = (unanswered.get(message.id) ?? 1) - 1;
        if (left > 0) unanswered.set(message.id, left);
        else unanswered.delete(message.id);
      }
      checkSettled();
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable, writable };
}
