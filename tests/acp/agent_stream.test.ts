import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { checkUpdate, separateNoise } from "../../lib/acp/agent_stream.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Feeds `chunks` through separateNoise; returns what passed and the noise lines. */
async function separate(chunks: string[]): Promise<{ passed: string; noise: string[] }> {
  const noise: string[] = [];
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  let passed = "";
  for await (const bytes of separateNoise(input, (line) => noise.push(line))) {
    passed += decoder.decode(bytes, { stream: true });
  }
  return { passed, noise };
}

describe("agent stream", () => {
  const cases: { name: string; chunks: string[]; passed: string; noise: string[] }[] = [
    {
      name: "JSON lines pass (leading blanks dropped), other lines are noise",
      chunks: ['Starting agent v1\n{"a":1}\n  {"b":2}\n'],
      passed: '{"a":1}\n{"b":2}\n',
      noise: ["Starting agent v1"],
    },
    {
      name: "lines split across chunks, CRLF and blank lines",
      chunks: ['{"a"', ":1}\nUse --a", "cp\r\n\n   \n[1]", "\n"],
      passed: '{"a":1}\n[1]\n',
      noise: ["Use --acp"],
    },
    {
      name: "a last line without a newline",
      chunks: ['{"a":1}'],
      passed: '{"a":1}\n',
      noise: [],
    },
    {
      name: "a last noise line without a newline",
      chunks: ["bye"],
      passed: "",
      noise: ["bye"],
    },
  ];
  for (const { name, chunks, passed, noise } of cases) {
    it(`agent stream: separateNoise: ${name}`, async () => {
      assert.deepEqual(await separate(chunks), { passed, noise });
    });
  }

  it("agent stream: separateNoise keeps at most 500 bytes of a long noise line", async () => {
    const { noise } = await separate(["x".repeat(10_000) + "\n"]);
    assert.equal(noise[0].length, 500);
  });

  const updates: { name: string; params: unknown; verdict: unknown }[] = [
    {
      name: "a message chunk is valid",
      params: {
        sessionId: "s",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
      },
      verdict: "valid",
    },
    {
      name: "usage_update with used: null (claude-agent-acp 0.23.1) says what is wrong",
      params: { sessionId: "s", update: { sessionUpdate: "usage_update", used: null, size: 9 } },
      verdict: { problem: "used: expected number, received null" },
    },
    {
      name: "a kind newer than the schema is unknown, not invalid",
      params: { sessionId: "s", update: { sessionUpdate: "from_the_future" } },
      verdict: "unknown kind",
    },
    {
      name: "no sessionId",
      params: {
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" } },
      },
      verdict: { problem: "sessionId: expected string, received undefined" },
    },
  ];
  for (const { name, params, verdict } of updates) {
    it(`agent stream: checkUpdate: ${name}`, () => {
      assert.deepEqual(checkUpdate(params), verdict);
    });
  }
});
