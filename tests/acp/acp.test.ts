/**
 * End-to-end tests of `termbridge acp`: termbridge runs the scripted agents
 * of `tests/acp/agents/`, which report what they saw; the tests read
 * termbridge's `--json` output, its exit code and /proc.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive, waitUntil } from "../helpers.ts";
import { GRANDCHILD_PIDS, REPORT_PREFIX } from "./agents/kit.ts";
import { Child } from "./child.ts";
import {
  acpArgv,
  type AcpResult,
  agentArgv,
  agentText,
  findDeep,
  parseEvents,
  reportsOf,
  runAcp,
  startAcp,
  termbridgeUnderTest,
  withTempDir,
} from "./acp_run.ts";

/** Exit codes from `termbridge acp --help`. */
const EXIT = { ok: 0, cancelled: 4, agentGone: 5, protocol: 6 };

const TERMINAL_AGENT = agentArgv("terminal_agent");

interface Pids {
  leader: number;
  child: number;
}

/** Whether a stdout line carries the report `name`. */
function reports(name: string): (line: string) => boolean {
  return (line) => line.includes(`${REPORT_PREFIX}{\\"name\\":\\"${name}\\"`);
}

/** The events of one type (`"error"`, `"stop"`...). */
function ofType(events: Record<string, unknown>[], type: string): Record<string, unknown>[] {
  return events.filter((event) => event.type === type);
}

/** The message of the first error event; fails showing what was printed if there is none. */
function errorMessage(run: AcpResult): string {
  const [error] = ofType(run.events, "error");
  assert.ok(error, `an error event in:\n${run.stdout}\n--- stderr ---\n${run.stderr}`);
  return String(error.message);
}

/** The pids GRANDCHILD_COMMAND printed, wherever they show in the events (output, reports). */
function pidsIn(events: unknown): Pids {
  const match = JSON.stringify(events).match(GRANDCHILD_PIDS);
  assert.ok(match, `the pids of the command in ${JSON.stringify(events)}`);
  return { leader: Number(match[1]), child: Number(match[2]) };
}

async function waitGone(pids: Pids): Promise<void> {
  const all = [pids.leader, pids.child];
  await waitUntil(() => !all.some(isAlive), `processes ${all} to be gone`, 10_000);
}

describe("acp", () => {
  it("acp: the agent drives every terminal method and gets ACP's answers", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, prompts: ["lifecycle"] });
      assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
      const seen = reportsOf(run.events);
      assert.deepEqual(seen.get("exit7.wait"), { exitCode: 7, signal: null });
      assert.deepEqual(seen.get("exit7.output"), {
        output: "out\nerr\n",
        truncated: false,
        exitStatus: { exitCode: 7, signal: null },
      });
      const running = seen.get("sleep.running") as { exitStatus?: unknown };
      assert.equal(running.exitStatus ?? null, null, "no exitStatus while it runs");
      assert.deepEqual(seen.get("sleep.kill"), {});
      assert.deepEqual(seen.get("sleep.wait"), { exitCode: null, signal: "SIGTERM" });
      assert.deepEqual((seen.get("sleep.afterKill") as { exitStatus: unknown }).exitStatus, {
        exitCode: null,
        signal: "SIGTERM",
      });
      assert.deepEqual(seen.get("sleep.release"), {});
      const afterRelease = seen.get("sleep.afterRelease") as {
        error: { code: number; message: string };
      };
      assert.equal(afterRelease.error.code, -32002);
      assert.ok(
        afterRelease.error.message.includes(`"${seen.get("sleep.id")}"`),
        afterRelease.error.message,
      );
      assert.deepEqual(seen.get("sleep.releaseAgain"), {}, "a second release succeeds");
      for (const name of ["sleep.killAfterRelease", "sleep.waitAfterRelease"]) {
        const seenError = seen.get(name) as { error?: { code: number } };
        assert.equal(seenError.error?.code, -32002, `${name}: ${JSON.stringify(seenError)}`);
      }
      assert.equal(seen.get("env.output"), `from the agent|${cwd}`);
      assert.deepEqual(seen.get("limit.output"), {
        output: "déé",
        truncated: true,
        exitStatus: { exitCode: 0, signal: null },
      });
      const relative = seen.get("relativeCwd") as { error: { code: number; message: string } };
      assert.equal(relative.error.code, -32602);
      assert.match(relative.error.message, /absolute/);
      const missing = seen.get("missingProgram") as { error: { code: number; message: string } };
      assert.equal(missing.error.code, -32602);
      assert.match(missing.error.message, /no-such-program-tb/);
      // Every terminal the agent created was released.
      const created = ofType(run.events, "terminal").filter((e) => e.event === "created");
      const released = ofType(run.events, "terminal").filter((e) => e.event === "released");
      assert.equal(created.length, 4);
      assert.deepEqual(
        released.map((e) => e.terminalId).sort(),
        created.map((e) => e.terminalId).sort(),
      );
    });
  });

  it("acp: a terminal embedded in a tool call shows up in the --json events", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, prompts: ["embed"] });
      assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
      const { terminalId } = reportsOf(run.events).get("embed") as { terminalId: string };
      const toolCall = findDeep(run.events, (o) => o.sessionUpdate === "tool_call")[0];
      assert.deepEqual(toolCall.content, [{ type: "terminal", terminalId }]);
      assert.equal(toolCall.status, "in_progress");
      const done = findDeep(run.events, (o) => o.sessionUpdate === "tool_call_update")[0];
      assert.equal(done.status, "completed");
      const output = run.events
        .filter((e) => e.type === "terminal_output" && e.terminalId === terminalId)
        .map((e) => e.data)
        .join("");
      assert.equal(output, "embedded output\n");
      const events = ofType(run.events, "terminal").filter((e) => e.terminalId === terminalId);
      assert.deepEqual(events.map((e) => e.event), ["created", "exited", "released"]);
      assert.equal(events[1].exitCode, 0);
      assert.equal(events[2].output, "embedded output\n", "output still shown after release");
    });
  });

  it("acp: releasing a terminal kills its background grandchildren (prompts read from stdin)", async () => {
    await withTempDir(async (cwd) => {
      const acp = startAcp(TERMINAL_AGENT, { cwd });
      try {
        await acp.write("orphans\n");
        const line = await acp.waitForLine(reports("released"), "the release");
        assert.ok(line);
        const pids = reportsOf(parseEvents(acp.lines)).get("pids") as Pids;
        // termbridge and the agent still run: release itself killed them.
        assert.ok(isAlive(acp.pid));
        await waitGone(pids);
        await acp.closeStdin();
        const { status } = await acp.finished();
        assert.equal(status.exitCode, EXIT.ok, acp.stderr);
      } finally {
        await acp.dispose();
      }
    });
  });

  it("acp: an agent that crashes mid-turn is exit 5 and leaves no processes behind", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(agentArgv("crash_agent"), { cwd, prompts: ["crash now"] });
      assert.equal(run.status.exitCode, EXIT.agentGone, run.stdout + run.stderr);
      assert.match(errorMessage(run), /exited with exit code 1/);
      await waitGone(pidsIn(run.events));
    });
  });

  it("acp: an agent's crash is reported once", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(agentArgv("crash_agent"), { cwd, prompts: ["crash now"] });
      const errors = ofType(run.events, "error");
      // Both the closed connection and the rejected session/prompt notice the
      // crash; it must be reported once.
      assert.equal(errors.length, 1, `one error event, got ${JSON.stringify(errors)}`);
    });
  });

  // The agent offers one option of each kind listed (optionId = kind), "always" first.
  const ALL_KINDS = "allow_always allow_once reject_always reject_once";
  const permissionCases = [
    { flags: ["--yes"], prompt: "permission", optionId: "allow_once", source: "--yes" },
    { flags: ["--no"], prompt: "permission", optionId: "reject_once", source: "--no" },
    { flags: [], prompt: "permission", optionId: "reject_once", source: "no-tty" },
    {
      flags: ["--yes"],
      prompt: `permission ${ALL_KINDS}`,
      optionId: "allow_once",
      source: "--yes",
    },
    { flags: ["--no"], prompt: `permission ${ALL_KINDS}`, optionId: "reject_once", source: "--no" },
    {
      flags: ["--yes"],
      prompt: "permission allow_always reject_always reject_once",
      optionId: "reject_once",
      source: "--yes",
      note: /no allow_once option/,
    },
    {
      flags: ["--no"],
      prompt: "permission allow_always reject_always",
      optionId: null,
      source: "--no",
      note: /no reject_once option \(it offered allow_always, reject_always\)/,
    },
  ];
  for (const { flags, prompt, optionId, source, note } of permissionCases) {
    it(`acp: ${flags[0] ?? "neither flag, no TTY"} answers "${prompt}" with ${optionId ?? "cancelled"}, never an always option`, async () => {
      await withTempDir(async (cwd) => {
        const run = await runAcp(TERMINAL_AGENT, { cwd, flags, prompts: [prompt] });
        assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
        assert.deepEqual(
          reportsOf(run.events).get("permission"),
          optionId === null ? { outcome: "cancelled" } : { outcome: "selected", optionId },
        );
        const [decision] = ofType(run.events, "permission");
        assert.equal(decision.optionId, optionId);
        assert.equal(decision.source, source);
        if (note !== undefined) assert.match(String(decision.note), note);
      });
    });
  }

  it("acp: --help says which option --yes and --no pick", async () => {
    const help = Child.start([...termbridgeUnderTest(), "acp", "--help"]);
    try {
      await help.closeStdin();
      const { stdout } = await help.finished();
      assert.match(stdout, /--yes\s+.*allow_once/);
      assert.match(stdout, /--no\s+.*reject_once/);
      assert.match(stdout, /never picks an allow_always or\s+reject_always/);
    } finally {
      await help.dispose();
    }
  });

  it("acp: without a TTY the plain output says the request was rejected for lack of one", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, json: false, prompts: ["permission"] });
      assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
      assert.match(run.stdout, /Permission: Delete everything -> reject_once .*no-tty/);
    });
  });

  it("acp: fs requests read and write real files; bad paths are errors the agent sees", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, prompts: ["fs"] });
      assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
      const seen = reportsOf(run.events);
      const path = join(cwd, "notes.txt");
      assert.equal(readFileSync(path, "utf8"), "one\ntwo\nthree\n");
      assert.deepEqual(seen.get("write"), {});
      assert.deepEqual(seen.get("read"), { content: "one\ntwo\nthree\n" });
      assert.deepEqual(seen.get("readLines"), { content: "two\n" });
      const relative = seen.get("relative") as { error: { code: number; message: string } };
      assert.equal(relative.error.code, -32602);
      assert.match(relative.error.message, /"notes\.txt".*absolute/);
      const missing = seen.get("missing") as { error: { code: number; message: string } };
      assert.equal(missing.error.code, -32010); // Not -32002, the code of an unknown terminal.
      assert.match(missing.error.message, /missing\.txt.*no such file/);
      const noDir = seen.get("missingDirectory") as { error: { code: number; message: string } };
      assert.equal(noDir.error.code, -32010);
      assert.ok(!existsSync(join(cwd, "no-such-dir")));
      const [written] = ofType(run.events, "file_written");
      assert.equal(written.path, path);
      assert.equal(written.bytes, 14);
    });
  });

  it("acp: an agent speaking protocol version 2 is refused with exit 6", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(agentArgv("version_agent"), { cwd, prompts: ["hello"] });
      assert.equal(run.status.exitCode, EXIT.protocol, run.stdout + run.stderr);
      assert.match(errorMessage(run), /protocol version 2.*version 1/);
      assert.equal(ofType(run.events, "prompt").length, 0, "no turn was started");
    });
  });

  it("acp: repeated --prompt flags are turns, in order", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, prompts: ["echo first", "echo second"] });
      assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
      assert.deepEqual(ofType(run.events, "prompt").map((e) => e.text), [
        "echo first",
        "echo second",
      ]);
      assert.deepEqual(ofType(run.events, "stop").map((e) => e.stopReason), [
        "end_turn",
        "end_turn",
      ]);
      assert.equal(agentText(run.events), "echo: firstecho: second");
    });
  });

  it("acp: without --prompt each line of stdin is a turn", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, stdin: "echo one\n\necho two\n" });
      assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
      assert.deepEqual(ofType(run.events, "prompt").map((e) => e.text), ["echo one", "echo two"]);
      assert.equal(agentText(run.events), "echo: oneecho: two");
    });
  });

  it("acp: SIGINT during a turn sends session/cancel, exits 4 and kills the terminals", async () => {
    await withTempDir(async (cwd) => {
      const acp = startAcp(TERMINAL_AGENT, { cwd, prompts: ["hang"] });
      try {
        await acp.waitForLine(reports("pids"), "the pids of the hanging command");
        const pids = reportsOf(parseEvents(acp.lines)).get("pids") as Pids;
        assert.ok(isAlive(pids.leader) && isAlive(pids.child));
        acp.signal("SIGINT");
        const { status } = await acp.finished();
        assert.equal(status.exitCode, EXIT.cancelled, acp.stdout + acp.stderr);
        const events = parseEvents(acp.lines);
        assert.match(agentText(events), /got session\/cancel/);
        assert.deepEqual(ofType(events, "stop").map((e) => e.stopReason), ["cancelled"]);
        await waitGone(pids);
      } finally {
        await acp.dispose();
      }
    });
  });

  it("acp: an agent that needs authentication says how, and --auth opens the session", async () => {
    await withTempDir(async (cwd) => {
      const agent = agentArgv("auth_agent");
      const refused = await runAcp(agent, { cwd, prompts: ["hi"] });
      assert.equal(refused.status.exitCode, EXIT.protocol, refused.stdout + refused.stderr);
      assert.match(errorMessage(refused), /--auth.*token/);

      const allowed = await runAcp(agent, { cwd, prompts: ["hi"], flags: ["--auth", "token"] });
      assert.equal(allowed.status.exitCode, EXIT.ok, allowed.stdout + allowed.stderr);
      assert.equal(agentText(allowed.events), "authenticated turn");

      const unknown = await runAcp(agent, { cwd, prompts: ["hi"], flags: ["--auth", "password"] });
      assert.equal(unknown.status.exitCode, EXIT.protocol);
      assert.match(errorMessage(unknown), /"password".*"token", "browser"/);

      const failing = await runAcp(agent, { cwd, prompts: ["hi"], flags: ["--auth", "browser"] });
      assert.equal(failing.status.exitCode, EXIT.protocol);
      assert.match(errorMessage(failing), /no browser here/);
    });
  });

  it("acp: every update sent before the end of a turn is shown, before the stop event", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(TERMINAL_AGENT, { cwd, prompts: ["burst 30"] });
      assert.equal(run.status.exitCode, EXIT.ok, run.stderr);
      const expected = Array.from({ length: 30 }, (_, i) => `chunk ${i + 1};`).join("");
      // The SDK dispatches notifications asynchronously: updates read before
      // the session/prompt response must still be shown before the stop.
      const stop = run.events.findIndex((e) => e.type === "stop");
      const lastChunk = run.events.findLastIndex((e) =>
        (e.update as { sessionUpdate?: string } | undefined)?.sessionUpdate ===
          "agent_message_chunk"
      );
      assert.equal(agentText(run.events), expected);
      assert.ok(
        lastChunk < stop,
        `expected the last chunk (event ${lastChunk}) before the stop (event ${stop})`,
      );
    });
  });

  it("acp: --json output reaches a slow reader in full before termbridge exits", async () => {
    await withTempDir(async (cwd) => {
      // The reader starts reading one second late: termbridge must wait for it.
      const slowReader = 'set -o pipefail; "$@" | { sleep 1; cat; }';
      const argv = acpArgv(TERMINAL_AGENT, { cwd, prompts: ["flood 300000"] });
      const acp = Child.start(["bash", "-c", slowReader, "bash", ...argv]);
      try {
        await acp.closeStdin();
        const { status } = await acp.finished();
        // Output still queued for a slow reader must be written before exit.
        const events = parseEvents(acp.lines);
        assert.equal(status.exitCode, EXIT.ok, acp.stderr);
        assert.deepEqual(reportsOf(events).get("flood"), { length: 300_000 });
        assert.match(agentText(events), /after 5;/);
        assert.deepEqual(ofType(events, "stop").map((e) => e.stopReason), ["end_turn"]);
      } finally {
        await acp.dispose();
      }
    });
  });

  it("acp: --help documents the exit codes", async () => {
    const help = Child.start([...termbridgeUnderTest(), "acp", "--help"]);
    try {
      await help.closeStdin();
      const { status, stdout } = await help.finished();
      assert.equal(status.exitCode, EXIT.ok);
      assert.match(stdout, /4 cancelled/);
      assert.match(stdout, /5 the agent exited or\s+crashed/);
      assert.match(stdout, /6 protocol error/);
    } finally {
      await help.dispose();
    }
  });

  it("acp: an agent program that does not exist is exit 1 naming it", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(["no-such-agent-tb"], { cwd, prompts: ["hi"] });
      assert.equal(run.status.exitCode, 1);
      assert.match(run.stderr, /Cannot start "no-such-agent-tb"/);
    });
  });

  it("acp: an agent that exits before initialize is exit 5", async () => {
    await withTempDir(async (cwd) => {
      const run = await runAcp(["sh", "-c", "exit 0"], { cwd, prompts: ["hi"] });
      assert.equal(run.status.exitCode, EXIT.agentGone, run.stdout + run.stderr);
      assert.match(errorMessage(run), /exited with exit code 0/);
    });
  });
});
