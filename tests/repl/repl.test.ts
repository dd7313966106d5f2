/**
 * `termbridge repl` driven through a real pseudo-terminal for whole
 * sessions: commands and their output, completion, Ctrl+C and Ctrl+D,
 * history kept across runs, save then replay with `run`, attach and
 * detach, and staying responsive while a session floods output.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive, waitUntil } from "../helpers.ts";
import { inTempDir, termbridge } from "../script/_cli.ts";
import { ReplDriver } from "./_driver.ts";

/** Runs `body` with a REPL in a fresh directory; the REPL is ended afterwards. */
async function withRepl(body: (repl: ReplDriver, dir: string) => Promise<void>): Promise<void> {
  await inTempDir(async (dir) => {
    const repl = new ReplDriver(dir);
    try {
      await repl.untilPrompt(0);
      await body(repl, dir);
    } finally {
      await repl.dispose();
    }
  });
}

/** The pids of the sessions `list` shows. */
function pidsIn(listing: string): number[] {
  return [...listing.matchAll(/^[* ] \S+ +\S+ +(\d+) +\d+x\d+ /gm)].map((m) => Number(m[1]));
}

describe("repl", () => {
  it("repl: a whole session: open, exec, screen, key, list, help, errors, close, quit", async () => {
    await withRepl(async (repl, dir) => {
      assert.match(repl.text(), /"open" starts a shell, "help" lists the commands/);
      assert.match(
        await repl.send("open --size 60x8"),
        /^Opened "main": bash \(pid \d+, 60x8\) in /,
      );
      assert.match(repl.text(), /\ntb main›$/);
      assert.equal(await repl.send("exec echo hi-$((40+2)); false"), "hi-42\n[exit 1]");
      const screen = (await repl.send("screen")).split("\n");
      assert.match(screen[0], /^┌─ main · bash · 60x8 ─+┐$/);
      assert.ok(screen.some((line) => /^│hi-42 +│$/.test(line)), screen.join("\n"));
      const listing = await repl.send("list");
      assert.match(
        listing,
        /^ {2}NAME +PROGRAM +PID +SIZE +STATE +CWD\n\* main +bash +\d+ +60x8 +idle/,
      );
      assert.ok(listing.includes(dir), listing);
      assert.equal(await repl.send(`type "echo typed\\n"`), "");
      assert.match(await repl.send("expect typed --timeout 10"), /^Found "typed"/);
      assert.match(await repl.send("wait prompt"), /^Done after \d+ ms$/);
      assert.equal(await repl.send("exec echo next"), "next");
      assert.equal(await repl.send("key C-l"), "");
      assert.match(
        await repl.send("scren"),
        /^Unknown command "scren": did you mean "screen"\? Type "help" for the list$/,
      );
      assert.match(await repl.send("key Entr"), /^Unknown key "Entr": did you mean "Enter"\?/);
      assert.match(
        await repl.send("help expect"),
        /^Usage: expect \[--timeout S\] \[--gone\] \[--all\] TEXT\|\/REGEX\//,
      );
      assert.match(await repl.send("open other -- sh"), /^Opened "other": sh/);
      assert.match(repl.text(), /\ntb other›$/);
      const pids = pidsIn(await repl.send("ls"));
      assert.equal(pids.length, 2);
      assert.match(await repl.send("close"), /^Closed "other"; the current session is "main"/);
      await waitUntil(() => !isAlive(pids[1]), "the closed session's program to end");
      repl.terminal.write("quit\r");
      assert.deepEqual(await repl.terminal.wait(), { exitCode: 0, signal: null });
      assert.match(repl.text(), /Closed 1 session\.$/);
      await waitUntil(() => !isAlive(pids[0]), "every session's program to end");
    });
  });

  it("repl: sessions take the configuration's cols and rows over the terminal's size, --size over both", async () => {
    await inTempDir(async (dir) => {
      const config = join(dir, "size.jsonc");
      writeFileSync(config, '{ "cols": 70, "rows": 12 }');
      const repl = new ReplDriver(dir, { args: ["--config", config] });
      try {
        await repl.untilPrompt(0);
        assert.match(await repl.send("open"), /Opened "main": \S+ \(pid \d+, 70x12\)/);
        assert.match(await repl.send("open b --size 50x9"), /, 50x9\)/);
      } finally {
        await repl.dispose();
      }
    });
  });

  it("repl: Tab completes commands, key names and session names; Ctrl+C clears the line", async () => {
    await withRepl(async (repl) => {
      await repl.send("open build");
      let mark = repl.mark();
      repl.terminal.write("scr\t");
      await repl.terminal.waitForText(/tb build› screen$/);
      repl.terminal.write("\x03");
      assert.match(await repl.untilPrompt(mark), /\^C\n(tb build› )+$/);
      mark = repl.mark();
      repl.terminal.write("key ArrowU\t");
      await repl.terminal.waitForText(/tb build› key ArrowUp$/);
      repl.terminal.write("\x03");
      await repl.untilPrompt(mark);
      repl.terminal.write("use bu\t");
      await repl.terminal.waitForText(/tb build› use build$/);
      assert.equal(await repl.send(""), 'Current session: "build"');
      repl.terminal.write("\x03");
      await repl.terminal.waitForText(/\^C \(Ctrl\+D or "quit" leaves\)\ntb build›$/);
    });
  });

  it("repl: a completed word gets a space; key Ctrl+ offers only Ctrl+ names, even pasted with its Tabs", async () => {
    await withRepl(async (repl) => {
      await repl.send("open build");
      repl.terminal.write("scr\t");
      await repl.terminal.waitForText(/tb build› screen$/);
      repl.terminal.write("--all"); // After the space completion added.
      await repl.terminal.waitForText(/tb build› screen --all$/);
      repl.terminal.write("\x15key Ctrl+\t\t"); // One read, as tmux send-keys or a paste gives it.
      const screen = await repl.terminal.waitForText(/Ctrl\+Space/);
      const listed = screen.slice(screen.indexOf("key Ctrl+"));
      assert.match(listed, /Ctrl\+A +Ctrl\+B/);
      assert.doesNotMatch(listed, /ArrowUp|C-c|Enter/);
      await repl.terminal.waitForText(/tb build› key Ctrl\+$/);
      repl.terminal.write("\x15");
    });
  });

  it("repl: Ctrl+R searches the history backwards: Enter runs the match, Escape edits it, Ctrl+G gives up", async () => {
    await withRepl(async (repl) => {
      await repl.send("open");
      await repl.send("exec echo first-one");
      await repl.send("exec echo second");
      repl.terminal.write("\x12");
      repl.terminal.write("fir");
      await repl.terminal.waitForText(/\(reverse-i-search\)`fir': exec echo first-one$/);
      let mark = repl.mark();
      repl.terminal.write("\r");
      // Accepting redraws the prompt with the line first: wait for the command's output after it.
      await repl.terminal.waitFor(
        () => /\nfirst-one\n(tb main› )+$/.test(repl.since(mark)) || undefined,
        "the output of the line found",
        15_000,
      );
      repl.terminal.write("\x12");
      repl.terminal.write("e");
      await repl.terminal.waitForText(/`e': exec echo first-one$/);
      repl.terminal.write("\x12"); // The next older match.
      await repl.terminal.waitForText(/`e': exec echo second$/);
      repl.terminal.write("zzz");
      await repl.terminal.waitForText(/\(failed reverse-i-search\)`ezzz': exec echo second$/);
      repl.terminal.write("\x07");
      await repl.terminal.waitForText(/tb main›$/);
      repl.terminal.write("\x12");
      repl.terminal.write("sec");
      await repl.terminal.waitForText(/`sec': exec echo second$/);
      repl.terminal.write("\x1b");
      await repl.terminal.waitForText(/tb main› exec echo second$/);
      mark = repl.mark();
      repl.terminal.write("nd\r");
      assert.match(await repl.untilPrompt(mark), /\nsecondnd\n/);
    });
  });

  it("repl: Ctrl+C stops an exec that waits; Ctrl+D quits and ends every session", async () => {
    await withRepl(async (repl) => {
      await repl.send("open");
      const [pid] = pidsIn(await repl.send("list"));
      const mark = repl.mark();
      // sh prints "started" from the foreground group, so a later C-c surely reaches it.
      repl.terminal.write("exec sh -c 'echo started; exec sleep 30'\r");
      await repl.terminal.waitForText("tb main› exec sh -c 'echo started; exec sleep 30'");
      const started = performance.now();
      repl.terminal.write("\x03");
      await repl.untilPrompt(mark);
      assert.ok(performance.now() - started < 5000);
      assert.match(
        repl.text(),
        /Interrupted: stopped waiting for "sh -c 'echo started; exec sleep 30'"; it is still running in session "main": "key C-c" interrupts it/,
      );
      await repl.send("expect '/^started$/'");
      assert.equal(await repl.send("key C-c"), "");
      assert.match(await repl.send("wait prompt"), /^Done after/);
      assert.equal(await repl.send("exec echo after"), "after");
      repl.terminal.write("\x04");
      assert.deepEqual(await repl.terminal.wait(), { exitCode: 0, signal: null });
      await waitUntil(() => !isAlive(pid), "the session's program to end");
    });
  });

  for (const signal of ["SIGTERM", "SIGHUP"]) {
    it(`repl: ${signal}, even while attached, ends the REPL and every session`, async () => {
      await withRepl(async (repl) => {
        await repl.send("open");
        const [pid] = pidsIn(await repl.send("list"));
        repl.terminal.write("attach\r");
        await repl.terminal.waitForText("Ctrl+] detaches");
        repl.terminal.signal(signal);
        assert.deepEqual(await repl.terminal.wait(), { exitCode: 0, signal: null });
        await waitUntil(() => !isAlive(pid), "the session's program to end");
      });
    });
  }

  it("repl: history is kept in $XDG_STATE_HOME/termbridge/history and comes back with ArrowUp", async () => {
    await inTempDir(async (dir) => {
      const first = new ReplDriver(dir);
      try {
        await first.untilPrompt(0);
        await first.send("help quoting");
        await first.send("list");
        first.terminal.write("quit\r");
        await first.terminal.wait();
      } finally {
        await first.dispose();
      }
      const file = join(dir, ".state", "termbridge", "history");
      assert.deepEqual(readFileSync(file, "utf8").split("\n"), [
        "help quoting",
        "list",
        "quit",
        "",
      ]);
      const second = new ReplDriver(dir);
      try {
        await second.untilPrompt(0);
        second.terminal.write("\x1b[A\x1b[A");
        await second.terminal.waitForText(/tb› list$/);
        assert.match(await second.send(""), /^No session is open/);
      } finally {
        await second.dispose();
      }
    });
  });

  it("repl: save writes a script that termbridge run replays", async () => {
    await withRepl(async (repl, dir) => {
      await repl.send("open --size 70x10");
      await repl.send("exec echo saved-$((1+1))");
      await repl.send("expect saved-2");
      await repl.send("screen");
      await repl.send("nonsense");
      await repl.send(`type "echo replayed\\n"`);
      await repl.send("expect-exit 0");
      assert.match(
        await repl.send("save s.tb"),
        /^Saved 5 commands to .*s\.tb; replay with "termbridge run s\.tb"/,
      );
      assert.match(
        await repl.send("save s.tb"),
        /the file exists; "save s\.tb --force" replaces it/,
      );
      const script = readFileSync(join(dir, "s.tb"), "utf8").split("\n");
      assert.match(script[0], /^# termbridge script, saved from the REPL on /);
      assert.deepEqual(script.slice(2), [
        "open main --size 70x10",
        "exec echo saved-$((1+1))",
        "expect saved-2",
        `type "echo replayed\\n"`,
        "expect-exit 0",
        "",
      ]);
      const replay = await termbridge(["run", "s.tb"], { cwd: dir });
      assert.deepEqual([replay.code, replay.stdout, replay.stderr], [0, "saved-2\n", ""]);
      writeFileSync(join(dir, "s.tb"), script.join("\n").replace("saved-2\n", "saved-3\n"));
      const broken = await termbridge(["run", "--timeout", "1", "s.tb"], { cwd: dir });
      assert.equal(broken.code, 1);
      assert.match(broken.stderr, /^s\.tb:5: expect saved-3: Timed out after 1000 ms/);
    });
  });

  it("repl: attach hands the terminal to the session until Ctrl+], then gives its size back", async () => {
    await withRepl(async (repl) => {
      await repl.send("open --size 60x8");
      const mark = repl.mark();
      repl.terminal.write("attach\r");
      await repl.terminal.waitForText(
        'Attached to "main": everything you type goes to it. Ctrl+] detaches.',
      );
      repl.terminal.write("stty size; echo inside-$((6*7))\r");
      await repl.terminal.waitForText(/^40 100\ninside-42$/m);
      repl.terminal.write("\x1d");
      assert.match(
        await repl.untilPrompt(mark),
        /Detached from "main" \(size back to 60x8\)\n(tb main› )+$/,
      );
      assert.equal(await repl.send("exec stty size"), "8 60");
      assert.match(await repl.send("list"), /\* main +bash +\d+ +60x8 /);
    });
  });

  it("repl: attach to a full-screen program shows its screen; detach restores the REPL's", async () => {
    await withRepl(async (repl) => {
      await repl.send(
        String
          .raw`open app -- sh -c 'printf "\033[?1049h\033[2J\033[3;5Hfull-screen-app"; read x; echo "got $x"'`,
      );
      let mark = repl.mark();
      repl.terminal.write("attach\r");
      await repl.terminal.waitFor(
        () =>
          repl.terminal.screenshot().altScreen &&
            repl.terminal.lines({ scope: "visible" })[2] === "    full-screen-app" || undefined,
        "the program's screen at its place",
        15_000,
      );
      repl.terminal.write("\x1d");
      assert.match(await repl.untilPrompt(mark), /Detached from "app"/);
      assert.equal(repl.terminal.screenshot().altScreen, false);
      mark = repl.mark();
      repl.terminal.write("attach\r");
      await repl.terminal.waitFor(
        () => repl.terminal.screenshot().altScreen || undefined,
        "the program's screen",
        15_000,
      );
      repl.terminal.write("hello\r");
      assert.match(await repl.untilPrompt(mark), /"app" exited with code 0; detached\ntb app› $/);
      assert.match(await repl.send("screen"), /│got hello +│/);
      assert.match(
        await repl.send("attach"),
        /^Cannot attach to "app": its program exited with code 0/,
      );
    });
  });

  it("repl: attach gives the person's terminal the modes the program set before it", async () => {
    await withRepl(async (repl) => {
      // Application cursor keys, bracketed paste, SGR mouse, hidden cursor; then
      // the program shows, in octal, the bytes an arrow key sends it.
      const program = String
        .raw`printf '\033[?1h\033[?2004h\033[?1002h\033[?1006h\033[?25lready\r\n'; ` +
        String.raw`stty raw -echo; head -c 3 | od -An -c`;
      await repl.send(`open app -- sh -c "${program}"`);
      const before = repl.terminal.modes();
      assert.deepEqual([before.applicationCursorKeys, before.bracketedPaste], [false, false]);
      const mark = repl.mark();
      repl.terminal.write("attach\r");
      await repl.terminal.waitForText(/^ready$/m); // Not the echo of the open command.
      assert.deepEqual(repl.terminal.modes(), {
        applicationCursorKeys: true,
        applicationKeypad: false,
        bracketedPaste: true,
        mouseTracking: "drag",
        mouseEncoding: "SGR",
        sendFocus: false,
        cursorHidden: true,
      });
      repl.terminal.sendKeys("Up"); // Our emulator now sends ESC O A, as the program wants.
      assert.match(
        await repl.untilPrompt(mark),
        /033 +O +A[\s\S]*"app" exited with code 0; detached/,
      );
      const after = repl.terminal.modes();
      assert.deepEqual(
        [
          after.applicationCursorKeys,
          after.bracketedPaste,
          after.mouseTracking,
          after.cursorHidden,
        ],
        [false, false, "none", false],
      );
    });
  });

  it("repl: stays responsive while a session floods output, attached or not", async () => {
    await withRepl(async (repl) => {
      await repl.send("open flood");
      await repl.send(`type "yes flooding-the-terminal\\n"`);
      await repl.send("expect '/^flooding-the-terminal$/'");
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        assert.match(await repl.send("list", 5000), /\* flood +bash/);
        assert.ok(
          performance.now() - started < 3000,
          `list took ${performance.now() - started} ms`,
        );
      }
      assert.match(await repl.send("screen", 5000), /│flooding-the-terminal +│/);
      const mark = repl.mark();
      repl.terminal.write("attach\r");
      // In the output log, not on the screen: the flood scrolls the banner away at once, and a
      // screen skips what scrolled out before it was read.
      await repl.terminal.waitFor(
        () => repl.since(mark).includes("Ctrl+] detaches") || undefined,
        "the attach banner",
        10_000,
      );
      const started = performance.now();
      repl.terminal.write("\x1d");
      assert.match(
        await repl.untilPrompt(mark, 5000),
        /Detached from "flood" \(size back to \d+x\d+\)\n(tb flood› )+$/,
      );
      assert.ok(
        performance.now() - started < 3000,
        `detach took ${performance.now() - started} ms`,
      );
      await repl.send("key C-c");
      await repl.send("wait prompt");
      assert.equal(await repl.send("exec echo calm"), "calm");
    });
  });
});
