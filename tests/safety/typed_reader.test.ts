/**
 * Issue 15, item 8: a line sent to a session is checked as a shell line only
 * when a shell will read it (the terminal's foreground program); lines for
 * `python3` are audited, not parsed as shell. And the REPL's y/n question,
 * asked while a person types at its prompt, never takes their next command as
 * its answer. Through the built binary (`run` and `repl`).
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir } from "../mcp/_kit.ts";
import { termbridge } from "../script/_cli.ts";
import { ReplDriver, TIMEOUT_MS } from "../repl/_driver.ts";
import { markerWorkspace } from "./_workspace.ts";

/** The audit log's events of `origin` (command events only). */
function commandEvents(path: string, origin: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8").trim().split("\n").map((line) => JSON.parse(line))
    .filter((event) => event.event === "command" && event.origin === origin);
}

describe("lines for the foreground program", () => {
  it("typed lines: input to python3 is audited, not checked as shell; to a shell (nested too) it is", async () => {
    // Any user rule will do; this one is the README's example's.
    const { dir, env } = markerWorkspace({ policy: { deny: ["marker", "curl"] } }, "tb-reader-");
    try {
      const audit = join(dir, "audit.jsonl");
      writeFileSync(
        join(dir, "py.tb"),
        ["open py -- python3 -q", "expect >>>", "input 6*7", "expect 42", ""].join("\n"),
      );
      const py = await termbridge(["run", "--audit", audit, "py.tb"], {
        cwd: dir,
        env,
        built: true,
      });
      assert.equal(py.code, 0, py.stderr);
      const [sent] = commandEvents(audit, "input");
      assert.equal(sent.line, "6*7");
      assert.equal(sent.decision, "allow");
      assert.match(String(sent.reason), /sent to "python3[.\d]*", which is not a shell: audited/);

      // The same session's shell, and a shell started in it, still have their lines checked.
      writeFileSync(
        join(dir, "nested.tb"),
        [
          "open",
          // A nested shell is asked about first (approved here), and its prompt is known.
          "type \"PS1='da''sh> ' sh\\n\"",
          "expect dash>",
          "input marker nested",
          "",
        ].join("\n"),
      );
      const nested = await termbridge(["run", "--yes", "--audit", audit, "nested.tb"], {
        cwd: dir,
        env,
        built: true,
      });
      assert.equal(nested.code, 1, nested.stdout);
      assert.match(nested.stderr, /input marker nested: Denied by policy: deny rule "marker"/);
      assert.equal(existsSync(join(dir, "ran-nested")), false);
    } finally {
      removeDir(dir);
    }
  });

  it("typed lines: type and key into python3, sh and a nested bash are audited as input", async () => {
    const { dir, env } = markerWorkspace({}, "tb-typed-audit-");
    try {
      const audit = join(dir, "audit.jsonl");
      writeFileSync(
        join(dir, "typed.tb"),
        [
          "open py -- python3 -q",
          "expect >>>",
          `type "import os; os.system('echo RAN-' + str(6*7))\\n"`,
          "expect RAN-42",
          // Typed in pieces, a typo erased, then Enter as a key: one line.
          "type \"print('PY' + '-' + 'KEYx\"",
          "key BSpace",
          'type "\')"',
          "key Enter",
          "expect PY-KEY",
          "open sh -- sh",
          'type "echo SH-$((6*7))\\n"',
          "expect SH-42",
          // A bash started by the session's hooked shell: its lines have no hook.
          "open main",
          'type "bash --norc --noprofile\\n"',
          'type "echo NESTED-$((6*7))\\n"',
          "expect NESTED-42",
          "",
        ].join("\n"),
      );
      const run = await termbridge(["run", "--audit", audit, "typed.tb"], {
        cwd: dir,
        env,
        built: true,
      });
      assert.equal(run.code, 0, run.stderr + run.stdout);
      const lines = commandEvents(audit, "input").map((event) => [event.session, event.line]);
      assert.deepEqual(lines, [
        ["py", "import os; os.system('echo RAN-' + str(6*7))"],
        ["py", "print('PY' + '-' + 'KEY')"],
        ["sh", "echo SH-$((6*7))"],
        ["main", "echo NESTED-$((6*7))"],
      ]);
      const typed = commandEvents(audit, "input")[0];
      assert.match(String(typed.reason), /typed to "python3[.\d]*" with type or key: audited/);
    } finally {
      removeDir(dir);
    }
  });

  it("repl: a y/n question asked while the person types never takes their next command as its answer", async () => {
    const { dir, env } = markerWorkspace({ policy: { ask: ["marker"] } }, "tb-reader-repl-");
    const repl = new ReplDriver(dir, { env: { ...env, SHELL: "bash", NO_COLOR: "1" } });
    try {
      await repl.untilPrompt(0);
      await repl.send("open");
      // The line is typed into the shell: its check (and the question) comes while the REPL is idle.
      let mark = repl.mark();
      repl.terminal.write('type "marker typed\\n"\r');
      const question = /Run marker typed\? The policy asks.*\[y\/N\] $/;
      await repl.terminal.waitFor(
        () => question.test(repl.since(mark)) || undefined,
        "the y/n question",
        TIMEOUT_MS,
      );
      // The person did not look: they type their next command. It is no answer: the question
      // is asked again, and the command runs once the shell it waits for is free.
      mark = repl.mark();
      repl.terminal.write("exec echo next-$((6*7))\r");
      await repl.terminal.waitFor(
        () => question.test(repl.since(mark)) || undefined,
        "the question to be asked again",
        TIMEOUT_MS,
      );
      assert.equal(existsSync(join(dir, "ran-typed")), false);
      mark = repl.mark();
      repl.terminal.write("y\r");
      await repl.terminal.waitFor(
        () => existsSync(join(dir, "ran-typed")) && /next-42/.test(repl.since(mark)) || undefined,
        "the approved line and then the next command to run",
        TIMEOUT_MS,
      );
      // The prompt after next-42, before the next line: typed earlier, that prompt would end it.
      const printed = repl.since(mark);
      const before = printed.slice(0, printed.lastIndexOf("next-42"));
      await repl.untilPrompt(mark + new TextEncoder().encode(before).length);
      assert.match(await repl.send("exec echo still-$((2*3))"), /still-6/);
    } finally {
      await repl.dispose();
      removeDir(dir);
    }
  });
});
