/**
 * The console's commands run against real bash sessions: exec and its exit
 * codes, cd into paths with spaces, expectations that pass and fail with
 * the screen, errors that teach, session management and the transcript.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CommandResult } from "../../lib/sessions/session.ts";
import { withConsole } from "./_kit.ts";

describe("console: exec", () => {
  for (
    const [command, code] of [["true", 0], ["false", 1], ["no-such-command-xyz", 127]] as const
  ) {
    it(`exec: "${command}" completes with exit code ${code}, and expect-exit checks it`, async () => {
      await withConsole(async ({ ok, fails }) => {
        await ok("open t");
        const result = await ok(`exec ${command}`);
        const data = result.data as CommandResult;
        assert.deepEqual([data.status, data.exitCode], ["completed", code]);
        if (code === 0) assert.equal(result.output, "");
        else assert.match(result.output, new RegExp(`\\[exit ${code}\\]$`));
        if (code === 127) assert.match(result.output, /no-such-command-xyz: command not found/);
        await ok(`expect-exit ${code}`);
        const error = await fails(`expect-exit ${code === 0 ? 3 : 0}`);
        assert.match(
          error,
          new RegExp(
            `^Expected exit code ${code === 0 ? 3 : 0} from "${command}", got exit code ${code}; `,
          ),
        );
      });
    });
  }

  it("exec: cd into a path with spaces, then pwd prints it", async () => {
    await withConsole(async ({ ok, home }) => {
      mkdirSync(join(home, "a dir  with spaces"));
      await ok("open");
      await ok(`exec cd 'a dir  with spaces'`);
      const pwd = await ok("exec pwd");
      assert.equal(pwd.output, join(home, "a dir  with spaces"));
      assert.equal((pwd.data as CommandResult).cwd, join(home, "a dir  with spaces"));
      await ok("expect-output 'with spaces'");
      await ok("expect-output '/ dir {2}with/'");
    });
  });

  it("exec: the rest of the line goes to the shell as written, quotes and # included", async () => {
    await withConsole(async ({ ok }) => {
      await ok("open");
      const result = await ok(`x echo "a  b" 'c  d' # a shell comment`);
      assert.equal(result.output, "a  b c  d");
      const timed = await ok(`exec --timeout 20 printf '%s\\n' one two`);
      assert.equal(timed.output, "one\ntwo");
    });
  });

  it("exec: a command still running at the timeout is reported, then its exit code once it ends", async () => {
    await withConsole(async ({ ok, fails }) => {
      await ok("open");
      const running = await ok("exec --timeout 0.3 sleep 30");
      assert.equal((running.data as CommandResult).status, "running");
      assert.match(running.output, /still running after 0.3 s: .*"key C-c" interrupts it/);
      assert.match(await fails("expect-exit 0"), /"sleep 30" is still running/);
      assert.match(await fails("exec echo no"), /"sleep 30" is still running/);
      await ok("key C-c");
      await ok("wait prompt");
      await ok("expect-exit 130");
      const nothing = await ok("exec");
      assert.equal(nothing.note, 'Nothing is running in session "main"');
      await ok("expect-exit 130");
      const slow = await ok("exec --timeout 0.2 echo one; sleep 0.5; echo two");
      assert.equal(slow.output.split("\n")[0], "one");
      const rest = await ok("exec --timeout 10");
      assert.equal(rest.output, "two");
      await ok("expect-output '/^one\\ntwo$/'");
      await ok("expect-exit 0");
    });
  });

  it("exec: after a command typed in the terminal, wait prompt and exec work", async () => {
    await withConsole(async ({ ok }) => {
      await ok("open");
      await ok(`type "sleep 0.2; echo typed-done\\n"`);
      await ok("wait prompt");
      await ok("expect typed-done");
      assert.equal((await ok("exec echo then-exec")).output, "then-exec");
      await ok(`type "echo again\\n"`);
      await ok("expect '/^again$/'");
      assert.equal((await ok("exec echo and-again")).output, "and-again");
      await ok("wait prompt");
    });
  });

  it("exec: expect-output fails showing the output", async () => {
    await withConsole(async ({ ok, fails }) => {
      await ok("open");
      assert.match(await fails("expect-output x"), /no command was run with "exec" yet/);
      await ok("exec echo alpha; echo beta");
      await ok("expect-output beta");
      const error = await fails("expect-output gamma");
      assert.equal(
        error,
        `Expected the output of "echo alpha; echo beta" to contain "gamma"; its output:\nalpha\nbeta`,
      );
    });
  });
});

describe("console: screen and expectations", () => {
  it("expect: text and /regex/ on the screen pass; a timeout fails showing the framed screen", async () => {
    await withConsole(async ({ ok, fails }) => {
      await ok("open t --size 60x8");
      await ok(`type "echo ready-\\$((40+2))\\n"`);
      const found = await ok("expect ready-42");
      assert.match(found.note ?? "", /^Found "ready-42"/);
      const matched = await ok(String.raw`e '/ready-\d+/'`);
      assert.deepEqual((matched.data as { match: string }).match, "ready-42");
      await ok("expect not-there --gone --timeout 1");
      const error = await fails("expect never-shown --timeout 0.3");
      assert.match(
        error,
        /^Timed out after 300 ms waiting for "never-shown" to appear; the screen shows:\n┌─ t · bash · 60x8 /,
      );
      assert.match(error, /│ready-42 +│/);
      assert.match(error, /█/);
      assert.match(error, /└─ .*cursor \d+,\d+ ─*┘$/);
    });
  });

  it("expect: fails at once, showing the screen, when the program exits first", async () => {
    await withConsole(async ({ ok, fails }) => {
      await ok("open p -- sh -c 'echo bye; exit 3'");
      const error = await fails("expect hello --timeout 10");
      assert.match(error, /^Gave up waiting for "hello" to appear: the program exited with code 3/);
      assert.match(error, /│bye +│/);
    });
  });

  it("screen: frames the screen with the cursor; shot is JSON", async () => {
    await withConsole(async ({ ok }) => {
      await ok("open t --size 40x6");
      await ok("exec echo framed");
      const screen = await ok("screen");
      const lines = screen.output.split("\n");
      assert.match(lines[0], /^┌─ t · bash · 40x6 ─+┐$/);
      assert.ok(lines.every((line) => [...line].length === 42), screen.output);
      assert.ok(lines.some((line) => line.startsWith("│framed ")));
      assert.ok(lines.some((line) => line.includes("█")));
      const shot = await ok("shot");
      const parsed = JSON.parse(shot.output);
      assert.deepEqual(parsed.dimensions, { cols: 40, rows: 6 });
      assert.equal(parsed.altScreen, false);
    });
  });

  it("wait: text, regex, idle and exit; a timeout fails with the screen", async () => {
    await withConsole(async ({ ok, fails }) => {
      await ok("open");
      await ok(`type "echo waited-for\\n"`);
      await ok("wait text waited-for");
      await ok("wait regex /wait.d-for/");
      await ok("wait idle 100");
      assert.match(
        await fails("wait text absent --timeout 0.2"),
        /^Timed out after 200 ms waiting for "absent" to appear; the screen shows:\n┌─/,
      );
      // Anything that is not a kind is text or /regex/ to wait for, as with expect.
      await ok("wait /waited-f[o]r/ --timeout 10");
      assert.match(
        await fails("wait tex x --timeout 0.2"),
        /^Timed out after 200 ms waiting for "tex x" to appear/,
      );
      await ok(`type "exit\\n"`);
      await ok("wait exit");
    });
  });
});

describe("console: errors that teach", () => {
  it("errors: an unknown command suggests the nearest one", async () => {
    await withConsole(async ({ fails }) => {
      assert.equal(
        await fails("scren"),
        `Unknown command "scren": did you mean "screen"? Type "help" for the list`,
      );
      assert.equal(
        await fails("frobnicate"),
        `Unknown command "frobnicate": type "help" for the list`,
      );
    });
  });

  it("errors: an unknown key names the nearest key, and nothing is sent", async () => {
    await withConsole(async ({ ok, fails }) => {
      await ok("open");
      const error = await fails("key a Entr");
      assert.match(
        error,
        /^Unknown key "Entr": did you mean "Enter"\? Type "help keys" for the key names/,
      );
      assert.match(error, /\nUsage: key KEY\.\.\.$/);
      await ok("key C-c Ctrl+L BSpace ArrowUp Escape");
    });
  });

  it("errors: commands without a session say how to open one", async () => {
    await withConsole(async ({ fails }) => {
      assert.match(await fails("type hi"), /^No session is open: open one with "open"/);
      assert.match(await fails("use nope"), /^No session is called "nope" \(open: none\)/);
    });
  });

  it("errors: bad arguments name what is right, with the usage", async () => {
    await withConsole(async ({ fails }) => {
      assert.match(await fails("open a b"), /give the program after "--", e.g. "open a -- b"/);
      assert.match(await fails("resize 80"), /expected COLSxROWS such as "80x24"/);
      assert.match(await fails("expect --timout 3 x"), /did you mean "--timeout"\?/);
      assert.match(
        await fails(`type "open`),
        /^Cannot parse line: unclosed " at the start of the text "open \(close it/,
      );
      assert.match(await fails("attach"), /works only in the REPL/);
      assert.match(await fails("save x.tb"), /works only in the REPL/);
    });
  });
});

describe("console: sessions", () => {
  it("sessions: open, list, use and close move the current session", async () => {
    await withConsole(async ({ ctx, ok, fails }) => {
      await ok("open a");
      await ok("o b -- sh");
      assert.equal(ctx.current, "b");
      const list = await ok("ls");
      assert.match(list.output, /^ {2}NAME +PROGRAM/);
      assert.match(list.output, /\n {2}a +bash /);
      assert.match(list.output, /\n\* b +sh /);
      await ok("use a");
      assert.equal(ctx.current, "a");
      assert.match(await fails("open a"), /a session with that name is open/);
      const closed = await ok("close");
      assert.match(closed.note ?? "", /^Closed "a"; the current session is "b"/);
      await ok("open");
      assert.equal(ctx.current, "main");
      assert.match(
        await fails("open"),
        /^Cannot open another session called "main": give it a name/,
      );
      await ok("close b");
      await ok("close main");
      assert.equal(ctx.current, undefined);
    });
  });

  it("sessions: the transcript keeps what changed something, open with its size made explicit", async () => {
    await withConsole(async ({ ctx, ok, fails }) => {
      await ok("open");
      await ok("type hi");
      await ok("screen");
      await ok("help");
      await fails("key Nope");
      await ok("key C-c");
      await ok("exec echo 'x y'");
      assert.deepEqual(ctx.transcript, ["open main", "type hi", "key C-c", "exec echo 'x y'"]);
    }, "repl");
  });

  it("sessions: help explains a command, keys and quoting", async () => {
    await withConsole(async ({ ok }) => {
      assert.match(
        (await ok("help")).output,
        /^Commands \(short forms in parentheses\):\n {2}open \(o\)/,
      );
      assert.match((await ok("help x")).output, /^Usage: exec \[--timeout S\] COMMAND LINE/);
      assert.match((await ok("? keys")).output, /Ctrl\+C/);
      assert.match((await ok("h quoting")).output, /backslash/);
    });
  });

  it("sessions: quit asks the front end to stop; sleep can be interrupted", async () => {
    await withConsole(async ({ ctx, ok, run }) => {
      await ok("quit");
      assert.equal(ctx.quitRequested, true);
      const abort = new AbortController();
      const sleeping = run("sleep 5000", abort.signal);
      setTimeout(() => abort.abort(), 50);
      const result = await sleeping;
      assert.equal(result.ok, false);
      assert.match(result.error ?? "", /^Interrupted: stopped waiting for the sleep/);
    });
  });
});
