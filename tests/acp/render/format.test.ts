import { describe, it } from "../../harness.ts";
import assert from "node:assert/strict";
import type * as acp from "@agentclientprotocol/sdk";
import { formatDiff, formatDuration, formatExit } from "../../../lib/acp/render/format.ts";
import { readTerminalMeta, type TerminalMeta } from "../../../lib/acp/render/meta.ts";
import {
  chooseRenderMode,
  createRenderer,
  JsonRenderer,
  PlainRenderer,
  TtyRenderer,
} from "../../../lib/acp/render/mod.ts";
import { PLAIN_STYLE } from "../../../lib/acp/render/style.ts";
import { collect } from "./helpers.ts";

describe("render format", () => {
  const exits: [Parameters<typeof formatExit>[0], string][] = [
    [{ exitCode: 0, signal: null, durationMs: 1234 }, "exit 0 in 1.2s"],
    [{ exitCode: 3, signal: null }, "exit 3"],
    [{ exitCode: null, signal: "SIGTERM", durationMs: 2000 }, "killed by SIGTERM after 2.0s"],
    [{ exitCode: null, signal: null, durationMs: 65_000 }, "ended after 1m05s"],
  ];
  for (const [exit, expected] of exits) {
    it(`render format: ${JSON.stringify(exit)} reads "${expected}"`, () => {
      assert.equal(formatExit(exit), expected);
    });
  }

  it("render format: durations", () => {
    assert.deepEqual([0, 49, 950, 59_949, 600_000].map(formatDuration), [
      "0.0s",
      "0.0s",
      "0.9s",
      "59.9s",
      "10m00s",
    ]);
  });

  it("render format: a long diff is cut with the number of lines left out", () => {
    const newText = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const lines = formatDiff(PLAIN_STYLE, { path: "/big", newText } as acp.Diff);
    assert.equal(lines.length, 1 + 40 + 1);
    assert.equal(lines.at(-1), "    ... 60 more lines");
  });

  it("render format: a long rewrite shows removed and added lines both", () => {
    const oldText = Array.from({ length: 50 }, (_, i) => `old ${i}`).join("\n");
    const newText = Array.from({ length: 50 }, (_, i) => `new ${i}`).join("\n");
    const lines = formatDiff(PLAIN_STYLE, { path: "/f", oldText, newText } as acp.Diff);
    assert.equal(lines.filter((l) => l.startsWith("    - ")).length, 20);
    assert.equal(lines.filter((l) => l.startsWith("    + ")).length, 20);
    assert.equal(lines.at(-1), "    ... 60 more lines");
  });

  it("render format: a deleted file's diff has only - lines", () => {
    const lines = formatDiff(
      PLAIN_STYLE,
      { path: "/gone", oldText: "a\nb\n", newText: "" } as acp.Diff,
    );
    assert.deepEqual(lines, ["  ✎ /gone", "    @@ -1,2 +1,0 @@", "    - a", "    - b"]);
  });

  const metas: [unknown, TerminalMeta[]][] = [
    [{ terminal_info: { terminal_id: "t", cwd: "/w" } }, [{
      kind: "info",
      terminalId: "t",
      cwd: "/w",
    }]],
    [{ terminalOutput: { terminalId: "t", data: "x" } }, [{
      kind: "output",
      terminalId: "t",
      data: "x",
    }]],
    [{ terminal_output_delta: { data: "no id" } }, [{
      kind: "output",
      terminalId: "call",
      data: "no id",
    }]],
    [
      { terminal_exit: { terminal_id: "t", exit_code: null, signal: "TERM" } },
      [{ kind: "exit", terminalId: "t", exitCode: null, signal: "SIGTERM" }],
    ],
    [{ terminalExit: { terminalId: "t", exitCode: 1 } }, [{
      kind: "exit",
      terminalId: "t",
      exitCode: 1,
      signal: null,
    }]],
    [{ terminal_output: { terminal_id: "t", data: 5 } }, [{
      kind: "output",
      terminalId: "t",
      data: "5",
    }]],
    [{ terminal_output: "junk", terminal_exit: [1], terminal_info: null }, []],
    [{ terminal_output: { terminal_id: "t" } }, []],
    ["not an object", []],
    [null, []],
    [undefined, []],
  ];
  for (const [meta, expected] of metas) {
    it(`render format: _meta ${JSON.stringify(meta)} is read tolerantly`, () => {
      assert.deepEqual(readTerminalMeta(meta, "call"), expected);
    });
  }

  const modes: [Parameters<typeof chooseRenderMode>[0], string][] = [
    [{ json: true, tty: true, env: {} }, "json"],
    [{ json: false, tty: true, env: {} }, "tty"],
    [{ json: false, tty: false, env: {} }, "plain"],
    [{ json: false, tty: true, env: { NO_COLOR: "1" } }, "plain"],
    [{ json: false, tty: true, env: { NO_COLOR: "" } }, "tty"],
  ];
  for (const [options, expected] of modes) {
    it(`render format: ${JSON.stringify(options)} renders as ${expected}`, () => {
      assert.equal(chooseRenderMode(options), expected);
    });
  }

  it("render format: createRenderer makes the renderer of each mode", async () => {
    for (
      const [mode, type] of [["json", JsonRenderer], ["plain", PlainRenderer], [
        "tty",
        TtyRenderer,
      ]] as const
    ) {
      const renderer = createRenderer({ mode, target: collect() });
      assert.ok(renderer instanceof type);
      await renderer.close();
    }
  });
});
