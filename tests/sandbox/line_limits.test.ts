/**
 * Issue 15, item 11: a limit hit by a command of a line run through a shell
 * ends the whole line and says so in words, as it does for a command given
 * with `args`: `cpuSeconds` in `terminal/create` (serve) and `commandSeconds`
 * in a session's `exec` (run). Through the built binary.
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir } from "../mcp/_kit.ts";
import { markerWorkspace } from "../safety/_workspace.ts";
import { Serve } from "../safety/_serve.ts";
import { termbridge } from "../script/_cli.ts";

describe("limits on command lines", () => {
  it("limits: cpuSeconds ends a command line at the command that hit it, and says so", {
    timeout: 120_000,
  }, async () => {
    const { dir, env } = markerWorkspace({ limits: { cpuSeconds: 1 } }, "tb-line-cpu-");
    const serve = new Serve(["--no-audit"], { cwd: dir, env });
    try {
      const params = { sessionId: "s", terminalId: "term-1" };
      const [created, waited] = await Promise.all([
        serve.request("terminal/create", {
          sessionId: "s",
          command: `python3 -c "while True: pass"; echo after-$((6*7))`,
        }),
        serve.request("terminal/wait_for_exit", params),
      ]);
      assert.equal(created.error, undefined, JSON.stringify(created));
      assert.deepEqual(waited.result, { exitCode: 152, signal: null }, JSON.stringify(waited));
      const output = (await serve.request("terminal/output", params)).result as { output: string };
      assert.match(output.output, /termbridge: killed: used more than limits\.cpuSeconds \(1 s\)/);
      assert.doesNotMatch(output.output, /after-42/);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("limits: commandSeconds ends a session's whole exec'd line, not only its running command", {
    timeout: 120_000,
  }, async () => {
    const { dir, env } = markerWorkspace({ limits: { commandSeconds: 2 } }, "tb-line-time-");
    try {
      writeFileSync(join(dir, "t.tb"), "open\nexec sleep 10; echo after-$((6*7))\n");
      const run = await termbridge(["run", "--no-audit", "--json", "t.tb"], {
        cwd: dir,
        env: { ...env, SHELL: "bash" },
        built: true,
      });
      const report = JSON.parse(run.stdout);
      const exec = report.steps[1].data;
      assert.match(
        exec.output,
        /termbridge: killed: ran longer than limits\.commandSeconds \(2 s\)/,
      );
      assert.doesNotMatch(exec.output, /after-42/);
      assert.notEqual(exec.exitCode, 0, JSON.stringify(exec));
    } finally {
      removeDir(dir);
    }
  });
});
