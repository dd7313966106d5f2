/**
 * ACP streams over termbridge's own stdio, with error messages that say what
 * was wrong.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import { ErrorCode, INPUT_ENDED } from "../jsonrpc/codes.ts";
import { endableInput } from "../jsonrpc/endable_input.ts";
import { countingWriter, holdWhileUnsent } from "../jsonrpc/flow_control.ts";
import { ndJsonMessages, orderedWriter } from "../jsonrpc/ndjson.ts";
import { runtime } from "../runtime/mod.ts";

/** The protocol's cancellation notification (ACP; LSP names it the same). */
const CANCEL_REQUEST = "$/cancel_request";

/** An ACP stream over termbridge's stdio, and a way to end its input early. */
export interface StdioStream extends acp.Stream {
  /**
   * Ends the input as end of stdin does (a signal): requests already received
   * are still answered (see {@link answerBeforeClosing}).
   */
  endInput(): void;
}

/**
 * An ndjson ACP stream over termbridge's stdin and stdout (ids kept exact, bad
 * lines answered). Its input ends when stdout's reader is gone (EPIPE): the
 * answers could not be read.
 */
export function stdioStream(): StdioStream {
  const input = endableInput(runtime.stdin());
  // A client that does not read its answers stops being read (f13: 200 unread answers held 1.7 GB).
  const stdout = countingWriter(async (line) => {
    try {
      await runtime.writeStdout(line);
    } catch (error) {
      input.end();
      throw error;
    }
  });
  const messages = ndJsonMessages(input.readable, stdout.write, {
    ready: holdWhileUnsent(stdout),
  });
  return {
    ...explainInvalidParams(acceptCancelById(messages as acp.Stream)),
    endInput: input.end,
  };
}

/** An ndjson ACP stream over an agent's stdin and stdout (ids kept exact, bad lines answered). */
export function agentStream(
  stdin: WritableStream<Uint8Array>,
  stdout: ReadableStream<Uint8Array>,
): acp.Stream {
  const messages = ndJsonMessages(stdout, orderedWriter(stdin));
  return explainInvalidParams(acceptCancelById(messages as acp.Stream));
}

/**
 * `$/cancel_request` names the request in `requestId` (ACP); LSP's habit is
 * `id`: both are accepted. It is a notification; one sent with an id (as a
 * request) still cancels, and is answered `{}` with that id so that the
 * sender's request does not wait forever.
 */
function acceptCancelById(stream: acp.Stream): acp.Stream {
  const writer = stream.writable.getWriter();
  const alias = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      const { method, id, params } = message as {
        method?: unknown;
        id?: unknown;
        params?: unknown;
      };
      if (method === CANCEL_REQUEST && id !== undefined) {
        void writer.write({ jsonrpc: "2.0", id, result: {} } as acp.AnyMessage)
          .catch(() => {}); // Output closed: nobody is left to tell.
        const { id: _id, ...notification } = message as Record<string, unknown>;
        message = notification as acp.AnyMessage;
      }
      const named = params as { requestId?: unknown; id?: unknown } | undefined;
      if (
        method === CANCEL_REQUEST && typeof named === "object" &&
        named !== null && named.requestId === undefined && named.id !== undefined
      ) {
        message = { ...message, params: { ...named, requestId: named.id } } as acp.AnyMessage;
      }
      controller.enqueue(message);
    },
  });
  const writable = new WritableStream<acp.AnyMessage>({
    write: (message) => writer.write(message),
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable: stream.readable.pipeThrough(alias), writable };
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
      if (error?.code === ErrorCode.invalidParams && error.message === "Invalid params") {
        const details = describeIssues(error.data);
        if (details.length > 0) error.message = `Invalid params: ${details.join("; ")}`;
      }
      // The SDK says `"Method not found": bogus/method`; the value is what belongs in quotes.
      const method = (error?.data as { method?: unknown } | undefined)?.method;
      if (error?.code === ErrorCode.methodNotFound && typeof method === "string") {
        error.message = `Method not found: ${JSON.stringify(method)}`;
      }
      controller.enqueue(message);
    },
  });
  void explain.readable.pipeTo(stream.writable).catch(() => {}); // Closed with the connection.
  return { readable: stream.readable, writable: explain.writable };
}

/** A request the connection will answer with its own id. */
function isRequest(message: acp.AnyMessage): message is acp.AnyRequest {
  const { jsonrpc, method, id } = message as { jsonrpc?: unknown; method?: unknown; id?: unknown };
  return jsonrpc === "2.0" && typeof method === "string" &&
    (typeof id === "string" || typeof id === "number");
}

/** How long end of input leaves requests to finish on their own, then to honour their cancellation. */
export interface ClosingGrace {
  /** After `beforeClose`, before pending requests are cancelled (default 200 ms). */
  naturalMs?: number;
  /** After the cancellation, before termbridge answers what is left itself (default 600 ms). */
  cancelledMs?: number;
}

/**
 * Keeps a connection open after the peer's input ended until `beforeClose`
 * has run and every request already received has been answered, so that end
 * of input loses no response. A request still pending a moment later (a wait,
 * an exec) is cancelled and answered with -32800: end of input ends
 * everything within about a second.
 */
export function answerBeforeClosing(
  stream: acp.Stream,
  beforeClose: () => Promise<void>,
  grace: ClosingGrace = {},
): acp.Stream {
  // Counted per id: a careless client may reuse one while the first is pending.
  const unanswered = new Map<acp.JsonRpcId, number>();
  const cancelled = new Set<acp.JsonRpcId>();
  let settled: (() => void) | undefined;
  const checkSettled = () => {
    if (unanswered.size === 0) settled?.();
  };
  const allAnswered = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      settled = () => {
        clearTimeout(timer);
        resolve();
      };
      checkSettled();
    });
  const writer = stream.writable.getWriter();
  const readable = new ReadableStream<acp.AnyMessage>({
    async start(controller) {
      for await (const message of stream.readable) {
        if (isRequest(message)) unanswered.set(message.id, (unanswered.get(message.id) ?? 0) + 1);
        controller.enqueue(message);
      }
      await beforeClose();
      await allAnswered(grace.naturalMs ?? 200);
      for (const id of unanswered.keys()) {
        cancelled.add(id);
        controller.enqueue({ jsonrpc: "2.0", method: CANCEL_REQUEST, params: { requestId: id } });
      }
      await allAnswered(grace.cancelledMs ?? 600);
      for (const id of [...unanswered.keys()]) {
        unanswered.delete(id);
        await writer.write({
          jsonrpc: "2.0",
          id,
          error: { code: ErrorCode.requestCancelled, message: INPUT_ENDED },
        })
          .catch(() => {}); // Output closed: nobody is left to tell.
      }
      controller.close();
    },
  });
  const writable = new WritableStream<acp.AnyMessage>({
    async write(message) {
      const reply = message as { id?: acp.JsonRpcId; method?: unknown; error?: { code: number } };
      const isReply = reply.method === undefined && reply.id !== undefined;
      if (isReply && !unanswered.has(reply.id!) && cancelled.has(reply.id!)) return; // Answered already.
      if (isReply && cancelled.has(reply.id!) && reply.error?.code === ErrorCode.requestCancelled) {
        message = { ...message, error: { ...reply.error, message: INPUT_ENDED } } as acp.AnyMessage;
      }
      await writer.write(message);
      if (isReply) {
        const left = (unanswered.get(reply.id!) ?? 1) - 1;
        if (left > 0) unanswered.set(reply.id!, left);
        else unanswered.delete(reply.id!);
      }
      checkSettled();
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable, writable };
}
