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

  it("acp: config maxReadBytes bounds the agent's reads (-32015)", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "tb-acp-ids-"));
    try {
      writeFileSync(join(cwd, "notes.txt"), "hello\n");
      const config = join(cwd, "small.jsonc");
      writeFileSync(config, `{ "maxReadBytes": 3 }`);
      const agent = scriptArgv(new URL("./raw_id_agent.ts", import.meta.url).pathname);
      const run = await runAcp(agent, {
        cwd,
        prompts: ["go"],
        json: false,
        flags: ["--yes", "--config", config],
      });
      assert.equal(run.status.exitCode, 0, run.stderr);
      assert.match(run.stdout, /ID-ECHO: 18446744073709551616 CONTENT: \{"code":-32015,/);
      assert.match(run.stdout, /6 bytes, more than the 3 allowed/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
