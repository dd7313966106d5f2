/**
 * Completions and the man page are generated from help texts: what a help
 * text lists is what gets completed, new modes and subcommands included.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { bashCompletion, manPage, roffText } from "../../lib/cli/docs.ts";
import { type CliSpec, modeSpec, parseModes, parseOptions } from "../../lib/cli/help_spec.ts";
import { SUBCOMMAND_HELP } from "../../lib/cli/server_commands.ts";
import { helpText, MODES } from "../../lib/cli/usage.ts";

describe("cli docs", () => {
  it("cli docs: the modes of the top-level help are MODES, then the server commands, in order", () => {
    assert.deepEqual(parseModes(helpText()), [
      ...MODES.map(({ name, summary }) => ({ name, summary })),
      ...Object.entries(SUBCOMMAND_HELP).map(([name, { summary }]) => ({ name, summary })),
    ]);
  });

  it("cli docs: a section of commands added to the top-level help is picked up", () => {
    const help =
      `termbridge 9: x\n\nUsage:\n  termbridge new [NAME]\n\nModes:\n  acp     run an agent\n\n` +
      `Server commands:\n  new         open a session\n  kill-server  stop the server\n\nRun it.\n`;
    assert.deepEqual(parseModes(help).map((mode) => mode.name), ["acp", "new", "kill-server"]);
  });

  const table: [string, { names: string[]; value: string; kind: string }[]][] = [
    ["  -p, --prompt TEXT      send TEXT", [{
      names: ["-p", "--prompt"],
      value: "TEXT",
      kind: "text",
    }]],
    ["      --cwd DIR          the directory", [{
      names: ["--cwd"],
      value: "DIR",
      kind: "directory",
    }]],
    ["  --cols N, --rows N     size", [
      { names: ["--cols"], value: "N", kind: "text" },
      { names: ["--rows"], value: "N", kind: "text" },
    ]],
    ["  -h, --help             show this help", [{
      names: ["-h", "--help"],
      value: "",
      kind: "none",
    }]],
    ["  --config FILE          a file", [{ names: ["--config"], value: "FILE", kind: "file" }]],
    ["  --shell PROGRAM        program", [{
      names: ["--shell"],
      value: "PROGRAM",
      kind: "command",
    }]],
    ["Runs --prompt in prose: not an option line", []],
  ];
  for (const [line, expected] of table) {
    it(`cli docs: option line ${JSON.stringify(line.trim())}`, () => {
      const found = parseOptions(line).map(({ names, value, kind }) => ({ names, value, kind }));
      assert.deepEqual(found, expected);
    });
  }

  it("cli docs: examples are not usage; options shown only in usage lines are options", () => {
    const help = "Usage: termbridge exec NAME [--timeout S] COMMAND...\n\nRuns it.\n\n" +
      "Examples:\n  termbridge exec build make test\n\nOptions:\n  --json   as JSON\n";
    const exec = modeSpec("exec", "run", help);
    assert.deepEqual(exec.subcommands, []);
    assert.deepEqual(exec.options.map((option) => [option.names, option.value]), [
      [["--json"], ""],
      [["--timeout"], "S"],
    ]);
  });

  it("cli docs: usage lines give a mode's subcommands and what its other words are", () => {
    const policy = modeSpec(
      "policy",
      "check commands",
      "Usage: termbridge policy check [OPTIONS] COMMAND\n",
    );
    assert.deepEqual(policy.subcommands, ["check"]);
    assert.equal(
      modeSpec("acp", "", "Usage: termbridge acp [OPTIONS] -- AGENT [ARGS...]\n").positional,
      "command",
    );
    assert.equal(
      modeSpec("run", "", "Usage: termbridge run [OPTIONS] SCRIPT|-\n").positional,
      "file",
    );
    assert.equal(modeSpec("serve", "", "Usage: termbridge serve [OPTIONS]\n").positional, "none");
  });

  it("cli docs: bash completion offers a new subcommand; roff escapes dashes, backslashes and leading dots", () => {
    const spec: CliSpec = {
      version: "9",
      tagline: "x",
      keys: [],
      help: "termbridge 9: x\n",
      modes: [
        modeSpec("policy", "check", "Usage: termbridge policy check COMMAND\n  --json  as JSON\n"),
      ],
    };
    assert.match(bashCompletion(spec), /compgen -W "check"/);
    assert.match(bashCompletion(spec), /compgen -W "--json"/);
    assert.equal(roffText(".hidden \\n --x"), "\\&.hidden \\en \\-\\-x");
    assert.match(manPage(spec), /^\.SS "termbridge policy"$/m);
  });
});
