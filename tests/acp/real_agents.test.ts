/**
 * `termbridge acp` with the real adapters of today (claude-agent-acp,
 * codex-acp) driven offline by the fake model APIs of `fake_models/`.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { FAKE_AGENTS, shellCall, startFakeAgent } from "./fake_models/kit.ts";
import { agentText, findDeep, runAcp, withTempDir } from "./acp_run.ts";

describe("acp with the real adapters", () => {
  for (const agent of FAKE_AGENTS) {
    it(`${agent}: a scripted shell "echo hi" runs end to end and the model gets its output`, async () => {
      const model = await startFakeAgent(agent, {
        calls: [shellCall(agent, "echo hi-from-tb")],
        finalText: "All done.",
      });
      try {
        await withTempDir(async (cwd) => {
          const run = await runAcp(model.argv, {
            cwd,
            prompts: ["say hi"],
            flags: ["--yes"],
            env: model.env,
          });
          const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
          assert.equal(run.status.exitCode, 0, context);
          assert.match(agentText(run.events), /All done\./, context);
          const calls = findDeep(
            run.events,
            (o) => o.toolCallId !== undefined && o.kind === "execute",
          );
          assert.ok(calls.length > 0, `an execute tool call in ${context}`);
          assert.match(model.toolResults().join("\n"), /hi-from-tb/);
        });
      } finally {
        await model.close();
      }
    });
  }
});
