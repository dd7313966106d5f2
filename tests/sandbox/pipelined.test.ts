/**
 * Issue 15, item 10: with `sandbox.mode: workspace-write`, requests naming
 * the terminal id a `terminal/create` is still making (checked, sandboxed,
 * spawned) wait for it instead of failing with -32002 "Unknown terminal": the
 * README's own `serve` example, pipelined in one write, through the built
 * binary.
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { removeDir } from "../mcp/_kit.ts";
import { markerWorkspace } from "../safety/_workspace.ts";
import { Serve } from "../safety/_serve.ts";

const hasBwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some(existsSync);

describe("sandbox: pipelined requests", () => {
  it("sandbox: wait_for_exit and output sent right after a sandboxed create find its terminal", {
    skip: hasBwrap ? false : "bubblewrap is not installed",
    timeout: 120_000,
  }, async () => {
    const { dir, env } = markerWorkspace({ sandbox: { mode: "workspace-write" } }, "tb-pipe-");
    const serve = new Serve(["--no-audit"], { cwd: dir, env });
    try {
      const params = (id: string) => ({ sessionId: "s", terminalId: id });
      // Written one after another before any answer: what `{ echo ...; echo ...; } | serve` does.
      const [created, waited, output, second] = await Promise.all([
        serve.request("terminal/create", { sessionId: "s", command: "echo hi; exit 3" }),
        serve.request("terminal/wait_for_exit", params("term-1")),
        serve.request("terminal/output", params("term-1")),
        serve.request("terminal/create", { sessionId: "s", command: "echo two" }),
      ]);
      assert.deepEqual(created.result, { terminalId: "term-1" }, JSON.stringify(created));
      assert.deepEqual(waited.result, { exitCode: 3, signal: null }, JSON.stringify(waited));
      assert.equal(output.error, undefined, JSON.stringify(output));
      assert.deepEqual(second.result, { terminalId: "term-2" }, JSON.stringify(second));
      const again = await serve.request("terminal/output", params("term-1"));
      assert.equal((again.result as { output: string }).output, "hi\n");
      // An id nobody is creating is still unknown at once.
      const unknown = await serve.request("terminal/output", params("term-9"));
      assert.equal((unknown.error as { code: number }).code, -32002);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });
});
