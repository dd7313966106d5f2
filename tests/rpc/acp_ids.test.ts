/**
 * `termbridge acp` (the built binary) answers the agent's requests with the
 * ids it sent, digit for digit.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptArgv } from "../helpers.ts";
import { runAcp } from "../acp/acp_run.ts";

describe("acp ids", () => {
  it("acp: an agent's request id beyond a double's precision comes back with the same digits", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tb-acp-ids-"));
    try {
      writeFileSync(join(cwd, "notes.txt"), "hello\n");
      const agent = scriptArgv(new URL("./raw_id_agent.ts", import.meta.url).pathname);
      const run = await runAcp(agent, { cwd, prompts: ["go"], json: false, flags: ["--yes"] });
      assert.equal(run.status.exitCode, 0, run.stderr);
      assert.match(run.stdout, /ID-ECHO: 18446744073709551616 CONTENT: \{"content":"hello\\n"\}/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
