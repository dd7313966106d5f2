/**
 * The demo agent of `examples/` run by `termbridge acp --json`: what it
 * shows must actually happen.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentText,
  demoAgentArgv,
  findDeep,
  parseEvents,
  runAcp,
  startAcp,
  withTempDir,
} from "./acp_run.ts";

const NOTE = "termbridge-demo.md";

/** The terminal events of one kind. */
function terminalEvents(
  events: Record<string, unknown>[],
  kind: string,
): Record<string, unknown>[] {
  return events.filter((e) => e.type === "terminal" && e.event === kind);
}

describe("demo agent", () => {
  it("demo: with --yes it runs three embedded terminals, writes its note and ends the turn", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(demoAgentArgv(), { cwd, flags: ["--yes"], prompts: ["show me"] });
      assert.equal(run.status.exitCode, 0, run.stdout + run.stderr);
      const { events } = run;

      const toolCalls = findDeep(events, (o) => o.sessionUpdate === "tool_call");
      const embedded = toolCalls.flatMap((call) =>
        (call.content as { type: string; terminalId?: string }[] | undefined ?? [])
          .filter((c) => c.type === "terminal")
          .map((c) => c.terminalId)
      );
      assert.equal(embedded.length, 3);
      const exits = terminalEvents(events, "exited").map((
        e,
      ) => [e.terminalId, e.exitCode, e.signal]);
      assert.deepEqual(exits, [
        [embedded[0], 0, null],
        [embedded[1], 3, null],
        [embedded[2], null, "SIGTERM"],
      ]);
      assert.deepEqual(terminalEvents(events, "killed").map((e) => e.terminalId), [embedded[2]]);
      assert.deepEqual(terminalEvents(events, "released").map((e) => e.terminalId), embedded);

      const plans = findDeep(events, (o) => o.sessionUpdate === "plan");
      const statuses = plans.map((p) =>
        (p.entries as { status: string }[]).map((e) => e.status).join(",")
      );
      assert.equal(statuses[0], "in_progress,pending,pending");
      assert.equal(statuses.at(-1), "completed,completed,completed");
      assert.ok(findDeep(events, (o) => o.sessionUpdate === "agent_thought_chunk").length > 0);

      const [permission] = events.filter((e) => e.type === "permission");
      assert.equal(permission.optionId, "allow");
      const path = join(cwd, NOTE);
      const diff = findDeep(events, (o) => o.type === "diff" && o.path === path);
      assert.ok(diff.length > 0, "a diff of the note");
      assert.equal(readFileSync(path, "utf8"), diff[0].newText);

      const text = agentText(events);
      assert.match(text, /^Let me look around/);
      assert.match(text, /exit code 0[\s\S]*exit code 3[\s\S]*killed after 1500 ms \(SIGTERM\)/);
      assert.deepEqual(events.filter((e) => e.type === "stop").map((e) => e.stopReason), [
        "end_turn",
      ]);
    });
  });

  it("demo: with --no the note is not written", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(demoAgentArgv(), { cwd, flags: ["--no"], prompts: ["show me"] });
      assert.equal(run.status.exitCode, 0, run.stdout + run.stderr);
      assert.equal(run.events.find((e) => e.type === "permission")?.optionId, "reject");
      assert.ok(!existsSync(join(cwd, NOTE)));
      assert.match(agentText(run.events), /left the file alone/);
    });
  });

  it("demo: SIGINT during the long command cancels the turn and releases its terminal", async () => {
    await withTempDir(async (cwd) => {
      const acp = startAcp(demoAgentArgv(), { cwd, flags: ["--yes"], prompts: ["show me"] });
      try {
        await acp.closeStdin();
        await acp.waitForLine(
          (line) => line.includes('"event":"created"') && line.includes("sleep 30"),
          "the long command",
        );
        acp.signal("SIGINT");
        const { status } = await acp.finished();
        assert.equal(status.exitCode, 4, acp.stdout + acp.stderr);
        const events = parseEvents(acp.lines);
        assert.deepEqual(events.filter((e) => e.type === "stop").map((e) => e.stopReason), [
          "cancelled",
        ]);
        const created = terminalEvents(events, "created").map((e) => e.terminalId);
        assert.deepEqual(terminalEvents(events, "released").map((e) => e.terminalId), created);
        assert.ok(!existsSync(join(cwd, NOTE)));
      } finally {
        await acp.dispose();
      }
    });
  });
});
