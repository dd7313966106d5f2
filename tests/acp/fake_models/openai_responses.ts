/**
 * A fake OpenAI Responses API for `@zed-industries/codex-acp`: every
 * `POST .../responses` of the agent's main loop (a request that offers the
 * scripted tools) gets the next scripted function call, then the final
 * text, as the streamed events the real API sends. Other requests get a
 * short text, `GET .../models` an empty list.
 * @module
 */

import type { ModelScript } from "./anthropic.ts";
import type { FakeAnswer, RecordedRequest } from "./http_fake.ts";

/** The call ids the fake gives its function calls start with this. */
export const CALL_ID_PREFIX = "call_tb_";

interface Item {
  type?: string;
  call_id?: string;
  output?: unknown;
}

function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.map((tool: { name?: string; type?: string }) => tool.name ?? tool.type ?? "");
}

function isResponses(request: RecordedRequest): boolean {
  return request.method === "POST" && /\/responses(\?|$)/.test(request.url);
}

/** Whether a request is one of the agent's main-loop turns (it offers the scripted tools). */
export function isResponsesTurn(request: RecordedRequest, script: ModelScript): boolean {
  if (!isResponses(request)) return false;
  const names = toolNames((request.body ?? {}) as Record<string, unknown>);
  const wanted = script.calls.length > 0 ? script.calls.map((c) => c.namespace ?? c.name) : [];
  return names.length > 0 && wanted.every((name) => names.includes(name));
}

function inputItems(body: Record<string, unknown>): Item[] {
  return Array.isArray(body.input) ? body.input as Item[] : [];
}

function completed(id: string, output: unknown[]): FakeAnswer {
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 20,
  };
  const events: { event: string; data: unknown }[] = [
    {
      event: "response.created",
      data: { type: "response.created", response: { id, status: "in_progress", output: [] } },
    },
  ];
  output.forEach((item, index) => {
    events.push({
      event: "response.output_item.added",
      data: { type: "response.output_item.added", output_index: index, item },
    });
    const text = (item as { type: string; content?: { text: string }[] }).type === "message"
      ? (item as { content: { text: string }[] }).content[0].text
      : undefined;
    if (text !== undefined) {
      events.push({
        event: "response.output_text.delta",
        data: {
          type: "response.output_text.delta",
          output_index: index,
          content_index: 0,
          delta: text,
        },
      });
    }
    events.push({
      event: "response.output_item.done",
      data: { type: "response.output_item.done", output_index: index, item },
    });
  });
  events.push({
    event: "response.completed",
    data: { type: "response.completed", response: { id, status: "completed", output, usage } },
  });
  return { kind: "sse", events };
}

function textItem(text: string): unknown {
  return {
    type: "message",
    id: `msg_tb_${crypto.randomUUID().slice(0, 8)}`,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

/** A handler answering like the OpenAI Responses API, replaying `script`. */
export function responsesHandler(script: ModelScript): (request: RecordedRequest) => FakeAnswer {
  return (request) => {
    if (request.method === "GET" && request.url.includes("/models")) {
      return { kind: "json", body: { object: "list", data: [], models: [] } };
    }
    if (!isResponses(request)) return { kind: "json", body: {} };
    const id = `resp_tb_${crypto.randomUUID().slice(0, 8)}`;
    if (!isResponsesTurn(request, script)) return completed(id, [textItem("ok")]);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const made =
      inputItems(body).filter((item) =>
        item.type === "function_call" && item.call_id?.startsWith(CALL_ID_PREFIX)
      ).length;
    const next = script.calls[made];
    if (!next) return completed(id, [textItem(script.finalText ?? "Done.")]);
    return completed(id, [{
      type: "function_call",
      id: `fc_tb_${made + 1}`,
      call_id: `${CALL_ID_PREFIX}${made + 1}`,
      name: next.name,
      ...(next.namespace === undefined ? {} : { namespace: next.namespace }),
      arguments: JSON.stringify(next.input),
      status: "completed",
    }]);
  };
}

/** The outputs the agent sent back for the fake's calls, in order, as text. */
export function responsesToolResults(requests: RecordedRequest[], script: ModelScript): string[] {
  const last = requests.filter((r) => isResponsesTurn(r, script)).at(-1);
  return inputItems((last?.body ?? {}) as Record<string, unknown>)
    .filter((item) =>
      item.type === "function_call_output" && item.call_id?.startsWith(CALL_ID_PREFIX)
    )
    .map((item) => typeof item.output === "string" ? item.output : JSON.stringify(item.output));
}

/** The tool names offered in the agent's last main-loop turn. */
export function responsesTools(requests: RecordedRequest[]): string[] {
  const last = requests.filter(isResponses).at(-1);
  return toolNames((last?.body ?? {}) as Record<string, unknown>);
}
