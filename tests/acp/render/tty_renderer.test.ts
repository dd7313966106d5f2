import { describe, it } from "../../harness.ts";
import assert from "node:assert/strict";
import { TtyRenderer } from "../../../lib/acp/render/tty_renderer.ts";
import { TerminalService } from "../../../lib/service/terminal_service.ts";
import { Emulator } from "../../../lib/terminal/emulator.ts";
import { collect, note, say, think, waitUntil } from "./helpers.ts";

const COLUMNS = 60;

/** What a terminal shows after receiving `text`: every line, scrollback included. */
function screen(text: string): string[] {
  const emulator = new Emulator({ cols: COLUMNS, rows: 30, scrollback: 1000 });
  try {
    emulator.write(text);
    return emulator.lines("all");
  } finally {
    emulator.dispose();
  }
}

function steady(lines: string[]): string[] {
  return lines.map((line) => line.replace(/\d+\.\d+s/g, "N.Ns"));
}

describe("tty renderer", () => {
  it("tty renderer: thoughts are dimmed and statuses coloured with ANSI SGR", async () => {
    const target = collect(COLUMNS);
    const renderer = new TtyRenderer(target);
    renderer.update(think("hmm"));
    renderer.update(say("Hello"));
    renderer.update(
      note({ sessionUpdate: "tool_call", toolCallId: "c", title: "Edit", status: "completed" }),
    );
    await renderer.close();
    assert.ok(target.text.includes("\x1b[2m\x1b[3mhmm\x1b[23m\x1b[22m"), "dim italic thought");
    assert.ok(target.text.includes("\x1b[32m●\x1b[39m"), "green bullet");
    assert.deepEqual(screen(target.text), ["hmm", "Hello", "● Edit completed"]);
  });

  it("tty renderer: a _meta terminal is live while it runs, text streams above it, and it stays as a card at exit", async () => {
    const target = collect(COLUMNS);
    const renderer = new TtyRenderer(target, { redrawMs: 5 });
    try {
      const update = (fields: Record<string, unknown>) =>
        renderer.update(note({ sessionUpdate: "tool_call_update", toolCallId: "c", ...fields }));
      renderer.update(note({
        sessionUpdate: "tool_call",
        toolCallId: "c",
        title: "Run",
        kind: "execute",
        status: "in_progress",
        _meta: { terminal_info: { terminal_id: "m" } },
      }));
      update({ _meta: { terminal_output_delta: { terminal_id: "m", data: "l1\nl2\n" } } });
      await waitUntil(
        () => screen(target.text).includes("  │ l2"),
        "the live region",
        () => target.text,
      );
      renderer.update(say("partial"));
      await waitUntil(
        () => screen(target.text).includes("partial"),
        "the held line",
        () => target.text,
      );
      renderer.update(say(" done\n"));
      update({ _meta: { terminal_output_delta: { terminal_id: "m", data: "l3" } } });
      update({ _meta: { terminal_exit: { terminal_id: "m", exit_code: 0 } } });
    } finally {
      await renderer.close();
    }
    assert.deepEqual(steady(screen(target.text)), [
      "● Run (execute) running",
      "partial done",
      "  ┌ [Run]",
      "  │ l1",
      "  │ l2",
      "  │ l3",
      "  └ [Run] exit 0 in N.Ns",
    ]);
    assert.ok(target.text.includes("\x1b[J"), "the live area was erased in place");
  });

  it("tty renderer: a line too long to hold back scrolls up whole, once", async () => {
    const target = collect(COLUMNS);
    const renderer = new TtyRenderer(target, { redrawMs: 5 });
    try {
      const meta = (data: Record<string, unknown>) =>
        renderer.update(note({ sessionUpdate: "tool_call_update", toolCallId: "c", _meta: data }));
      meta({ terminal_output: { terminal_id: "m", data: "busy\n" } });
      for (let i = 0; i < 20; i++) renderer.update(say("x".repeat(1000)));
      renderer.update(say("END\n"));
      meta({ terminal_exit: { terminal_id: "m", exit_code: 0 } });
    } finally {
      await renderer.close();
    }
    const lines = screen(target.text);
    const xs = lines.filter((line) => /^x+$/.test(line)).join("");
    assert.equal(xs.length, 20_000, "every x shown once, no live row left behind");
    assert.deepEqual(steady(lines.slice(-4)), [
      "END",
      "  ┌ [Tool call]",
      "  │ busy",
      "  └ [Tool call] exit 0 in N.Ns",
    ]);
  });

  it("tty renderer: suspend takes the live regions off the screen for a prompt, resume puts them back", async () => {
    const target = collect(COLUMNS);
    const renderer = new TtyRenderer(target, { redrawMs: 5 });
    try {
      renderer.update(note({
        sessionUpdate: "tool_call",
        toolCallId: "c",
        title: "Run",
        _meta: { terminal_output: { terminal_id: "m", data: "working\n" } },
      }));
      await waitUntil(
        () => screen(target.text).includes("  │ working"),
        "the region",
        () => target.text,
      );
      renderer.update(say("Shall I?"));
      const resume = renderer.suspend();
      assert.deepEqual(screen(target.text), ["● Run pending", "Shall I?"]);
      target.write("Allow? [y/n] y\r\n"); // What a prompt would write.
      resume();
      assert.deepEqual(screen(target.text), [
        "● Run pending",
        "Shall I?",
        "Allow? [y/n] y",
        "  ┌ [Run]",
        "  │ working",
      ]);
    } finally {
      await renderer.close();
    }
  });

  it("tty renderer: a real terminal shows its last screen lines live, then a card with them", async () => {
    const service = new TerminalService({ cwd: "/tmp", killGraceMs: 2000 });
    const target = collect(COLUMNS);
    const renderer = new TtyRenderer(target, { redrawMs: 5 });
    const stop = service.onEvent((event) => renderer.terminal(event));
    try {
      const id = await service.create({
        sessionId: "s",
        command: "printf 'one\\ntwo\\n'; sleep 30",
      });
      renderer.update(note({
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "Sleep",
        kind: "execute",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: id }],
      }));
      await waitUntil(
        () => screen(target.text).includes("  │ two"),
        "the live region",
        () => target.text,
      );
      assert.ok(screen(target.text).some((line) => line.startsWith("  ┌ [Sleep] $ printf")));
      await service.kill("s", id);
      await service.releaseAll();
      assert.deepEqual(steady(screen(target.text)), [
        "● Sleep (execute) running",
        "  ┌ [Sleep] $ printf 'one\\ntwo\\n'; sleep 30",
        "  │ one",
        "  │ two",
        "  └ [Sleep] killed by SIGTERM after N.Ns",
      ], "a card, and the live region is gone");
    } finally {
      stop();
      await service.releaseAll();
      await renderer.close();
    }
  });

  it("tty renderer: close while a terminal runs says so and leaves no timer", async () => {
    const service = new TerminalService({ cwd: "/tmp", killGraceMs: 2000 });
    const target = collect(COLUMNS);
    const renderer = new TtyRenderer(target);
    const stop = service.onEvent((event) => renderer.terminal(event));
    try {
      const started = performance.now();
      const id = await service.create({ sessionId: "s", command: "yes flood" });
      renderer.update(note({
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "Flood",
        content: [{ type: "terminal", terminalId: id }],
      }));
      await service.terminal("s", id).waitForText("flood");
      renderer.update(say("still talking"));
      await renderer.close();
      const lines = screen(target.text);
      const header = lines.indexOf("  ┌ [Flood] $ yes flood");
      assert.ok(header > lines.indexOf("still talking"), lines.join("\n"));
      assert.ok(lines.indexOf("still talking") > lines.indexOf("● Flood pending"));
      assert.equal(lines.at(-1), "  └ [Flood] still running");
      assert.match(lines[header + 1], /^ {2}│ … \d+ earlier lines$/);
      assert.ok(
        lines.slice(header + 2, -1).every((line) => /^ {2}│ (flood|f|fl|flo|floo)?$/.test(line)),
      );
      // A flood marks the region dirty; it is redrawn on the timer, not per chunk.
      const redraws = target.text.split("\x1b[J").length - 1;
      assert.ok(redraws < (performance.now() - started) / 50 + 10, `${redraws} redraws`);
    } finally {
      stop();
      await service.releaseAll(); // Events after close are ignored.
      await renderer.close();
    }
  });
});
