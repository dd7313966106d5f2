/**
 * What the agent did with files: every `fs/read_text_file` and
 * `fs/write_text_file` request and how it was answered, seen on the
 * connection's stream (so refusals and errors are shown too, whoever
 * answered them).
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { FileActivity } from "./render/types.ts";

export type { FileActivity };

const encoder = new TextEncoder();

interface Pending {
  method: string;
  params: Record<string, unknown>;
}

/** A key for a JSON-RPC id that tells `1` from `"1"`. */
function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Lines in `content`: a final line without a newline counts. */
function lineCount(content: string): number {
  if (content === "") return 0;
  let lines = 0;
  for (let at = content.indexOf("\n"); at !== -1; at = content.indexOf("\n", at + 1)) lines++;
  return content.endsWith("\n") ? lines : lines + 1;
}

function describe(pending: Pending, response: Record<string, unknown>): FileActivity {
  const { params } = pending;
  const base = { sessionId: text(params.sessionId), path: text(params.path) };
  const error = (response.error as { message?: unknown } | undefined)?.message;
  const failed = "error" in response ? { error: text(error) || "failed" } : {};
  if (pending.method === "fs/write_text_file") {
    return {
      type: "file_written",
      ...base,
      bytes: encoder.encode(text(params.content)).length,
      ...failed,
    };
  }
  const line = count(params.line);
  const limit = count(params.limit);
  const content = (response.result as { content?: unknown } | undefined)?.content;
  return {
    type: "file_read",
    ...base,
    ...(line === undefined ? {} : { line }),
    ...(limit === undefined ? {} : { limit }),
    ...("error" in response ? failed : {
      lines: lineCount(text(content)),
      bytes: encoder.encode(text(content)).length,
    }),
  };
}

/**
 * Calls `onActivity` once for each `fs/read_text_file` and
 * `fs/write_text_file` request the agent sends, when its answer is written.
 *
 * @param stream The connection's stream (agent messages in, termbridge's out).
 * @param onActivity Told of each file request and its outcome.
 * @returns The same stream, observed.
 */
export function watchFileRequests(
  stream: acp.Stream,
  onActivity: (activity: FileActivity) => void,
): acp.Stream {
  const pending = new Map<string, Pending>();
  const incoming = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      const { method, id, params } = message as {
        method?: unknown;
        id?: unknown;
        params?: unknown;
      };
      if (
        (method === "fs/read_text_file" || method === "fs/write_text_file") && id !== undefined &&
        typeof params === "object" && params !== null
      ) {
        pending.set(idKey(id), { method, params: params as Record<string, unknown> });
      }
      controller.enqueue(message);
    },
  });
  const writer = stream.writable.getWriter();
  const outgoing = new WritableStream<acp.AnyMessage>({
    async write(message) {
      const response = message as Record<string, unknown>;
      const key = "method" in response ? undefined : idKey(response.id);
      const request = key === undefined ? undefined : pending.get(key);
      if (request !== undefined) {
        pending.delete(key!);
        try {
          onActivity(describe(request, response));
        } catch (error) {
          console.error("termbridge: cannot show a file request:", error); // Never fatal.
        }
      }
      await writer.write(message);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable: stream.readable.pipeThrough(incoming), writable: outgoing };
}
