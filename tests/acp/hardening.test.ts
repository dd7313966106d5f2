/**
 * `termbridge acp` against agents that misbehave the way real ones do:
 * invalid updates, a banner instead of JSON-RPC, a turn that ignores
 * `session/cancel`; and what it shows of the agent's files and terminals.
 * Runs the built binary when it is current (see `acp_run.ts`).
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive, waitUntil } from "../helpers.ts";
import { REPORT_PREFIX } from "./agents/kit.ts";
import { agentArgv, parseEvents, reportsOf, runAcp, startAcp, withTempDir } from "./acp_run.ts";

const EXIT = { ok: 0, cancelled: 4, protocol: 6 };
const TERMINAL_AGENT = agentArgv("terminal_agent");

function ofType(events: Record<string, unknown>[], type: string): Record<string, unknown>[] {
  return events.filter((event) => event.type === type);
}

describe("acp hardening", () => {
  it("acp: an invalid session/update is one labelled warning, its raw message in --agent-log", async () => {
    await withTempDir(async (cwd) => {
      const log = join(cwd, "agent.log");
      const run = await runAcp(TERMINAL_AGENT, {
        cwd,
        json: false,
        flags: ["--agent-log", log],
        prompts: ["invalid"],
      });
      assert.equal(run.status.exitCode, EXIT.ok, run.stdout + run.stderr);
      assert.equal(run.stderr, "", "nothing dumped on stderr");
      const warnings = run.stdout.split("\n").filter((line) => line.includes("session/update"));
      assert.deepEqual(warnings, [
        "Warning: The agent sent an invalid session/update (usage_update: used: expected number, received null): ignored",
      ]);
      assert.match(run.stdout, /after the invalid updates/, "the turn went on");
      const logged = readFileSync(log, "utf8").split("\n").filter((l) =>
        l.includes("usage_update")
      );
      assert.equal(logged.length, 2, "each invalid update is in the agent log");
      assert.match(logged[0], /"used":null/);
    });
  });

  it("acp: --json reports an invalid update as a warning event; a newer kind passes as an update", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, prompts: ["invalid"] });
      assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
      assert.equal(run.stderr, "");
      const [warning, ...more] = ofType(run.events, "warning");
      assert.equal(more.length, 0);
      assert.match(String(warning.message), /invalid session\/update \(usage_update: used:/);
      const kinds = ofType(run.events, "update").map((e) =>
        (e.update as { sessionUpdate: string }).sessionUpdate
      );
      assert.ok(kinds.includes("kind_from_the_future"), kinds.join(","));
      assert.ok(!kinds.includes("usage_update"));
    });
  });

  it("acp: an agent that does not answer initialize is said to be waiting, then exit 6", async () => {
    await withTempDir(async (cwd) => {
      const banner = ["My Agent 1.0", "Run with --acp to speak the Agent Client Protocol"];
      const agent = ["sh", "-c", `echo "${banner[0]}"; echo "${banner[1]}"; exec sleep 100`];
      const started = performance.now();
      const acp = startAcp(agent, { cwd, flags: ["--init-timeout", "5"], prompts: ["hi"] });
      try {
        await acp.closeStdin();
        const notice = await acp.waitForLine(
          (line) => line.includes("has not answered initialize"),
          "the waiting notice",
        );
        assert.ok(isAlive(acp.pid), "still waiting after the notice");
        const waiting = JSON.parse(notice!).message as string;
        assert.match(waiting, /after 2 s/);
        assert.match(waiting, /--acp/);
        assert.match(waiting, / {2}\| My Agent 1\.0\n {2}\| Run with --acp/);
        const { status } = await acp.finished();
        assert.equal(status.exitCode, EXIT.protocol, acp.stdout + acp.stderr);
        const seconds = (performance.now() - started) / 1000;
        assert.ok(seconds >= 5, `gave up after ${seconds} s, not before --init-timeout`);
        const [error] = ofType(parseEvents(acp.lines), "error");
        assert.match(String(error.message), /did not answer initialize within 5 s/);
        assert.match(String(error.message), /My Agent 1\.0/);
        assert.equal(acp.stderr, "", "the banner is not answered with parse errors");
      } finally {
        await acp.dispose();
      }
    });
  });

  it("acp: SIGINT to a turn the agent never ends kills its terminals and exits 4 after the grace", async () => {
    await withTempDir(async (cwd) => {
      const acp = startAcp(TERMINAL_AGENT, { cwd, prompts: ["deaf"] });
      try {
        await acp.waitForLine(
          (line) => line.includes(`${REPORT_PREFIX}{\\"name\\":\\"pids\\"`),
          "the pids of the command",
        );
        const pids = reportsOf(parseEvents(acp.lines)).get("pids") as {
          leader: number;
          child: number;
        };
        acp.signal("SIGINT");
        const { status } = await acp.finished();
        assert.equal(status.exitCode, EXIT.cancelled, acp.stdout + acp.stderr);
        const [error] = ofType(parseEvents(acp.lines), "error");
        assert.match(String(error.message), /did not end the turn within 2 s of session\/cancel/);
        await waitUntil(
          () => !isAlive(pids.leader) && !isAlive(pids.child),
          "the terminal's processes to be gone",
        );
      } finally {
        await acp.dispose();
      }
    });
  });

  it("acp: a _meta terminal whose tool call failed shows its exit status, not still running", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, json: false, prompts: ["meta_failed"] });
      assert.equal(run.status.exitCode, EXIT.ok, run.stdout + run.stderr);
      assert.match(run.stdout, /│ \[Run the failing check\] boom/);
      assert.match(run.stdout, /└ \[Run the failing check\] exit 2/);
      assert.doesNotMatch(run.stdout, /still running/);
    });
  });

  it("acp: every file read and write is shown, with lines and bytes, failures too", async () => {
    await withTempDir(async (cwd) => {
      const json = await runAcp(TERMINAL_AGENT, { cwd, prompts: ["fs"] });
      assert.equal(json.status.exitCode, EXIT.ok, json.stderr);
      const path = join(cwd, "notes.txt");
      const reads = ofType(json.events, "file_read").map(({ sessionId: _, ...read }) => read);
      assert.deepEqual(reads.slice(0, 2), [
        { type: "file_read", path, lines: 3, bytes: 14 },
        { type: "file_read", path, line: 2, limit: 1, lines: 1, bytes: 4 },
      ]);
      assert.equal(reads.length, 4);
      assert.match(String(reads[2].error), /absolute/);
      assert.match(String(reads[3].error), /missing\.txt/);
      const writes = ofType(json.events, "file_written");
      assert.equal(writes.length, 2);
      assert.equal(writes[0].bytes, 14);
      assert.ok(writes[1].error, "the failed write is reported");

      const plain = await runAcp(TERMINAL_AGENT, { cwd, json: false, prompts: ["fs"] });
      assert.match(plain.stdout, new RegExp(`Read ${path} \\(3 lines, 14 bytes\\)`));
      assert.match(plain.stdout, new RegExp(`Read ${path} lines 2-2 \\(1 line, 4 bytes\\)`));
      assert.match(plain.stdout, /Read missing\.txt|Read .*missing\.txt failed/);
      assert.match(plain.stdout, new RegExp(`Wrote ${path} \\(14 bytes\\)`));
      assert.match(plain.stdout, /Write .*no-such-dir\/x\.txt failed/);
    });
  });

  it("acp: terminals no tool call embeds get a line when created and when they exit", async () => {
    await withTempDir(async (cwd) => {
      const plain = await runAcp(TERMINAL_AGENT, { cwd, json: false, prompts: ["lifecycle"] });
      assert.equal(plain.status.exitCode, EXIT.ok, plain.stderr);
      const lines = plain.stdout.split("\n");
      const started = lines.filter((line) => /▸ term-\d+ \$ /.test(line));
      const ended = lines.filter((line) => /▪ term-\d+ (exit|killed)/.test(line));
      assert.ok(started.some((line) => line.includes('sh -c "echo out; echo err >&2; exit 7"')));
      assert.equal(started.length, 4, started.join("\n"));
      assert.equal(ended.length, 4, ended.join("\n"));
      assert.ok(ended.some((line) => /exit 7/.test(line)));
      assert.ok(ended.some((line) => /killed by SIGTERM/.test(line)));
    });
  });
});
