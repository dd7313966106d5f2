/**
 * The command line through the built binary (or main.ts when it is not
 * built): `help MODE`, `--cwd` checked at start-up in every mode, and the
 * wording of the unknown-method error.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODES } from "../../lib/cli/usage.ts";
import { runtime } from "../../lib/runtime/mod.ts";
import { currentBinary } from "../built_binary.ts";
import { termbridgeArgv } from "../helpers.ts";

/** The termbridge under test: the current binary, else this runtime running main.ts. */
const ARGV = (() => {
  const binary = currentBinary();
  return binary === undefined ? termbridgeArgv() : [binary];
})();

/** Runs termbridge with `args`, feeding `stdin` (then end of input); collects what it printed. */
async function termbridge(args: string[], stdin = "", cwd = tmpdir()) {
  const child = runtime.spawnPiped({
    argv: [...ARGV, ...args],
    cwd,
    env: { ...runtime.env(), NO_COLOR: "1" },
    stderr: "pipe",
  });
  const writer = child.stdin.getWriter();
  if (stdin !== "") await writer.write(new TextEncoder().encode(stdin)).catch(() => {});
  await writer.close().catch(() => {}); // It may have exited already: that is what some tests check.
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr!).text(),
    child.exited,
  ]);
  return { code: status.exitCode, stdout, stderr };
}

describe("cli", () => {
  it("cli: `termbridge help MODE` prints what `termbridge MODE --help` prints", async () => {
    for (const mode of MODES) {
      const viaHelp = await termbridge(["help", mode.name]);
      const viaFlag = await termbridge([mode.name, "--help"]);
      assert.equal(viaHelp.code, 0, `help ${mode.name}: ${viaHelp.stderr}`);
      assert.match(viaHelp.stdout, new RegExp(`Usage: termbridge ${mode.name}\\b`));
      assert.equal(viaHelp.stdout, viaFlag.stdout);
    }
    const top = await termbridge(["help"]);
    assert.equal(top.code, 0);
    assert.match(top.stdout, /^Modes:/m);
  });

  it("cli: `termbridge help` of an unknown mode is a usage error (exit 2)", async () => {
    const result = await termbridge(["help", "bogus"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /Unknown mode "bogus": expected one of acp, serve/);
  });

  it("cli: --cwd that does not exist or is not a directory stops every mode at start-up (exit 2)", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "termbridge-cwd-")));
    const file = join(dir, "a-file");
    writeFileSync(file, "");
    try {
      const cases: [string[], string][] = [
        [["serve", "--cwd", "/nonexistent/dir"], "no such directory"],
        [["acp", "--cwd", "/nonexistent/dir", "--", "true"], "no such directory"],
        [["mcp", "--cwd", "/nonexistent/dir"], "no such directory"],
        [["repl", "--cwd", "/nonexistent/dir"], "no such directory"],
        [["policy", "check", "--cwd", "/nonexistent/dir", "ls"], "no such directory"],
        [["serve", "--cwd", file], "it is not a directory"],
      ];
      for (const [args, why] of cases) {
        // The request on stdin would be answered if the mode had started.
        const request = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n';
        const result = await termbridge(args, request);
        assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
        assert.equal(result.stdout, "", args.join(" "));
        const value = JSON.stringify(args[args.indexOf("--cwd") + 1]);
        assert.ok(
          result.stderr.includes(`Cannot use --cwd ${value}: ${why}`),
          `${args.join(" ")}: ${result.stderr}`,
        );
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("cli: a relative --cwd is resolved against termbridge's own directory", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "termbridge-cwd-")));
    try {
      const create = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "terminal/create",
        params: { sessionId: "s", command: "pwd" },
      });
      const wait = JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "terminal/wait_for_exit",
        params: { sessionId: "s", terminalId: "term-1" },
      });
      const output = JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "terminal/output",
        params: { sessionId: "s", terminalId: "term-1" },
      });
      // Requests are concurrent: output is asked for once wait_for_exit was answered.
      const child = runtime.spawnPiped({
        argv: [...ARGV, "serve", "--cwd", "."],
        cwd: dir,
        env: runtime.env(),
        stderr: "pipe",
      });
      const writer = child.stdin.getWriter();
      const lines = child.stdout.getReader();
      const decoder = new TextDecoder();
      const encoder = new TextEncoder();
      await writer.write(encoder.encode(`${create}\n${wait}\n`));
      let seen = "";
      while (!seen.includes('"id":2')) {
        const { value, done } = await lines.read();
        if (done) break;
        seen += decoder.decode(value, { stream: true });
      }
      await writer.write(encoder.encode(`${output}\n`));
      await writer.close();
      for (;;) {
        const { value, done } = await lines.read();
        if (done) break;
        seen += decoder.decode(value, { stream: true });
      }
      await new Response(child.stderr!).text();
      await child.exited;
      assert.ok(seen.includes(`"output":"${dir}\\n"`), seen);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cli: an unknown method is -32601 `Method not found: "bogus/method"`', async () => {
    const request = '{"jsonrpc":"2.0","id":7,"method":"bogus/method","params":{}}\n';
    const result = await termbridge(["serve"], request);
    assert.equal(result.code, 0, result.stderr);
    const response = JSON.parse(result.stdout.trim().split("\n")[0]);
    assert.equal(response.id, 7);
    assert.equal(response.error.code, -32601);
    assert.equal(response.error.message, 'Method not found: "bogus/method"');
  });
});
