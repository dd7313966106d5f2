import { describe, it } from "../../harness.ts";
import assert from "node:assert/strict";
import { JsonRenderer } from "../../../lib/acp/render/json_renderer.ts";
import { TerminalService } from "../../../lib/service/terminal_service.ts";
import { collect, note, say } from "./helpers.ts";

/** Every line of the output as an object; fails on a line that is not JSON. */
function objects(text: string): Record<string, unknown>[] {
  assert.ok(text === "" || text.endsWith("\n"), "every object ends its line");
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

describe("json renderer", () => {
  const updates = [
    say("hi"),
    note({ sessionUpdate: "something_new", x: { y: [1] } }),
    note({
      sessionUpdate: "tool_call",
      toolCallId: "c",
      title: "T",
      _meta: { terminal_output_delta: { terminal_id: "m", data: "x\n" } },
    }),
  ];
  for (const notification of updates) {
    it(`json renderer: a ${notification.update.sessionUpdate} update is written as received`, async () => {
      const target = collect();
      const renderer = new JsonRenderer(target);
      renderer.update(notification);
      await renderer.close();
      assert.deepEqual(
        objects(target.text).filter((o) => o.type === "update"),
        [{ type: "update", sessionId: "s", update: notification.update }],
      );
    });
  }

  it("json renderer: an agent's own terminal is named by its later rawInput, with its cwd and the exit its text states", async () => {
    const target = collect();
    const renderer = new JsonRenderer(target);
    renderer.update(note({
      sessionUpdate: "tool_call",
      toolCallId: "c",
      title: "Terminal",
      kind: "execute",
      rawInput: {},
      _meta: { terminal_info: { terminal_id: "c", cwd: "/w" } },
    }));
    renderer.update(note({
      sessionUpdate: "tool_call_update",
      toolCallId: "c",
      rawInput: { command: "make test" },
    }));
    renderer.update(note({
      sessionUpdate: "tool_call_update",
      toolCallId: "c",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Exit code 3\nboom" } }],
    }));
    renderer.update(note({
      sessionUpdate: "tool_call",
      toolCallId: "d",
      kind: "execute",
      rawInput: { command: ["/bin/bash", "-lc", "sleep 9"] },
      status: "in_progress",
      _meta: { terminal_info: { terminal_id: "d" } },
    }));
    await renderer.close();
    const base = { type: "agent_terminal", sessionId: "s", toolCallId: "c", terminalId: "c" };
    assert.deepEqual(objects(target.text).filter((o) => o.type === "agent_terminal"), [
      { ...base, event: "started", command: "make test", cwd: "/w" },
      {
        ...base,
        event: "exited",
        command: "make test",
        cwd: "/w",
        exitCode: 3,
        signal: null,
        status: "failed",
      },
      { ...base, toolCallId: "d", terminalId: "d", event: "started", command: "sleep 9" },
      {
        ...base,
        toolCallId: "d",
        terminalId: "d",
        event: "exited",
        command: "sleep 9",
        exitCode: null,
        signal: null,
        status: "unreported",
      },
    ]);
  });

  it("json renderer: permission decisions carry the chosen optionId", async () => {
    const target = collect();
    const renderer = new JsonRenderer(target);
    const option = { optionId: "yes", name: "Allow", kind: "allow_once" } as const;
    renderer.permission({
      sessionId: "s",
      toolCall: { toolCallId: "c" },
      options: [option],
      outcome: "selected",
      option,
      source: "--yes",
    });
    renderer.permission({
      sessionId: "s",
      toolCall: { toolCallId: "c" },
      options: [option],
      outcome: "cancelled",
      source: "cancelled",
    });
    await renderer.close();
    const [chosen, cancelled] = objects(target.text);
    assert.equal(chosen.type, "permission");
    assert.equal(chosen.optionId, "yes");
    assert.equal(chosen.source, "--yes");
    assert.equal(cancelled.optionId, null);
    assert.equal(cancelled.outcome, "cancelled");
  });

  it("json renderer: conversation events keep their type and fields", async () => {
    const target = collect();
    const renderer = new JsonRenderer(target);
    renderer.event({ type: "agent", name: "a", protocolVersion: 1 });
    renderer.event({ type: "stop", sessionId: "s", stopReason: "end_turn" });
    await renderer.close();
    assert.deepEqual(objects(target.text), [
      { type: "agent", name: "a", protocolVersion: 1 },
      { type: "stop", sessionId: "s", stopReason: "end_turn" },
    ]);
  });

  it("json renderer: a terminal's life is created, output, exited, released with its final output", async () => {
    const service = new TerminalService({ cwd: "/tmp" });
    const target = collect();
    const renderer = new JsonRenderer(target);
    const stop = service.onEvent((event) => renderer.terminal(event));
    try {
      const id = await service.create({ sessionId: "s", command: "printf 'a\\nb\\n'" });
      await service.waitForExit("s", id);
      await service.releaseAll();
      const lines = objects(target.text);
      const kinds = lines.map((o) => o.type === "terminal" ? o.event : o.type);
      assert.equal(kinds[0], "created");
      assert.deepEqual(kinds.slice(-2), ["exited", "released"]);
      assert.ok(kinds.slice(1, -2).every((kind) => kind === "terminal_output"));
      const data = lines.filter((o) => o.type === "terminal_output").map((o) => o.data).join("");
      assert.equal(data, "a\nb\n");
      const [created, exited, released] = [lines[0], lines.at(-2)!, lines.at(-1)!];
      assert.equal(created.terminalId, id);
      assert.equal(created.sessionId, "s");
      assert.equal(created.command, "printf 'a\\nb\\n'");
      assert.equal("terminal" in created, false, "no Terminal object");
      assert.equal(exited.exitCode, 0);
      assert.equal(exited.signal, null);
      assert.equal(typeof exited.durationMs, "number");
      assert.equal(released.output, "a\nb\n");
      assert.equal(released.truncated, false);
    } finally {
      stop();
      await service.releaseAll();
      await renderer.close();
    }
  });

  it("json renderer: output past the byte limit is sent or counted as dropped, never both", async () => {
    const service = new TerminalService({ cwd: "/tmp" });
    const target = collect();
    const renderer = new JsonRenderer(target);
    const stop = service.onEvent((event) => renderer.terminal(event));
    try {
      const id = await service.create({
        sessionId: "s",
        command: "seq 1 20000",
        outputByteLimit: 100,
      });
      await service.waitForExit("s", id);
      await service.releaseAll();
      const chunks = objects(target.text).filter((o) => o.type === "terminal_output");
      const sent = chunks.map((o) => o.data as string).join("");
      const dropped = chunks.reduce((sum, o) => sum + ((o.dropped as number | undefined) ?? 0), 0);
      const expected = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join("");
      assert.equal(sent.length + dropped, expected.length);
      assert.ok(sent.endsWith("19999\n20000\n"));
      const released = objects(target.text).at(-1)!;
      assert.equal(released.truncated, true);
    } finally {
      stop();
      await service.releaseAll();
      await renderer.close();
    }
  });
});
