/**
 * Issue 15, item 9: `mcp --server` asks the policy's "ask" of the client that
 * sent the request, through MCP elicitation, as plain `mcp` does, instead of
 * refusing with "nobody to ask". The official SDK client as the peer; the
 * built binary; a private session server, killed afterwards.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/types.d.ts"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { removeDir, STEP_MS, termbridgeCommand, withMcp } from "../mcp/_kit.ts";
import { markerWorkspace } from "./_workspace.ts";

describe("mcp --server approvals", () => {
  it("approvals: mcp --server asks the client that sent the request through its elicitation", async () => {
    const { dir, env: base } = markerWorkspace({ policy: { ask: ["marker"] } }, "tb-srv-elicit-");
    const env: Record<string, string> = {
      ...process.env as Record<string, string>,
      ...base,
      XDG_RUNTIME_DIR: join(dir, "run"),
      TERMBRIDGE_SOCKET: "",
      TMPDIR: join(dir, "tmp"),
      SHELL: "bash",
    };
    mkdirSync(env.TMPDIR);
    // The server reads the user's configuration (it serves every directory).
    mkdirSync(join(env.XDG_CONFIG_HOME, "termbridge"), { recursive: true });
    writeFileSync(
      join(env.XDG_CONFIG_HOME, "termbridge", "termbridge.jsonc"),
      JSON.stringify({ policy: { ask: ["marker"] } }),
    );
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
      }, { cwd: dir, env, args: ["--server"], capabilities: { elicitation: {} } });
      assert.equal(asked.length, 2);
      assert.match(asked[0], /marker yes/);
      assert.equal(existsSync(join(dir, "ran-yes")), true);
      assert.equal(existsSync(join(dir, "ran-no")), false);
    } finally {
      const { command, args } = termbridgeCommand();
      spawnSync(command, [...args, "kill-server"], { cwd: dir, env, timeout: STEP_MS });
      removeDir(dir);
    }
  });
});
