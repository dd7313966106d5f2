/**
 * How each front end answers the policy's "ask" and shows a refusal, through
 * the built binary (or main.ts): MCP elicitation accepted and declined (the
 * official SDK client as the peer), `run` failing a line with FILE:LINE and
 * running it with --yes, a denied line typed into a shell session never run
 * and audited, and `termbridge audit` reading the log back.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/types.d.ts"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { removeDir, STEP_MS, termbridgeCommand, withMcp } from "../mcp/_kit.ts";
import { markerWorkspace } from "./_workspace.ts";

/** A workspace of its own (see markerWorkspace), with this process's environment under it. */
function workspace(config: unknown): { dir: string; env: Record<string, string> } {
  const { dir, env } = markerWorkspace(config, "termbridge-approvals-");
  return { dir, env: { ...process.env as Record<string, string>, ...env } };
}

function termbridge(
  args: string[],
  options: { cwd: string; env: Record<string, string>; input?: string },
) {
  const { command, args: pre } = termbridgeCommand();
  return spawnSync(command, [...pre, ...args], {
    cwd: options.cwd,
    env: options.env,
    input: options.input ?? "",
    encoding: "utf8",
    timeout: STEP_MS * 2,
  });
}

describe("approvals", () => {
  it("approvals: mcp asks through elicitation; accepted runs, declined is a tool error", async () => {
    const { dir, env } = workspace({ policy: { ask: ["marker"] } });
    try {
      const asked: string[] = [];
      let answer: "accept" | "decline" = "accept";
      await withMcp(async (mcp) => {
        mcp.client.setRequestHandler(ElicitRequestSchema, (request) => {
          asked.push(String(request.params.message));
          return answer === "accept"
            ? { action: "accept", content: { approve: true } }
            : { action: "decline" };
        });
        const ran = await mcp.call("terminal_execute", { command: "marker yes" });
        assert.equal(ran.isError, false, ran.text);
        answer = "decline";
        const refused = await mcp.call("terminal_execute", { command: "marker no" });
        assert.equal(refused.isError, true, refused.text);
        assert.match(
          refused.text,
          /Denied by policy: ask rule "marker" .*not approved \(elicitation \(decline\)\)/,
        );
      }, { cwd: dir, env, capabilities: { elicitation: {} } });
      assert.equal(asked.length, 2);
      assert.match(asked[0], /marker yes/);
      assert.equal(existsSync(join(dir, "ran-yes")), true);
      assert.equal(existsSync(join(dir, "ran-no")), false);
    } finally {
      removeDir(dir);
    }
  });

  it("approvals: run fails a denied or unapproved line with FILE:LINE; --yes approves an ask", () => {
    const { dir, env } = workspace({ policy: { ask: ["marker"], deny: ["curl"] } });
    try {
      const script = join(dir, "test.tb");
      writeFileSync(script, "open\nexec marker a\n");
      const refused = termbridge(["run", script], { cwd: dir, env });
      assert.equal(refused.status, 1, refused.stderr);
      assert.match(
        refused.stderr,
        new RegExp(`${script}:2: exec marker a: .*Denied by policy: ask rule "marker"`),
      );
      assert.equal(existsSync(join(dir, "ran-a")), false);
      const approved = termbridge(["run", "--yes", script], { cwd: dir, env });
      assert.equal(approved.status, 0, approved.stderr);
      assert.equal(existsSync(join(dir, "ran-a")), true);
      writeFileSync(script, "open\nexec curl http://127.0.0.1:9/\n");
      const denied = termbridge(["run", "--yes", script], { cwd: dir, env });
      assert.equal(denied.status, 1);
      assert.match(denied.stderr, /test\.tb:2: .*Denied by policy: deny rule "curl"/);
    } finally {
      removeDir(dir);
    }
  });

  it("approvals: a denied line typed into a shell session is not run, and the audit log says so", () => {
    const { dir, env } = workspace({ policy: { deny: ["marker"] } });
    try {
      const audit = join(dir, "audit.jsonl");
      const script = join(dir, "typed.tb");
      writeFileSync(
        script,
        [
          "open",
          'type "marker typed\\n"',
          "wait prompt",
          "exec echo after",
          "expect-exit 0",
          "",
        ].join("\n"),
      );
      const result = termbridge(["run", "--audit", audit, script], { cwd: dir, env });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(existsSync(join(dir, "ran-typed")), false, "the typed line ran");
      const records = readFileSync(audit, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const typed = records.find((r) => r.origin === "typed" && /marker typed/.test(r.line));
      assert.ok(typed, JSON.stringify(records.map((r) => r.event + ":" + (r.line ?? ""))));
      assert.equal(typed.decision, "deny");
      assert.equal(typed.mode, "run");

      const shown = termbridge(["audit", "--audit", audit, "--since", "1h"], { cwd: dir, env });
      assert.equal(shown.status, 0, shown.stderr);
      assert.match(shown.stdout, /run \S+ typed "marker typed" in .*: deny \(deny "marker"\)/);
      const none = termbridge(["audit", "--audit", audit, "--since", "2999-01-01"], {
        cwd: dir,
        env,
      });
      assert.equal(none.stdout, "");
      const json = termbridge(["audit", "--audit", audit, "--json"], { cwd: dir, env });
      assert.equal(json.stdout.trim().split("\n").length, records.length);
      const bad = termbridge(["audit", "--since", "yesterday-ish"], { cwd: dir, env });
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /Cannot use --since "yesterday-ish"/);
    } finally {
      removeDir(dir);
    }
  });
});
