/**
 * `acp` asks about the policy's "ask" as about the agent's own permission
 * requests: --yes runs the command, --no refuses it, and the agent sees the
 * JSON-RPC error -32003 "Denied by policy" naming the rule and the command.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentArgv, reportsOf, runAcp, withTempDir } from "../acp/acp_run.ts";

describe("acp approvals", () => {
  it("acp: --yes approves a command the policy asks about, --no refuses it with -32003", async () => {
    await withTempDir(async (dir) => {
      const marker = join(dir, "marker");
      writeFileSync(marker, `#!/bin/sh\ntouch "${dir}/ran-$1"\n`);
      chmodSync(marker, 0o755);
      const config = join(dir, "policy.jsonc");
      writeFileSync(config, '{ "policy": { "ask": ["marker"] } }');
      for (const answer of ["yes", "no"]) {
        const result = await runAcp(agentArgv("terminal_agent"), {
          cwd: dir,
          prompts: [`policed ${marker} ${answer}`],
          flags: [`--${answer}`, "--config", config, "--no-audit"],
        });
        const reports = reportsOf(result.events);
        const create = reports.get("create") as {
          id?: string;
          error?: { code: number; message: string };
        };
        if (answer === "yes") {
          assert.ok(create?.id, JSON.stringify(create));
          assert.deepEqual(reports.get("exit"), { exitCode: 0, signal: null });
        } else {
          assert.equal(create?.error?.code, -32003, JSON.stringify(create));
          assert.equal(create?.error?.message, "Denied by policy");
        }
        assert.equal(existsSync(join(dir, `ran-${answer}`)), answer === "yes");
      }
    });
  });
});
