/**
 * Typed lines end to end: an MCP client types into termbridge mcp's shell
 * (the built binary when current), with a deny rule on a marker program in
 * termbridge.jsonc. Type + Enter, Up-arrow recall, paste: the marker never
 * runs, the shell says why, and the session stays usable.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { McpProcess, removeDir, tempDir } from "../mcp/_kit.ts";

describe("policy: typed lines through termbridge mcp", () => {
  it("typed lines: type + Enter, Up recall and a paste of a denied program never run it", async () => {
    const dir = tempDir("termbridge-typed-mcp-");
    const config = join(dir, "termbridge.jsonc");
    writeFileSync(config, '{ "policy": { "deny": ["touch"] } }\n');
    const mcp = await McpProcess.start({ args: ["--config", config], cwd: dir });
    try {
      const marker = join(dir, "marker");
      const refusals = (content: string) => content.split("Denied by policy").length - 1;
      await mcp.ok("type", { text: `touch ${marker}` });
      await mcp.ok("sendKey", { key: "Enter" });
      await mcp.contentUntil((content) => refusals(content) >= 1, "the first refusal");
      await mcp.ok("sendKey", { key: "ArrowUp" });
      await mcp.ok("sendKey", { key: "Enter" });
      await mcp.contentUntil(
        (content) => refusals(content) >= 2,
        "the refusal of the recalled line",
      );
      await mcp.ok("type", { text: `echo pasted\ntouch ${marker}\n` });
      await mcp.ok("sendKey", { key: "Enter" });
      await mcp.contentUntil((content) => refusals(content) >= 3, "the refusal of the paste");
      assert.equal(existsSync(marker), false);
      const after = await mcp.ok("terminal_execute", { command: "echo still usable" });
      assert.match(after, /still usable/);
      assert.equal(existsSync(marker), false);
    } finally {
      await mcp.close();
      removeDir(dir);
    }
  });
});
