/**
 * Issue 15, item 14: a shell whose start-up files are slow. The time a new
 * session's shell may take to show its first prompt is a setting (the config
 * key `shellStartTimeout`, the option `--start-timeout`); past it the error
 * says the start-up files are the likely cause and how to check, and the
 * shell is hung up (SIGHUP first, with time for its traps) rather than
 * killed. A private HOME whose .bashrc sleeps; through the built binary.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inTempDir, termbridge, testEnv } from "../script/_cli.ts";

/** `run` of a script that opens a shell and runs one command in it. */
async function openAndEcho(dir: string, args: string[]) {
  writeFileSync(join(dir, "t.tb"), "open\nexec echo opened-$((6*7))\n");
  const env = { ...testEnv(dir), SHELL: "bash" };
  return await termbridge(["run", "--no-audit", ...args, "t.tb"], { cwd: dir, env, built: true });
}

describe("shell start timeout", () => {
  it("start timeout: a slow .bashrc is hung up with its traps run, and the error says what to check", async () => {
    await inTempDir(async (dir) => {
      // The trap takes a moment, as removing a lock would: a SIGKILL 0.5 s after SIGHUP cut it short.
      writeFileSync(
        join(dir, ".bashrc"),
        `trap 'sleep 1; echo hung-up > "$HOME/hup-ran"; exit' HUP\nsleep 30\n`,
      );
      const started = performance.now();
      const run = await openAndEcho(dir, ["--start-timeout", "2"]);
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.stderr, /Cannot open session "main": bash showed no prompt within 2 s/);
      assert.match(run.stderr, /start-up files \(~\/\.bashrc and what they run\)/);
      assert.match(run.stderr, /"bash -ic exit"/);
      assert.match(run.stderr, /"bash --norc"/);
      assert.match(run.stderr, /--start-timeout SECONDS or the config key shellStartTimeout/);
      assert.equal(existsSync(join(dir, "hup-ran")), true, "the shell's HUP trap ran to its end");
      assert.ok(performance.now() - started < 20_000, "the 30 s .bashrc was not waited for");
    });
  });

  it("start timeout: the config key sets it and --start-timeout overrides it", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, ".bashrc"), "sleep 3\n");
      writeFileSync(join(dir, "termbridge.jsonc"), '{ "shellStartTimeout": 1 }');
      const short = await openAndEcho(dir, []);
      assert.equal(short.code, 1, short.stdout);
      assert.match(short.stderr, /bash showed no prompt within 1 s/);
      const long = await openAndEcho(dir, ["--start-timeout", "60"]);
      assert.equal(long.code, 0, long.stderr);
      assert.match(long.stdout, /opened-42/);
      const bad = await openAndEcho(dir, ["--start-timeout", "soon"]);
      assert.equal(bad.code, 2);
      assert.match(
        bad.stderr,
        /Cannot use --start-timeout "soon" in "run": give a number of seconds/,
      );
    });
  });
});
