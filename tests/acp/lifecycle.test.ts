/**
 * ACP v1's session lifecycle through `termbridge acp --json` (the built
 * binary when it is current): `session/new` with additional directories,
 * `--session` (`session/resume`, else `session/load`), `--list-sessions`
 * (`session/list`, paged), `session/close` at the end, and an agent's
 * question (`elicitation/create`) declined when nobody can answer it.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type AcpResult, agentArgv, agentText, reportsOf, runAcp, withTempDir } from "./acp_run.ts";

const EXIT = { ok: 0, usage: 2, protocol: 6 };

/** The session agent with `TB_AGENT_CAPS=caps`, closing into `log`. */
function sessionAgent(caps: string, log: string): string[] {
  return ["env", `TB_AGENT_CAPS=${caps}`, `TB_CLOSE_LOG=${log}`, ...agentArgv("session_agent")];
}

function ofType(run: AcpResult, type: string): Record<string, unknown>[] {
  return run.events.filter((event) => event.type === type);
}

function show(run: AcpResult): string {
  return `${run.stdout}\n--- stderr ---\n${run.stderr}`;
}

/** The first error event's message. */
function errorOf(run: AcpResult): string {
  const [error] = ofType(run, "error");
  assert.ok(error, `an error event in:\n${show(run)}`);
  return String(error.message);
}

function closed(log: string): string {
  try {
    return readFileSync(log, "utf8");
  } catch {
    return "";
  }
}

describe("acp session lifecycle", () => {
  it("acp lifecycle: a new session gets --add-dir as additionalDirectories, and is closed at the end", async () => {
    await withTempDir(async (dir) => {
      const log = join(dir, "close.log");
      const [lib, docs] = [join(dir, "lib"), join(dir, "docs")];
      mkdirSync(lib);
      mkdirSync(docs);
      const run = await runAcp(sessionAgent("all", log), {
        cwd: dir,
        prompts: ["hi"],
        flags: ["--add-dir", lib, "--add-dir", docs],
      });
      assert.equal(run.status.exitCode, EXIT.ok, show(run));
      const opened = reportsOf(run.events).get("opened") as Record<string, unknown>;
      assert.equal(opened.how, "new");
      assert.equal(opened.cwd, dir);
      assert.deepEqual(opened.additionalDirectories, [lib, docs]);
      assert.equal(closed(log), "closed new-1\n");
      const caps = reportsOf(run.events).get("clientCapabilities") as Record<string, unknown>;
      assert.deepEqual(caps.elicitation, { form: {}, url: {} });
      assert.deepEqual(caps.auth, { terminal: false }, "no terminal login without a terminal");
    });
  });

  it("acp lifecycle: --session resumes with session/resume, or session/load, or says why it cannot", async () => {
    await withTempDir(async (dir) => {
      const log = join(dir, "close.log");
      const resumed = await runAcp(sessionAgent("all", log), {
        cwd: dir,
        prompts: ["hi"],
        flags: ["--session", "old-1"],
      });
      assert.equal(resumed.status.exitCode, EXIT.ok, show(resumed));
      const opened = reportsOf(resumed.events).get("opened") as Record<string, unknown>;
      assert.equal(opened.how, "resume");
      assert.equal(opened.sessionId, "old-1");
      assert.equal(opened.cwd, dir);
      assert.ok(
        ofType(resumed, "notice").some((e) =>
          e.message === "Resumed session old-1 (session/resume)"
        ),
        show(resumed),
      );
      assert.equal(closed(log), "closed old-1\n");

      const loaded = await runAcp(sessionAgent("load", log), {
        cwd: dir,
        prompts: ["hi"],
        flags: ["--session", "old-2"],
      });
      assert.equal(loaded.status.exitCode, EXIT.ok, show(loaded));
      assert.equal((reportsOf(loaded.events).get("opened") as { how: string }).how, "load");
      assert.match(
        agentText(loaded.events),
        /^replayed history\. /,
        "the history the agent replays",
      );
      assert.equal(closed(log), "closed old-1\n", "no session/close for an agent without it");

      const unknown = await runAcp(sessionAgent("all", log), {
        cwd: dir,
        prompts: ["hi"],
        flags: ["--session", "nope"],
      });
      assert.equal(unknown.status.exitCode, EXIT.protocol, show(unknown));
      assert.match(errorOf(unknown), /^The agent answered session\/resume with an error: .*nope/);

      const neither = await runAcp(sessionAgent("none", log), {
        cwd: dir,
        prompts: ["hi"],
        flags: ["--session", "old-1"],
      });
      assert.equal(neither.status.exitCode, EXIT.protocol, show(neither));
      assert.equal(
        errorOf(neither),
        'Cannot resume session "old-1": the agent supports neither session/resume nor session/load; run without --session for a new one',
      );
    });
  });

  it("acp lifecycle: --add-dir needs the agent's additionalDirectories and an existing directory", async () => {
    await withTempDir(async (dir) => {
      const log = join(dir, "close.log");
      const run = await runAcp(sessionAgent("none", log), {
        cwd: dir,
        prompts: ["hi"],
        flags: ["--add-dir", dir],
      });
      assert.equal(run.status.exitCode, EXIT.protocol, show(run));
      assert.match(
        errorOf(run),
        /^Cannot use --add-dir ".*": the agent does not support additionalDirectories/,
      );
      const missing = await runAcp(sessionAgent("all", log), {
        cwd: dir,
        prompts: ["hi"],
        flags: ["--add-dir", join(dir, "nonexistent")],
      });
      assert.equal(missing.status.exitCode, EXIT.usage, show(missing));
      assert.match(missing.stderr, /Cannot use --add-dir ".*nonexistent": no such directory/);
    });
  });

  it("acp lifecycle: --list-sessions pages through session/list, as JSON or a table", async () => {
    await withTempDir(async (dir) => {
      const log = join(dir, "close.log");
      const json = await runAcp(sessionAgent("all", log), { cwd: dir, flags: ["--list-sessions"] });
      assert.equal(json.status.exitCode, EXIT.ok, show(json));
      const [listed] = ofType(json, "sessions");
      assert.ok(listed, show(json));
      assert.equal(listed.cwd, dir);
      const sessions = listed.sessions as { sessionId: string; cwd: string }[];
      assert.deepEqual(sessions.map((s) => s.sessionId), ["old-1", "old-2"]);
      assert.equal(sessions[0].cwd, dir, "the agent was asked for the sessions of --cwd");
      assert.equal(closed(log), "", "listing opens no session, so closes none");

      const table = await runAcp(sessionAgent("all", log), {
        cwd: dir,
        json: false,
        flags: ["--list-sessions"],
      });
      assert.equal(table.status.exitCode, EXIT.ok, show(table));
      const lines = table.stdout.trimEnd().split("\n");
      assert.match(lines.at(-3)!, /^SESSION +UPDATED +TITLE +DIRECTORIES$/);
      assert.match(lines.at(-2)!, /^old-1 +2026-11-24T10:00:00Z +Fix the tests +\//);
      assert.match(lines.at(-1)!, /^old-2 +- +- +\/work\/a, \/work\/lib$/);

      const none = await runAcp(sessionAgent("none", log), {
        cwd: dir,
        flags: ["--list-sessions"],
      });
      assert.equal(none.status.exitCode, EXIT.protocol, show(none));
      assert.match(
        errorOf(none),
        /^Cannot list sessions: the agent does not support session\/list/,
      );
    });
  });

  it("acp lifecycle: an agent's question is declined, and said so, when nobody can answer it", async () => {
    await withTempDir(async (dir) => {
      const log = join(dir, "close.log");
      for (const prompt of ["ask", "ask-url"]) {
        const run = await runAcp(sessionAgent("all", log), { cwd: dir, prompts: [prompt] });
        assert.equal(run.status.exitCode, EXIT.ok, show(run));
        assert.deepEqual(reportsOf(run.events).get("elicitation"), { action: "decline" });
        const warnings = ofType(run, "warning").map((e) => String(e.message));
        assert.ok(
          warnings.some((w) =>
            /^Declined the agent's question ".*": nobody can answer it here \(--json\)/.test(w)
          ),
          show(run),
        );
      }
    });
  });
});
