import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpawnError, TerminalDisposedError, WaitTimeoutError } from "../../lib/terminal/errors.ts";
import { UnknownKeyError } from "../../lib/terminal/keys.ts";
import { Emulator } from "../../lib/terminal/emulator.ts";
import { Terminal } from "../../lib/terminal/terminal.ts";
import { BASH, bashEnv, isAlive, withTerminal } from "../helpers.ts";

describe("terminal: exit status", () => {
  for (
    const [script, expected] of [
      ["exit 0", { exitCode: 0, signal: null }],
      ["exit 3", { exitCode: 3, signal: null }],
      ["kill -TERM $$", { exitCode: null, signal: "SIGTERM" }],
      ["kill -KILL $$", { exitCode: null, signal: "SIGKILL" }],
      ["kill -INT $$", { exitCode: null, signal: "SIGINT" }],
    ] as const
  ) {
    it(`terminal: "${script}" reports ${JSON.stringify(expected)}`, async () => {
      await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
        assert.deepEqual(await terminal.wait(), expected);
        assert.deepEqual(terminal.exitStatus, expected);
      });
    });
  }

  it("terminal: a missing program is a SpawnError that names it", () => {
    assert.throws(
      () => Terminal.spawn({ argv: ["no-such-program-xyz"] }),
      (error: unknown) =>
        error instanceof SpawnError &&
        /"no-such-program-xyz": command not found/.test(error.message),
    );
  });

  it("terminal: a relative or missing working directory is rejected", () => {
    assert.throws(
      () => Terminal.spawn({ argv: ["true"], cwd: "relative/dir" }),
      /must be absolute/,
    );
    assert.throws(() => Terminal.spawn({ argv: ["true"], cwd: "/no/such/dir" }), /does not exist/);
  });

  it("terminal: the program runs in the working directory given", async () => {
    await withTerminal({ argv: ["pwd"], cwd: "/usr/bin" }, async (terminal) => {
      await terminal.wait();
      assert.equal(terminal.output().text.trim(), "/usr/bin");
    });
  });
});

describe("terminal: output", () => {
  it("terminal: seq 1 200000 is fully accounted for", async () => {
    await withTerminal({ argv: ["seq", "1", "200000"] }, async (terminal) => {
      assert.deepEqual(await terminal.wait(), { exitCode: 0, signal: null });
      const expected = Array.from({ length: 200000 }, (_, i) => `${i + 1}\n`).join("");
      const { text, truncated } = terminal.output();
      assert.equal(truncated, false);
      assert.equal(text.length, expected.length);
      assert.equal(text, expected);
      assert.equal(terminal.lines().at(-1), "200000");
    });
  });

  it("terminal: the last bytes of a program that prints and exits at once are kept", async () => {
    for (let i = 0; i < 20; i++) {
      await withTerminal({ argv: ["printf", "last-%s", String(i)] }, async (terminal) => {
        await terminal.wait();
        assert.equal(terminal.output().text, `last-${i}`);
        assert.equal(terminal.screenText(), `last-${i}`);
      });
    }
  });

  it("terminal: a UTF-8 character split across reads survives", async () => {
    const script = "printf '\\344\\270'; sleep 0.1; printf '\\255 ok\\n'";
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      await terminal.wait();
      assert.equal(terminal.output().text, "中 ok\n");
      assert.equal(terminal.screenText(), "中 ok");
    });
  });

  it("terminal: dashes and curly quotes split after their second byte reach the screen and its waits", async () => {
    // xterm 6.0 dropped them (E2 80 | 94): the screen showed "xy q" while the text log had it all.
    const script = "printf 'x\\342\\200'; sleep 0.1; printf '\\224y \\342\\200\\234q\\342\\200'; " +
      "sleep 0.1; printf '\\235\\n'";
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      await terminal.waitForText("x—y “q”", 5000);
      await terminal.wait();
      assert.equal(terminal.output().text, "x—y “q”\n");
      assert.equal(terminal.screenText(), "x—y “q”");
    });
  });

  it("terminal: a snapshot taken in the middle of a character stands before it, so the bytes after rebuild it", async () => {
    const script = "printf 'x\\342\\200'; sleep 0.5; printf '\\224y\\n'";
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      await terminal.waitForText("x", 5000);
      await waitUntil(() => terminal.rawLog.totalBytes === 3);
      const shot = terminal.snapshot(100);
      assert.equal(shot.offset, 1);
      await terminal.wait();
      const viewer = new Emulator({ cols: shot.cols, rows: shot.rows, scrollback: 100 });
      viewer.write(shot.data);
      viewer.write(terminal.rawLog.since(shot.offset));
      assert.deepEqual(viewer.lines("all"), ["x—y"]);
      viewer.dispose();
    });
  });

  it("terminal: the text log drops from the front on a character boundary", async () => {
    await withTerminal(
      { argv: ["sh", "-c", "printf 'ééééé€€€😀😀end'"], outputLimit: 10 },
      async (terminal) => {
        await terminal.wait();
        const { text, truncated } = terminal.output();
        assert.equal(truncated, true);
        assert.equal(text, "😀end"); // 7 bytes: the cut fell inside the first 😀
      },
    );
  });

  it("terminal: control sequences are removed from the text but drawn on the screen", async () => {
    const script = "printf '\\033[31mred\\033[0m \\033]0;my title\\007plain\\r\\n'";
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      await terminal.wait();
      assert.equal(terminal.output().text, "red plain\n");
      assert.equal(terminal.screenText(), "red plain");
      assert.equal(terminal.screenshot().title, "my title");
    });
  });

  it("terminal: a lazy screen is built from the raw log on first use", async () => {
    await withTerminal({ argv: ["printf", "a\\nb\\n"], screen: "lazy" }, async (terminal) => {
      await terminal.wait();
      assert.deepEqual(terminal.lines(), ["a", "b"]);
    });
  });
});

describe("terminal: screen", () => {
  it("terminal: emoji and CJK take two cells each and read back without padding", async () => {
    await withTerminal({ argv: ["printf", "😀中x"], cols: 20 }, async (terminal) => {
      await terminal.wait();
      assert.equal(terminal.screenText(), "😀中x");
      assert.deepEqual(terminal.screenshot().cursor, { x: 5, y: 0 });
    });
  });

  it("terminal: an empty screen reads as (empty terminal)", async () => {
    await withTerminal({ argv: ["true"] }, async (terminal) => {
      await terminal.wait();
      assert.equal(terminal.screenText(), "(empty terminal)");
      assert.equal(terminal.screenshot().content, "(empty terminal)");
    });
  });

  it("terminal: soft-wrapped lines are joined on request", async () => {
    await withTerminal(
      { argv: ["printf", "%s", "abcdefghij klmnop"], cols: 10 },
      async (terminal) => {
        await terminal.wait();
        assert.deepEqual(terminal.lines(), ["abcdefghij", " klmnop"]);
        assert.deepEqual(terminal.lines({ joinWrapped: true }), ["abcdefghij klmnop"]);
      },
    );
  });

  it("terminal: visible scope leaves out the scrollback", async () => {
    await withTerminal({ argv: ["seq", "1", "30"], rows: 10 }, async (terminal) => {
      await terminal.wait();
      assert.equal(terminal.lines().length, 30);
      const visible = terminal.lines({ scope: "visible" });
      assert.equal(visible.at(-1), "30");
      assert.ok(visible.length <= 10);
    });
  });

  it("terminal: an alternate-screen program is reported as such", async () => {
    const script = "printf 'main\\033[?1049h\\033[Hin alt'; sleep 5";
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      await terminal.waitForText("in alt");
      const shot = terminal.screenshot();
      assert.equal(shot.altScreen, true);
      assert.equal(shot.content, "in alt");
      assert.deepEqual(shot.dimensions, { cols: 120, rows: 40 });
    });
  });

  it("terminal: clear empties screen and scrollback", async () => {
    await withTerminal({ argv: ["sh", "-c", "seq 1 100; sleep 5"] }, async (terminal) => {
      await terminal.waitForText("100");
      terminal.clear();
      assert.equal(terminal.screenText(), "(empty terminal)");
      assert.deepEqual(terminal.screenshot().cursor, { x: 0, y: 0 });
    });
  });
});

describe("terminal: process", () => {
  // What `ps` says of the program: its own session and group, the terminal's
  // foreground group, with the PTY as controlling terminal.
  const ROLE = "set -- $(ps -o pid=,sid=,pgid=,tpgid=,tty= -p $$); " +
    'echo "leads=$([ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$1" = "$4" ] && echo yes) tty=$5"';

  for (const stdin of ["terminal", "null"] as const) {
    it(`terminal: with stdin "${stdin}" the program leads a session on the PTY`, async () => {
      const script = `${ROLE}; [ -t 0 ] && echo in=tty || echo in=null; ` +
        `[ -t 1 ] && echo out=tty; [ "${stdin}" = terminal ] || cat; echo done`;
      await withTerminal({ argv: ["sh", "-c", script], stdin }, async (terminal) => {
        assert.deepEqual(await terminal.wait(), { exitCode: 0, signal: null });
        const text = terminal.output().text;
        assert.match(text, /^leads=yes tty=pts\/\d+$/m);
        assert.match(
          text,
          new RegExp(`^in=${stdin === "null" ? "null" : "tty"}\nout=tty\ndone$`, "m"),
        );
      });
    });
  }
});

describe("terminal: input", () => {
  it("terminal: Ctrl+C interrupts sleep in a shell with status 130", async () => {
    await withTerminal({ argv: BASH, env: bashEnv() }, async (terminal) => {
      await terminal.waitForText("tb$");
      // "42" on a line of its own is output, not the echo, and it comes from the
      // child that bash made the foreground group before it ran: a Ctrl+C sent
      // now reaches sleep. (Printed by bash itself, "42" could come before sleep
      // owns the terminal, and the Ctrl+C would be lost on bash.)
      terminal.type("sh -c 'echo $((6*7)); exec sleep 100'\r");
      await terminal.waitForText(/^42$/m);
      terminal.sendKeys("C-c");
      await terminal.waitForText(/^tb\$$/m); // The prompt is back on a line of its own.
      terminal.type("echo status=$?\r");
      await terminal.waitForText(/^status=130$/m);
    });
  });

  it("terminal: arrows follow the application cursor-key mode", async () => {
    // Reads raw bytes after switching DECCKM on, then off, and shows them in octal.
    const script = `stty raw -echo; printf '\\033[?1hready1\\r\\n'; head -c 3 | od -An -c; ` +
      `printf '\\033[?1lready2\\r\\n'; head -c 3 | od -An -c`;
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      await terminal.waitForText("ready1");
      terminal.sendKeys("ArrowUp");
      await terminal.waitForText("ready2");
      terminal.sendKeys("Up");
      await terminal.wait();
      const text = terminal.output().text.replace(/\s+/g, " ");
      assert.match(text, /ready1 033 O A .*ready2 033 \[ A/);
    });
  });

  it("terminal: vim receives arrows in its cursor-key mode and saves the edit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "termbridge-"));
    const file = join(dir, "lines.txt");
    writeFileSync(file, "one\ntwo\nthree\n");
    try {
      await withTerminal({ argv: ["vim", "-u", "NONE", "-N", "-n", file] }, async (terminal) => {
        await terminal.waitForText("three");
        await terminal.waitFor(() => terminal.screenshot().altScreen || undefined, "vim", 5000);
        terminal.sendKeys("ArrowDown", "ArrowDown");
        terminal.type("dd:wq");
        terminal.sendKeys("Enter");
        assert.deepEqual(await terminal.wait(), { exitCode: 0, signal: null });
      });
      assert.equal(readFileSync(file, "utf8"), "one\ntwo\n");
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("terminal: multi-line text is a bracketed paste when the program asked for it", async () => {
    const script = `stty raw -echo; printf '\\033[?2004hready\\r\\n'; head -c 15 | od -An -c`;
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      await terminal.waitForText("ready");
      terminal.type("a\nb");
      await terminal.wait();
      assert.match(
        terminal.output().text.replace(/\s+/g, " "),
        /033 \[ 2 0 0 ~ a \\n b 033 \[ 2 0 1 ~/,
      );
    });
  });

  it("terminal: an unknown key is an error naming it, and nothing is sent", async () => {
    await withTerminal({ argv: ["cat"] }, async (terminal) => {
      assert.throws(
        () => terminal.sendKeys("Enter", "Entr"),
        (error: unknown) =>
          error instanceof UnknownKeyError &&
          error.message.startsWith('Unknown key: "Entr". Available keys include: Enter, '),
      );
      terminal.type("x");
      await terminal.waitForText("x");
      assert.equal(terminal.output().text, "x");
    });
  });

  it("terminal: resize is seen by stty size", async () => {
    await withTerminal({ argv: BASH, env: bashEnv(), cols: 80, rows: 24 }, async (terminal) => {
      await terminal.waitForText("tb$");
      terminal.type("stty size\r");
      await terminal.waitForText("24 80");
      terminal.resize(100, 30);
      terminal.type("stty size\r");
      await terminal.waitForText("30 100");
      assert.deepEqual(terminal.screenshot().dimensions, { cols: 100, rows: 30 });
    });
  });
});

describe("terminal: lifecycle", () => {
  it("terminal: kill takes the whole process group, grandchildren included", async () => {
    const script = "sleep 100 & echo child=$!; sleep 100 & wait";
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      const text = await terminal.waitForText(/child=\d+/);
      const grandchild = Number(/child=(\d+)/.exec(text)![1]);
      assert.equal(isAlive(grandchild), true);
      assert.deepEqual(await terminal.kill(), { exitCode: null, signal: "SIGTERM" });
      await waitUntil(() => !isAlive(grandchild));
      assert.equal(terminal.output().text.includes("child="), true); // Still readable.
    });
  });

  it("terminal: kill escalates to SIGKILL when TERM is ignored", async () => {
    const script = "trap '' TERM; echo ready; while :; do sleep 1; done";
    await withTerminal({ argv: ["sh", "-c", script] }, async (terminal) => {
      await terminal.waitForText("ready");
      assert.deepEqual(await terminal.kill("SIGTERM", 200), { exitCode: null, signal: "SIGKILL" });
    });
  });

  it("terminal: dispose kills a running program and leaves it unusable", async () => {
    const terminal = Terminal.spawn({ argv: ["sleep", "100"] });
    const pid = terminal.pid;
    await terminal.dispose();
    assert.equal(isAlive(pid), false);
    assert.throws(() => terminal.type("x"), TerminalDisposedError);
    assert.throws(() => terminal.screenText(), /Terminal session has been disposed/);
  });

  it("terminal: a wait that times out shows the screen it saw", async () => {
    await withTerminal({ argv: ["sh", "-c", "echo visible; sleep 5"] }, async (terminal) => {
      await terminal.waitForText("visible");
      await assert.rejects(
        terminal.waitForText("never", 100),
        (error: unknown) =>
          error instanceof WaitTimeoutError && error.message.includes('"never"') &&
          error.screen === "visible",
      );
    });
  });
});

/** Polls a condition that no event announces (a process vanishing). */
async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
