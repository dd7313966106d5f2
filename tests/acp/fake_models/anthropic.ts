/**
 * A fake Anthropic Messages API for the Claude Code CLI inside
 * `@zed-industries/claude-agent-acp`: `HEAD /` answers 200, and every
 * `POST /v1/messages` of the agent's main loop (a request that offers the
 * scripted tools) gets the next scripted tool call, then the final text, as
 * the streamed events the real API sends. Other requests (titles, summaries)
 * get a short text.
 * @module
 */

import type { FakeAnswer, RecordedRequest } from "./http_fake.ts";

/** One scripted tool call: a tool the model is offered (`Bash`, `Write`...) and its input. */
export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  /** The namespace the tool is offered in (Codex offers an MCP server's tools as `mcp__NAME`). */
  namespace?: string;
}

/** What the fake model does: each call in its own turn, then `finalText`. */
export interface ModelScript {
  calls: ToolCall[];
  finalText?: string;
}

/** The ids the fake gives its tool calls start with this. */
export const TOOL_ID_PREFIX = "toolu_tb_";

interface Message {
  role: string;
  content: string | { type: string; id?: string; tool_use_id?: string }[];
}

function blocks(message: Message): { type: string; id?: string; tool_use_id?: string }[] {
  return typeof message.content === "string" ? [] : message.content;
}

/** How many of the fake's tool calls the conversation already holds. */
function callsMade(messages: Message[]): number {
  return messages.filter((m) => m.role === "assistant")
    .flatMap(blocks)
    .filter((b) => b.type === "tool_use" && b.id?.startsWith(TOOL_ID_PREFIX)).length;
}

function toolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  return tools.map((tool: { name?: string }) => tool.name ?? "");
}

type Block = { type: "text"; text: string } | {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
};

function messageAnswer(model: string, content: Block[], stream: boolean): FakeAnswer {
  const stopReason = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  const id = `msg_tb_${crypto.randomUUID().slice(0, 8)}`;
  const usage = {
    input_tokens: 10,
    output_tokens: 10,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  if (!stream) {
    return {
      kind: "json",
      body: {
        id,
        type: "message",
        role: "assistant",
        model,
        content,
        stop_reason: stopReason,
        stop_sequence: null,
        usage,
      },
    };
  }
  const events: { event: string; data: unknown }[] = [{
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    },
  }];
  content.forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
    events.push({
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: start },
    });
    const delta = block.type === "text"
      ? { type: "text_delta", text: block.text }
      : { type: "input_json_delta", partial_json: JSON.stringify(block.input) };
    events.push({
      event: "content_block_delta",
      data: { type: "content_block_delta", index, delta },
    });
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 10 },
    },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return { kind: "sse", events };
}

/** Whether a request is one of the agent's main-loop turns (it offers the scripted tools). */
export function isMainTurn(request: RecordedRequest, script: ModelScript): boolean {
  const body = request.body as Record<string, unknown> | undefined;
  if (!body || !request.url.startsWith("/v1/messages") || request.url.includes("count_tokens")) {
    return false;
  }
  const names = toolNames(body);
  const wanted = script.calls.length > 0 ? script.calls.map((c) => c.name) : ["Bash"];
  return wanted.every((name) => names.includes(name));
}

/** A handler answering like the Anthropic API, replaying `script`. */
export function anthropicHandler(script: ModelScript): (request: RecordedRequest) => FakeAnswer {
  return (request) => {
    if (request.method === "HEAD" || request.method === "GET") return { kind: "empty" };
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.url.includes("count_tokens")) return { kind: "json", body: { input_tokens: 10 } };
    if (!request.url.startsWith("/v1/messages")) return { kind: "json", body: {} };
    const model = String(body.model ?? "claude-fake");
    const stream = body.stream === true;
    if (!isMainTurn(request, script)) {
      return messageAnswer(model, [{ type: "text", text: "ok" }], stream);
    }
    const made = callsMade((body.messages ?? []) as Message[]);
    const next = script.calls[made];
    if (next) {
      const id = `${TOOL_ID_PREFIX}${made + 1}`;
      return messageAnswer(
        model,
        [{ type: "tool_use", id, name: next.name, input: next.input }],
        stream,
      );
    }
    return messageAnswer(model, [{ type: "text", text: script.finalText ?? "Done." }], stream);
  };
}

/** The tool results the agent sent back for the fake's calls, in order, as text. */
export function anthropicToolResults(requests: RecordedRequest[], script: ModelScript): string[] {
  const turns = requests.filter((r) => isMainTurn(r, script));
  const last = turns.at(-1)?.body as { messages?: Message[] } | undefined;
  const results: string[] = [];
  for (const message of last?.messages ?? []) {
    for (
      const block of blocks(message) as { type: string; tool_use_id?: string; content?: unknown }[]
    ) {
      if (block.type === "tool_result" && block.tool_use_id?.startsWith(TOOL_ID_PREFIX)) {
        results.push(resultText(block.content));
      }
    }
  }
  return results;
}

function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((c) => (c as { text?: string }).text ?? "").join("");
  }
  return JSON.stringify(content ?? "");
}

/** The tool names offered in the agent's main-loop turns (the last one). */
export function anthropicTools(requests: RecordedRequest[], script: ModelScript): string[] {
  const turns = requests.filter((r) => isMainTurn(r, script));
  return toolNames((turns.at(-1)?.body ?? {}) as Record<string, unknown>);
}
