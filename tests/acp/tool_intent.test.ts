/**
 * What termbridge reads from an agent's tool call to check it (commands,
 * files), and what it sends to make agents ask: table-driven.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import type * as acp from "@agentclientprotocol/sdk";
import { toolIntent } from "../../lib/acp/tool_intent.ts";
import { askingMeta, askingMode, CLAUDE_ASKED_TOOLS } from "../../lib/acp/agent_controls.ts";
import { commandText } from "../../lib/acp/render/meta.ts";
import { HOOKED_TOOLS, hookMeta } from "../../lib/acp/tool_hook.ts";

const CWD = "/w";

const cases: {
  name: string;
  toolCall: acp.ToolCallUpdate;
  expected: ReturnType<typeof toolIntent>;
}[] = [
  {
    name: "Claude's Bash: the line from rawInput.command, not the title",
    toolCall: {
      toolCallId: "a",
      kind: "execute",
      title: "harmless",
      rawInput: { command: "rm -rf build", description: "clean" },
      _meta: { claudeCode: { toolName: "Bash" } },
    },
    expected: { tool: "Bash", commands: [{ line: "rm -rf build", cwd: CWD }], paths: [] },
  },
  {
    name: "Codex's argv and cwd",
    toolCall: {
      toolCallId: "b",
      kind: "execute",
      rawInput: { command: ["/bin/bash", "-lc", "touch x"], cwd: "/w/sub" },
    },
    expected: { commands: [{ argv: ["/bin/bash", "-lc", "touch x"], cwd: "/w/sub" }], paths: [] },
  },
  {
    name: "a relative workdir is resolved against the session's cwd",
    toolCall: { toolCallId: "c", kind: "execute", rawInput: { cmd: "ls", workdir: "sub" } },
    expected: { commands: [{ line: "ls", cwd: "/w/sub" }], paths: [] },
  },
  {
    name: "Claude's Write: a write of the content's bytes",
    toolCall: {
      toolCallId: "d",
      kind: "edit",
      rawInput: { file_path: "/etc/passwd", content: "héllo" },
      _meta: { claudeCode: { toolName: "Write" } },
    },
    expected: {
      tool: "Write",
      commands: [],
      paths: [{ access: "write", path: "/etc/passwd", bytes: 6 }],
    },
  },
  {
    name: "a read with a relative path and the same path in locations (once)",
    toolCall: {
      toolCallId: "e",
      kind: "read",
      rawInput: { path: "src/a.ts" },
      locations: [{ path: "/w/src/a.ts" }],
    },
    expected: { commands: [], paths: [{ access: "read", path: "/w/src/a.ts" }] },
  },
  {
    name: "Codex's patch: every path of its changes is a write",
    toolCall: {
      toolCallId: "f",
      kind: "edit",
      rawInput: { changes: { "/w/a.ts": { type: "update" }, "/tmp/b.ts": { type: "add" } } },
    },
    expected: {
      commands: [],
      paths: [{ access: "write", path: "/w/a.ts" }, { access: "write", path: "/tmp/b.ts" }],
    },
  },
  {
    name: "nothing checkable: a fetch, an empty command, an argv with a non-string",
    toolCall: { toolCallId: "g", kind: "fetch", rawInput: { url: "https://x", command: ["a", 1] } },
    expected: { commands: [], paths: [] },
  },
];

describe("tool intent", () => {
  for (const { name, toolCall, expected } of cases) {
    it(`tool intent: ${name}`, () => {
      assert.deepEqual(toolIntent(toolCall, CWD), expected);
    });
  }

  it("tool intent: commandText shows a shell -c line as the line, other argv quoted", () => {
    assert.equal(commandText({ argv: ["/bin/bash", "-lc", "echo hi"] }), "echo hi");
    assert.equal(commandText({ argv: ["sh", "-c", "a && b"] }), "a && b");
    assert.equal(
      commandText({ argv: ["git", "commit", "-m", "it's"] }),
      `git commit -m 'it'\\''s'`,
    );
    assert.equal(commandText({ line: "make" }), "make");
  });

  it("agent controls: askingMeta adds the asked tools and keeps the caller's options", () => {
    const meta = askingMeta({
      other: 1,
      claudeCode: {
        options: {
          disallowedTools: ["Bash"],
          settings: { permissions: { ask: ["Read"], deny: ["WebFetch"] } },
        },
      },
    });
    assert.deepEqual(meta, {
      other: 1,
      claudeCode: {
        options: {
          disallowedTools: ["Bash"],
          settings: { permissions: { ask: ["Read", ...CLAUDE_ASKED_TOOLS], deny: ["WebFetch"] } },
          settingSources: ["user"],
        },
      },
    });
  });

  it("agent controls: the hook and the asked tools both land in Claude's settings, the caller's kept", () => {
    const meta = hookMeta(
      askingMeta({
        claudeCode: {
          options: {
            disallowedTools: ["Bash"],
            settings: { model: "m", hooks: { PreToolUse: [{ matcher: "X", hooks: [] }] } },
          },
        },
      }),
      "termbridge _hook --connect /s",
    );
    assert.deepEqual(meta, {
      claudeCode: {
        options: {
          disallowedTools: ["Bash"],
          settingSources: ["user"],
          settings: {
            model: "m",
            permissions: { ask: [...CLAUDE_ASKED_TOOLS] },
            hooks: {
              PreToolUse: [
                { matcher: "X", hooks: [] },
                {
                  matcher: HOOKED_TOOLS,
                  hooks: [{ type: "command", command: "termbridge _hook --connect /s" }],
                },
              ],
            },
          },
        },
      },
    });
  });

  it("agent controls: askingMode switches only the known agents' modes that skip asking", () => {
    const modes = (current: string, ids: string[]) => ({
      currentModeId: current,
      availableModes: ids.map((id) => ({ id, name: id })),
    });
    const codex = ["read-only", "auto", "full-access"];
    const claude = ["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"];
    assert.equal(askingMode("codex-acp", modes("auto", codex)), "read-only");
    assert.equal(askingMode("codex-acp", modes("read-only", codex)), undefined);
    assert.equal(
      askingMode("@zed-industries/claude-agent-acp", modes("bypassPermissions", claude)),
      "default",
    );
    assert.equal(
      askingMode("@zed-industries/claude-agent-acp", modes("dontAsk", claude)),
      "default",
    );
    assert.equal(askingMode("@zed-industries/claude-agent-acp", modes("plan", claude)), undefined);
    assert.equal(askingMode("some-agent", modes("auto", codex)), undefined);
    assert.equal(askingMode("codex-acp", null), undefined);
    assert.equal(
      askingMode("codex-acp", modes("auto", ["auto"])),
      undefined,
      "no read-only offered",
    );
  });
});
