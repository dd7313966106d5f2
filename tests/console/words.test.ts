import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { CommandError } from "../../lib/console/errors.ts";
import { displayWidth, frame } from "../../lib/console/frame.ts";
import { overview } from "../../lib/console/help.ts";
import { COMMANDS, findCommand } from "../../lib/console/table.ts";
import {
  closest,
  parseArgs,
  parseDuration,
  parsePattern,
  parseSize,
} from "../../lib/console/words.ts";

function throwsCommandError(body: () => unknown, message: RegExp): void {
  assert.throws(body, (error: unknown) => {
    assert.ok(error instanceof CommandError, `expected a CommandError, got ${error}`);
    assert.match(error.message, message);
    return true;
  });
}

describe("console: words", () => {
  const durations: [string, "s" | "ms", number][] = [
    ["5", "s", 5000],
    ["2.5", "s", 2500],
    [".5", "s", 500],
    ["500ms", "s", 500],
    ["1m", "s", 60_000],
    ["200", "ms", 200],
    ["2s", "ms", 2000],
    ["0", "ms", 0],
  ];
  for (const [text, unit, ms] of durations) {
    it(`words: duration ${JSON.stringify(text)} in ${unit} is ${ms} ms`, () => {
      assert.equal(parseDuration(text, unit, "--timeout"), ms);
    });
  }

  it("words: a bad duration says what would be right", () => {
    throwsCommandError(
      () => parseDuration("soon", "s", "--timeout"),
      /^Cannot read --timeout "soon": expected a number of seconds such as "5"/,
    );
    throwsCommandError(() => parseDuration("-1", "ms", "sleep time"), /milliseconds/);
  });

  it("words: sizes are COLSxROWS within bounds", () => {
    assert.deepEqual(parseSize("80x24"), { cols: 80, rows: 24 });
    assert.deepEqual(parseSize("100X30"), { cols: 100, rows: 30 });
    for (const bad of ["80", "80x", "1x1", "80x0", "2000x10", "a x b"]) {
      throwsCommandError(() => parseSize(bad), /expected COLSxROWS such as "80x24"/);
    }
  });

  it("words: /.../ is a regex, anything else text", () => {
    assert.deepEqual(parsePattern("ready"), { text: "ready" });
    assert.deepEqual(parsePattern("/\\d+ ms/"), { regex: "\\d+ ms" });
    assert.deepEqual(parsePattern("/"), { text: "/" });
    throwsCommandError(() => parsePattern("/(/"), /^Cannot use \/\(\/: /);
    throwsCommandError(() => parsePattern(""), /empty text/);
  });

  it("words: options anywhere before --, values inline or next, lists repeat", () => {
    const spec = {
      options: { cwd: "value", all: "flag", env: "list" } as const,
      rest: true,
    };
    const parsed = parseArgs("open", [
      "a",
      "--cwd",
      "/tmp",
      "--all",
      "--env=A=1",
      "--env",
      "B=2",
      "--",
      "vim",
      "--cwd",
    ], spec);
    assert.deepEqual(parsed, {
      options: { cwd: "/tmp", all: true, env: ["A=1", "B=2"] },
      positionals: ["a"],
      rest: ["vim", "--cwd"],
    });
    throwsCommandError(
      () => parseArgs("open", ["--cwdd", "x"], spec),
      /^Unknown option "--cwdd" for "open": expected --cwd, --all, --env; did you mean "--cwd"\?/,
    );
    throwsCommandError(() => parseArgs("open", ["--cwd"], spec), /needs a value/);
    throwsCommandError(() => parseArgs("open", ["--all=yes"], spec), /takes no value/);
  });

  it("words: closest finds typos and prefixes, not unrelated words", () => {
    const names = COMMANDS.map((c) => c.name);
    assert.equal(closest("scren", names), "screen");
    assert.equal(closest("exce", names), "exec");
    assert.equal(closest("expct-exit", names), "expect-exit");
    assert.equal(closest("resi", names), "resize");
    assert.equal(closest("zzzzzz", names), undefined);
  });
});

describe("console: frame", () => {
  it("frame: boxes the screen as wide as the terminal and marks the cursor with █", () => {
    const text = frame(
      { lines: ["$ ls", "a  b"], cols: 8, rows: 4, cursor: { x: 2, y: 2 }, label: "main" },
      false,
    );
    assert.equal(
      text,
      [
        "┌─ main ─┐",
        "│$ ls    │",
        "│a  b    │",
        "│  █     │",
        "└─ 1 bla…┘",
      ].join("\n"),
    );
  });

  it("frame: styled, the cursor cell is in reverse video", () => {
    const text = frame(
      { lines: ["abc"], cols: 4, rows: 1, cursor: { x: 1, y: 0 }, label: "" },
      true,
    );
    assert.equal(text.split("\n")[1], "│a\x1b[7mb\x1b[27mc │");
  });

  it("frame: wide characters take two cells", () => {
    assert.equal(displayWidth("日本"), 4);
    assert.equal(displayWidth("a😀"), 3);
    assert.equal(displayWidth("é"), 1);
    const text = frame(
      { lines: ["日本"], cols: 6, rows: 1, cursor: { x: 2, y: 0 }, label: "" },
      false,
    );
    assert.equal(text.split("\n")[1], "│日█   │");
  });
});

describe("console: command table", () => {
  it("table: every command has a name, usage starting with it, a summary and help", () => {
    for (const command of COMMANDS) {
      assert.ok(command.usage.startsWith(command.name), command.name);
      assert.ok(command.summary.length > 10 && command.help.length > 20, command.name);
      for (const alias of command.aliases) assert.equal(findCommand(alias), command);
    }
  });

  it("table: help lists every command, with the REPL-only ones only in the REPL", () => {
    const repl = overview(COMMANDS, "repl");
    const script = overview(COMMANDS, "script");
    for (const command of COMMANDS) {
      assert.ok(repl.includes(`  ${command.name}`), command.name);
      assert.equal(script.includes(`  ${command.name}`), command.only !== "repl", command.name);
    }
  });
});
