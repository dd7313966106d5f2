import { describe, it } from "../../harness.ts";
import assert from "node:assert/strict";
import type * as acp from "@agentclientprotocol/sdk";
import { PlainRenderer } from "../../../lib/acp/render/plain_renderer.ts";
import type { PermissionDecision, Renderer } from "../../../lib/acp/render/types.ts";
import { TerminalService } from "../../../lib/service/terminal_service.ts";
import { collect, note, say, think } from "./helpers.ts";

/** Durations vary from run to run. */
function steady(text: string): string {
  return text.replace(/\d+\.\d+s/g, "N.Ns");
}

const editCall = {
  sessionUpdate: "tool_call",
  toolCallId: "c1",
  title: "Edit a.ts",
  kind: "edit",
  status: "pending",
  content: [{ type: "diff", path: "/p/a.ts", oldText: "a\nb\nc\n", newText: "a\nB\nc\n" }],
};

const allow: PermissionDecision = {
  sessionId: "s",
  toolCall: { toolCallId: "c1", title: "Edit a.ts" },
  options: [
    { optionId: "yes", name: "Allow once", kind: "allow_once" },
    { optionId: "no", name: "Reject", kind: "reject_once" },
  ],
  outcome: "selected",
  option: { optionId: "yes", name: "Allow once", kind: "allow_once" },
  source: "--yes",
};

const cases: { name: string; feed: (r: Renderer) => void; expected: string }[] = [
  {
    name: "agent text is streamed as it arrives and ended with a newline",
    feed: (r) => ["Hel", "lo\nwor", "ld"].forEach((t) => r.update(say(t))),
    expected: "Hello\nworld\n",
  },
  {
    name: "thoughts are marked on every line and give way to the message on a new line",
    feed: (r) => {
      r.update(think("plan a"));
      r.update(think("nd b\nmore"));
      r.update(say("Done."));
    },
    expected: "(thinking) plan and b\n(thinking) more\nDone.\n",
  },
  {
    name: "a tool call mid-sentence starts on a line of its own; the sentence goes on below",
    feed: (r) => {
      r.update(say("Looking"));
      r.update(
        note({ sessionUpdate: "tool_call", toolCallId: "c9", title: "Read x", kind: "read" }),
      );
      r.update(say(" and found it."));
    },
    expected: "Looking\n● Read x (read) pending\nand found it.\n",
  },
  {
    name: "a plan is a checklist, printed again only when it changes",
    feed: (r) => {
      const entries = [
        { content: "Read the code", priority: "high", status: "completed" },
        { content: "Fix the bug", priority: "high", status: "in_progress" },
        { content: "Run the tests", priority: "low", status: "pending" },
      ];
      r.update(note({ sessionUpdate: "plan", entries }));
      r.update(note({ sessionUpdate: "plan", entries }));
      r.update(
        note({
          sessionUpdate: "plan",
          entries: [{ ...entries[0] }, { ...entries[1], status: "completed" }],
        }),
      );
    },
    expected: "Plan:\n  [x] Read the code\n  [~] Fix the bug\n  [ ] Run the tests\n" +
      "Plan:\n  [x] Read the code\n  [x] Fix the bug\n",
  },
  {
    name: "a tool call shows title, kind, status and its diff",
    feed: (r) => r.update(note(editCall)),
    expected: "● Edit a.ts (edit) pending\n  ✎ /p/a.ts\n    @@ -2,1 +2,1 @@\n    - b\n    + B\n",
  },
  {
    name: "a diff of a new file has only + lines",
    feed: (r) =>
      r.update(
        note({ ...editCall, content: [{ type: "diff", path: "/p/n.ts", newText: "x\ny\n" }] }),
      ),
    expected: "● Edit a.ts (edit) pending\n  ✎ /p/n.ts (new file)\n    + x\n    + y\n",
  },
  {
    name: "tool_call_update replaces content: new items print, repeated ones do not",
    feed: (r) => {
      r.update(note(editCall));
      r.update(
        note({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "in_progress" }),
      );
      r.update(
        note({ sessionUpdate: "tool_call_update", toolCallId: "c1", content: editCall.content }),
      );
      r.update(note({
        sessionUpdate: "tool_call_update",
        toolCallId: "c1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "Edited 1 line" } }],
      }));
    },
    expected: "● Edit a.ts (edit) pending\n  ✎ /p/a.ts\n    @@ -2,1 +2,1 @@\n    - b\n    + B\n" +
      "● Edit a.ts (edit) running\n● Edit a.ts (edit) completed\n    Edited 1 line\n",
  },
  {
    name: "new content of an earlier tool call repeats its header",
    feed: (r) => {
      r.update(note({ sessionUpdate: "tool_call", toolCallId: "c1", title: "A", kind: "edit" }));
      r.update(say("meanwhile\n"));
      r.update(
        note({ sessionUpdate: "tool_call_update", toolCallId: "c1", content: editCall.content }),
      );
    },
    expected: "● A (edit) pending\nmeanwhile\n● A (edit) pending\n  ✎ /p/a.ts\n" +
      "    @@ -2,1 +2,1 @@\n    - b\n    + B\n",
  },
  {
    name: "unknown update kinds and malformed updates are ignored",
    feed: (r) => {
      r.update(note({ sessionUpdate: "something_new", whatever: [1, 2] }));
      r.update(note({ sessionUpdate: "tool_call" }));
      r.update(
        note({ sessionUpdate: "tool_call_update", toolCallId: "zz", content: 5, locations: "x" }),
      );
      r.update(note({ sessionUpdate: "plan", entries: "nope" }));
      r.update(note({ sessionUpdate: "agent_message_chunk", content: null }));
      r.update({ sessionId: "s" } as unknown as acp.SessionNotification);
      r.update(null as unknown as acp.SessionNotification);
      r.update(say("still here"));
    },
    // An update for a tool call never announced still shows that something runs.
    expected: "● Tool call pending\nstill here\n",
  },
  {
    name: "_meta terminal extensions stream their output with append semantics",
    feed: (r) => {
      const call = { toolCallId: "c2", title: "Run ls", kind: "execute" };
      r.update(note({
        sessionUpdate: "tool_call",
        ...call,
        status: "in_progress",
        _meta: { terminal_info: { terminal_id: "m1", cwd: "/tmp" } },
      }));
      r.update(note({
        sessionUpdate: "tool_call_update",
        toolCallId: "c2",
        _meta: { terminal_output_delta: { terminal_id: "m1", data: "a\nb" } },
      }));
      r.update(note({
        sessionUpdate: "tool_call_update",
        toolCallId: "c2",
        _meta: { terminalOutputDelta: { terminalId: "m1", data: "c\x1b[1m!\x1b[0m\n" } },
      }));
      r.update(note({
        sessionUpdate: "tool_call_update",
        toolCallId: "c2",
        status: "completed",
        _meta: {
          terminal_output: { terminal_id: "m1", data: "tail" },
          terminal_exit: { terminal_id: "m1", exit_code: 2, signal: null },
        },
      }));
    },
    expected:
      "● Run ls (execute) running\n  ┌ [Run ls]  in /tmp\n  │ [Run ls] a\n  │ [Run ls] bc!\n" +
      "● Run ls (execute) completed\n  │ [Run ls] tail\n  └ [Run ls] exit 2 in N.Ns\n",
  },
  {
    name:
      "an agent's own terminal is named by its later rawInput and ends with the exit its text states",
    feed: (r) => {
      r.update(note({
        sessionUpdate: "tool_call",
        toolCallId: "k",
        title: "Terminal",
        kind: "execute",
        status: "pending",
        rawInput: {},
        _meta: { terminal_info: { terminal_id: "k" } },
      }));
      r.update(note({
        sessionUpdate: "tool_call_update",
        toolCallId: "k",
        title: "make test",
        rawInput: { command: "make test" },
      }));
      r.update(note({
        sessionUpdate: "tool_call_update",
        toolCallId: "k",
        status: "failed",
        content: [{ type: "content", content: { type: "text", text: "Exit code 3" } }],
      }));
      r.update(note({
        sessionUpdate: "tool_call",
        toolCallId: "z",
        title: "sleep 9",
        kind: "execute",
        status: "in_progress",
        rawInput: { command: ["/bin/bash", "-lc", "sleep 9"] },
        _meta: { terminal_info: { terminal_id: "z", cwd: "/w" } },
      }));
    },
    expected: "● Terminal (execute) pending\n● make test (execute) pending\n" +
      "  ┌ [make test] $ make test\n● make test (execute) failed\n" +
      "    Exit code 3\n  └ [make test] exit 3 in N.Ns\n" +
      "● sleep 9 (execute) running\n  ┌ [sleep 9] $ sleep 9  in /w\n" +
      "  └ [sleep 9] no exit reported: the agent stopped after N.Ns\n",
  },
  {
    name: "a permission decision names the option and who chose it",
    feed: (r) => {
      r.permission(allow);
      r.permission({ ...allow, outcome: "cancelled", option: undefined, source: "cancelled" });
    },
    expected: "? Permission: Edit a.ts -> Allow once (by --yes)\n" +
      "? Permission: Edit a.ts -> cancelled (by cancelled)\n",
  },
  {
    name: "conversation events: prompt, stop reason, errors",
    feed: (r) => {
      r.event({ type: "prompt", sessionId: "s", text: "fix it" });
      r.update(say("ok"));
      r.event({ type: "stop", sessionId: "s", stopReason: "end_turn" });
      r.event({ type: "error", message: "Cannot start agent: not found" });
    },
    expected: "> fix it\nok\n■ Turn ended: end_turn\nError: Cannot start agent: not found\n",
  },
  {
    name: "escape sequences an agent sends are removed",
    feed: (r) => {
      r.update(say("\x1b[31mred\x1b[0m \x1b]0;title\x07text\r\n"));
      r.update(note({ sessionUpdate: "tool_call", toolCallId: "c3", title: "\x1b[2JWipe" }));
    },
    expected: "red text\n● Wipe pending\n",
  },
];

describe("plain renderer", () => {
  for (const { name, feed, expected } of cases) {
    it(`plain renderer: ${name}`, async () => {
      const target = collect();
      const renderer = new PlainRenderer(target);
      feed(renderer);
      await renderer.close();
      assert.equal(steady(target.text), expected);
      assert.ok(!target.text.includes("\x1b"), "no escape sequence at all");
    });
  }

  it("plain renderer: an embedded terminal's lines are marked with the tool call, then summarised", async () => {
    const service = new TerminalService({ cwd: "/tmp" });
    const target = collect();
    const renderer = new PlainRenderer(target);
    const stop = service.onEvent((event) => renderer.terminal(event));
    try {
      const id = await service.create({ sessionId: "s", command: "printf 'a\\nb\\n'" });
      renderer.update(note({
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Run printf",
        kind: "execute",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: id }],
      }));
      await service.waitForExit("s", id);
      const before = target.text;
      assert.match(
        before,
        / {2}│ \[Run printf\] a\n {2}│ \[Run printf\] b\n {2}└ \[Run printf\] exit 0 in \d+\.\ds\n$/,
      );
      assert.match(before, / {2}┌ \[Run printf\] \$ printf 'a\\nb\\n'\n/);
      await service.releaseAll();
      assert.equal(target.text, before, "release keeps the summary and adds nothing");
    } finally {
      stop();
      await service.releaseAll();
      await renderer.close();
    }
  });

  it("plain renderer: a terminal embedded after it ended shows its output and summary", async () => {
    const service = new TerminalService({ cwd: "/tmp" });
    const target = collect();
    const renderer = new PlainRenderer(target);
    const stop = service.onEvent((event) => renderer.terminal(event));
    try {
      const id = await service.create({ sessionId: "s", command: "echo early" });
      await service.waitForExit("s", id);
      renderer.update(note({
        sessionUpdate: "tool_call_update",
        toolCallId: "t2",
        title: "Echo",
        content: [{ type: "terminal", terminalId: id }],
      }));
      assert.match(target.text, / {2}│ \[Echo\] early\n {2}└ \[Echo\] exit 0 in /);
    } finally {
      stop();
      await service.releaseAll();
      await renderer.close();
    }
  });

  it("plain renderer: a killed terminal flushes its last partial line and says which signal", async () => {
    const service = new TerminalService({ cwd: "/tmp", killGraceMs: 2000 });
    const target = collect();
    const renderer = new PlainRenderer(target);
    const stop = service.onEvent((event) => renderer.terminal(event));
    try {
      const id = await service.create({ sessionId: "s", command: "printf 'partial'; sleep 30" });
      renderer.update(note({
        sessionUpdate: "tool_call",
        toolCallId: "t3",
        title: "Sleep",
        content: [{ type: "terminal", terminalId: id }],
      }));
      await service.terminal("s", id).waitForText("partial");
      await service.kill("s", id);
      await service.releaseAll();
      assert.match(
        target.text,
        / {2}│ \[Sleep\] partial\n {2}└ \[Sleep\] killed by SIGTERM after \d+\.\ds\n$/,
      );
    } finally {
      stop();
      await service.releaseAll();
      await renderer.close();
    }
  });
});
