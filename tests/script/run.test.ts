/**
 * `termbridge run` end to end: scripts that pass and fail, the exit codes
 * and messages, the JSON report, stdin, --keep-going, usage errors, that
 * nothing is left running, and the speed of a 1,000-step script.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { isAlive, termbridgeArgv, waitUntil } from "../helpers.ts";
import { inTempDir, termbridge, testEnv } from "./_cli.ts";

const PASSING = `# A script that passes
open --size 60x8
exec echo "hello  world"
expect-exit 0
expect-output 'hello  world'
exec exit_code() { return 3; }; exit_code
expect-exit 3
type "echo typed-\\$((6*7))\\n"
expect typed-42
expect '/typed-\\d+/'
key C-c
`;

describe("script: run", () => {
  it("run: a passing script exits 0 and prints what its commands printed", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, "ok.tb"), PASSING);
      const result = await termbridge(["run", "ok.tb"], { cwd: dir });
      assert.equal(result.stderr, "");
      assert.equal(result.code, 0);
      assert.equal(result.stdout, "hello  world\n[exit 3]\n");
    });
  });

  it("run: a failing expectation exits 1 with FILE:LINE, the line, the reason and the screen", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(
        join(dir, "fail.tb"),
        "open --size 50x6\nexec echo visible\n\nexpect invisible --timeout 0.5\nexec echo not-reached\n",
      );
      const result = await termbridge(["run", "fail.tb"], { cwd: dir });
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "visible\n");
      const [first, ...screen] = result.stderr.trimEnd().split("\n");
      assert.equal(
        first,
        'fail.tb:4: expect invisible --timeout 0.5: Timed out after 500 ms waiting for "invisible" to appear; the screen shows:',
      );
      assert.match(screen[0], /^┌─ main · bash · 50x6 ─+┐$/);
      assert.ok(screen.some((line) => /^│visible +│$/.test(line)), result.stderr);
      assert.ok(screen.some((line) => line.includes("█")), result.stderr);
      assert.match(screen.at(-1)!, /^└─ .*cursor \d+,\d+ ─*┘$/);
    });
  });

  it("run: --json prints a report of every step", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, "s.tb"), "open\nexec echo out\n# comment\nexpect-exit 1\n");
      const result = await termbridge(["run", "--json", "s.tb"], { cwd: dir });
      assert.equal(result.code, 1);
      const report = JSON.parse(result.stdout);
      assert.equal(report.ok, false);
      assert.deepEqual(
        report.steps.map((s: Record<string, unknown>) => [s.line, s.command, s.ok, s.output]),
        [[1, "open", true, undefined], [2, "exec", true, "out"], [
          4,
          "expect-exit",
          false,
          undefined,
        ]],
      );
      for (const step of report.steps) assert.equal(typeof step.ms, "number");
      assert.equal(report.steps[1].data.exitCode, 0);
      assert.match(report.steps[2].error, /^Expected exit code 1 from "echo out", got exit code 0/);
      assert.match(result.stderr, /^s\.tb:4: expect-exit 1: Expected exit code 1/);
    });
  });

  it("run: - reads the script from stdin", async () => {
    await inTempDir(async (dir) => {
      const result = await termbridge(["run", "-"], {
        cwd: dir,
        stdin: "open\nexec echo from-stdin\nexpect-output from-stdin\n",
      });
      assert.deepEqual([result.code, result.stdout, result.stderr], [0, "from-stdin\n", ""]);
      const traced = await termbridge(["run", "-x", "-"], { cwd: dir, stdin: "open\nexec true\n" });
      assert.match(traced.stderr, /^\+ open\n {2}Opened "main": bash .*\n\+ exec true\n$/);
      const failing = await termbridge(["run", "-"], {
        cwd: dir,
        stdin: "open\nexec false\nexpect-exit 0\n",
      });
      assert.equal(failing.code, 1);
      assert.match(
        failing.stderr,
        /^stdin:3: expect-exit 0: Expected exit code 0 from "false", got exit code 1/,
      );
    });
  });

  it("run: --keep-going runs every line and counts the failures", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(
        join(dir, "k.tb"),
        "open\nexec echo one\nexpect-output two\nexec echo three\nexpect-exit 5\nexec echo four\n",
      );
      const result = await termbridge(["run", "-k", "k.tb"], { cwd: dir });
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "one\nthree\nfour\n");
      const lines = result.stderr.trimEnd().split("\n");
      assert.match(
        lines[0],
        /^k\.tb:3: expect-output two: Expected the output of "echo one" to contain "two"/,
      );
      assert.ok(lines.some((line) => line.startsWith("k.tb:5: expect-exit 5:")), result.stderr);
      assert.equal(lines.at(-1), "k.tb: 2 of 6 steps failed");
    });
  });

  it("run: lines that cannot be read are all reported before anything runs", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(
        join(dir, "bad.tb"),
        `open\nexec touch ran\nscren\ntype "unclosed\nkey Entr\nattach\n`,
      );
      const result = await termbridge(["run", "bad.tb"], { cwd: dir });
      assert.equal(result.code, 1);
      const lines = result.stderr.split("\n");
      assert.equal(
        lines[0],
        `bad.tb:3: scren: Unknown command "scren": did you mean "screen"? Type "help" for the list`,
      );
      assert.match(
        result.stderr,
        /\nbad\.tb:4: type "unclosed: Cannot parse line: unclosed " at the start of the text "unclosed/,
      );
      assert.match(
        result.stderr,
        /\nbad\.tb:5: key Entr: Unknown key "Entr": did you mean "Enter"\?/,
      );
      assert.match(
        result.stderr,
        /\nbad\.tb:6: attach: Cannot run "attach" in a script: it works only in the REPL/,
      );
      assert.match(result.stderr, /\nbad\.tb: nothing was run: fix the lines above\n$/);
      assert.equal(existsSync(join(dir, "ran")), false, "line 2 ran");
      const again = await termbridge(["run", "--json", "bad.tb"], { cwd: dir });
      assert.deepEqual(JSON.parse(again.stdout).steps.map((s: { line: number }) => s.line), [
        3,
        4,
        5,
        6,
      ]);
    });
  });

  it("run: bad command lines and missing scripts exit 2 with a clear message", async () => {
    await inTempDir(async (dir) => {
      const missing = await termbridge(["run", "nope.tb"], { cwd: dir });
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /^termbridge: Cannot read script "nope\.tb": no such file\n/);
      const none = await termbridge(["run"], { cwd: dir });
      assert.equal(none.code, 2);
      assert.match(none.stderr, /give one SCRIPT file \(or - for stdin\)/);
      const option = await termbridge(["run", "--timeout", "soon", "x.tb"], { cwd: dir });
      assert.equal(option.code, 2);
      assert.match(option.stderr, /Cannot read --timeout "soon"/);
    });
  });

  it("run: --help lists the options and every command of the language", async () => {
    await inTempDir(async (dir) => {
      const result = await termbridge(["run", "--help"], { cwd: dir });
      assert.equal(result.code, 0);
      assert.match(result.stdout, /^Usage: termbridge run \[OPTIONS\] SCRIPT\|-/);
      for (
        const word of [
          "--json",
          "--keep-going",
          "--timeout",
          "expect-exit",
          "expect-output",
          "open (o)",
        ]
      ) {
        assert.ok(result.stdout.includes(word), word);
      }
      assert.ok(!result.stdout.includes("attach"), "attach is REPL only");
    });
  });

  it("run: quit stops a script successfully, and every session is gone afterwards", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(
        join(dir, "q.tb"),
        "open sleeper -- sleep 1000\nopen\nexec sleep 1000 &\nlist\nquit\nexpect-exit 9\n",
      );
      const result = await termbridge(["run", "--json", "q.tb"], { cwd: dir });
      assert.equal(result.code, 0, result.stderr);
      const report = JSON.parse(result.stdout);
      assert.equal(report.steps.length, 5);
      const pids = report.steps[3].data.sessions.map((s: { pid: number }) => s.pid);
      assert.equal(pids.length, 2);
      await waitUntil(() => pids.every((pid: number) => !isAlive(pid)), "the sessions to end");
    });
  });

  it("run: a reader that stops reading (| head) ends termbridge quietly with 141, as SIGPIPE would", async () => {
    await inTempDir(async (dir) => {
      writeFileSync(join(dir, "flood.tb"), "open\nexec seq 1 300000\n");
      const quoted = termbridgeArgv().map((arg) => `'${arg}'`).join(" ");
      const pipeline = runtime.spawnPiped({
        argv: [
          "bash",
          "-c",
          `${quoted} run flood.tb 2>stderr.txt | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`,
        ],
        cwd: dir,
        env: testEnv(dir),
        stderr: "inherit",
      });
      await pipeline.stdin.close();
      const [status] = await Promise.all([new Response(pipeline.stdout).text(), pipeline.exited]);
      assert.equal(status.trim(), "141");
      assert.equal(readFileSync(join(dir, "stderr.txt"), "utf8"), "");
    });
  });

  it("run: a reader that leaves after the first lines (| head -1), also of --json, gets 141 and a quiet stderr", async () => {
    await inTempDir(async (dir) => {
      // A first write the pipe takes, then one it cannot take at once: the reader has gone meanwhile.
      writeFileSync(join(dir, "two.tb"), "open\nexec seq 1 3\nexec seq 1 300000\n");
      const quoted = termbridgeArgv().map((arg) => `'${arg}'`).join(" ");
      for (const [options, reader] of [["", "head -1"], ["--json", "head -c 10"]]) {
        const pipeline = runtime.spawnPiped({
          argv: [
            "bash",
            "-c",
            `${quoted} run ${options} two.tb 2>stderr.txt | ${reader} >/dev/null; echo "\${PIPESTATUS[0]}"`,
          ],
          cwd: dir,
          env: testEnv(dir),
          stderr: "inherit",
        });
        await pipeline.stdin.close();
        const [status] = await Promise.all([new Response(pipeline.stdout).text(), pipeline.exited]);
        assert.equal(status.trim(), "141", `run ${options} | ${reader}`);
        assert.equal(
          readFileSync(join(dir, "stderr.txt"), "utf8"),
          "",
          `run ${options} | ${reader}`,
        );
      }
    });
  });

  // How fast it runs is measured by bench/sessions.ts, not here.
  it("run: a script of 1,000 steps (type, key, expect) runs every step", async () => {
    await inTempDir(async (dir) => {
      // Each expect waits for the effect of the step before it: a lost key fails.
      const round = [
        "type x",
        String.raw`expect '/^tb\$ x$/'`,
        "key BSpace",
        String.raw`expect '/^tb\$$/'`,
      ];
      const steps = ["open --size 80x24", "exec PS1='tb$ '", ...Array(250).fill(round).flat()];
      writeFileSync(join(dir, "long.tb"), steps.join("\n") + "\n");
      const result = await termbridge(["run", "--json", "long.tb"], { cwd: dir });
      assert.equal(result.code, 0, result.stderr);
      const report = JSON.parse(result.stdout);
      assert.equal(report.steps.length, 1002);
      assert.ok(report.steps.every((step: { ok: boolean }) => step.ok));
    });
  });
});
