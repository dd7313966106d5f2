/**
 * A fifth review's reports on the typed-line check, each reproduced through
 * the built binary before the fix: the check lives in the shell's line
 * editor, and a session whose editor was off (`bash --noediting`, `zsh +Z`,
 * a line `unsetopt zle`) ran every typed line unchecked; a key an inputrc or
 * a .zshrc bound to accept-line itself ran a line unchecked; a request's env
 * gave the session's shell another HOME (its start-up files ran unchecked)
 * or an INPUTRC, or named the rc termbridge's start-up file sources.
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, itWhen } from "../harness.ts";
import { inWorld } from "./_kit.ts";
import { type Attack, BUILD, DENY_TOUCH, describeAttacks, HAS_ZSH } from "./_attacks.ts";

const CASES: Attack[] = [
  {
    name: "a session opened with --noediting",
    shell: "bash",
    args: ["--noediting"],
    steps: [{ line: "touch %M%" }],
    says: /Denied by policy/,
  },
  {
    name: "a session opened with +o emacs",
    shell: "bash",
    args: ["+o", "emacs"],
    steps: [{ line: "touch %M%" }],
    says: /Denied by policy/,
  },
  {
    name: "a session opened with +Z",
    shell: "zsh",
    args: ["+Z"],
    steps: [{ line: "touch %M%" }],
    says: /Denied by policy/,
  },
  {
    name: "a session opened with -o no_zle",
    shell: "zsh",
    args: ["-o", "no_zle"],
    steps: [{ line: "touch %M%" }],
    says: /Denied by policy/,
  },
  {
    name: "~/.bashrc turns readline off",
    shell: "bash",
    files: { ".bashrc": "set +o emacs\n" },
    steps: [{ line: "touch %M%" }],
    says: /Denied by policy/,
  },
  {
    name: "a line turns readline off",
    shell: "bash",
    steps: [{ line: "set +o emacs" }, { line: "touch %M%" }],
    says: /line editor/,
  },
  {
    name: "a line turns ZLE off",
    shell: "zsh",
    steps: [{ line: "unsetopt zle" }, { line: "touch %M%" }],
    says: /line editor/,
  },
  {
    // The prompt hook that ends a shell without readline removed first, then the option spelt
    // in pieces.
    name: "a line turns readline off after PROMPT_COMMAND was unset",
    shell: "bash",
    // (Keys: without PROMPT_COMMAND there is no prompt mark to wait for.)
    steps: [
      { keys: "unset PROMPT_COMMAND\r" },
      { keys: "set +o 'em'acs\r" },
      { keys: "touch %M%\r" },
    ],
  },
  {
    name: "a function of ~/.zshrc turns ZLE off (it is turned back on before the prompt)",
    shell: "zsh",
    files: { ".zshrc": "f() { unsetopt zle; }\n" },
    steps: [{ line: "f" }, { line: "touch %M%" }],
    says: /Denied by policy/,
  },
  {
    name: "~/.inputrc binds Esc-z to accept-line",
    shell: "bash",
    files: { ".inputrc": '"\\ez": accept-line\n"\\C-xq": accept-line\n' },
    steps: [{ keys: "touch %M%\x1bz" }, { keys: "\x15touch %M%\x18q" }],
  },
  {
    name: "~/.zshrc binds Esc-z to .accept-line",
    shell: "zsh",
    files: { ".zshrc": "bindkey '^[z' .accept-line\nbindkey -M viins '^X' .accept-and-hold\n" },
    steps: [{ keys: "touch %M%\x1bz" }],
  },
];

describeAttacks("session server: the line editor the typed-line check lives in", CASES);

describe("session server: the hooks start quietly", () => {
  for (const shell of ["bash", "zsh"] as const) {
    itWhen(
      shell === "bash" || HAS_ZSH,
      `${shell}: no error on the screen at start`,
      () =>
        inWorld(BUILD, async (world) => {
          world.configure(DENY_TOUCH);
          await world.ok(["new", "s", "--", shell]);
          const screen = await world.ok(["screen", "s", "--logical"]);
          assert.doesNotMatch(screen, /bindkey|bind:|zle|protected|warning|not found/, screen);
        }),
    );
  }
});

describe("session server: a line editor turned off where no line shows it", () => {
  // A function of ~/.bashrc turns readline off: bash cannot turn it back on before the next
  // read (set -o emacs in PROMPT_COMMAND leaves bash reading without it), so the shell ends.
  itWhen(
    true,
    "bash: the shell ends instead of reading a line unchecked",
    () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const marker = join(world.dir, "m");
        writeFileSync(join(world.dir, ".bashrc"), "f() { set +o emacs; }\n");
        await world.ok(["new", "s", "--", "bash"]);
        await world.ok(["type", "s", "--", "f\r"]);
        await new Promise((resolve) => setTimeout(resolve, 500));
        await world.tb(["type", "s", "--", `touch ${marker}\r`]);
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(existsSync(marker), false);
        const list = await world.ok(["ls", "--json"]);
        const [session] = JSON.parse(list).sessions;
        assert.equal(session.exitStatus?.exitCode, 126, list);
      }),
  );
});

describe("session server: a request's environment for a shell session", () => {
  itWhen(
    true,
    "bash: a HOME other than termbridge's is asked about",
    () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const marker = join(world.dir, "m");
        const home = join(world.dir, "h");
        mkdirSync(home);
        writeFileSync(join(home, ".bashrc"), `touch ${marker}\n`);
        const run = await world.tb(["new", "s", "--env", `HOME=${home}`, "--", "bash"]);
        assert.equal(run.code, 123, run.stderr);
        assert.match(run.stderr, /the request sets HOME/);
        assert.equal(existsSync(marker), false);
        // termbridge's own HOME is no change, however it is spelt.
        await world.ok(["new", "t", "--env", `HOME=${world.dir}`, "--", "bash"]);
        await world.ok(["new", "u", "--env", `HOME=${world.dir}/h/..//`, "--", "bash"]);
      }),
  );

  itWhen(
    HAS_ZSH,
    "zsh: a HOME other than termbridge's is asked about",
    () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const marker = join(world.dir, "m");
        const home = join(world.dir, "h");
        mkdirSync(home);
        writeFileSync(join(home, ".zshrc"), `touch ${marker}\n`);
        const run = await world.tb(["new", "s", "--env", `HOME=${home}`, "--", "zsh"]);
        assert.equal(run.code, 123, run.stderr);
        assert.equal(existsSync(marker), false);
      }),
  );

  itWhen(true, "bash: INPUTRC is asked about", () =>
    inWorld(BUILD, async (world) => {
      world.configure(DENY_TOUCH);
      writeFileSync(join(world.dir, "keys"), '"\\ez": accept-line\n');
      const run = await world.tb(["new", "s", "--env", `INPUTRC=${join(world.dir, "keys")}`]);
      assert.equal(run.code, 123, run.stderr);
      assert.match(run.stderr, /INPUTRC/);
    }));

  for (
    const [shell, name, file] of [
      ["bash", "TERMBRIDGE_USER_RC", "rc"],
      ["zsh", "TERMBRIDGE_USER_ZDOTDIR", "."],
    ] as const
  ) {
    itWhen(
      shell === "bash" || HAS_ZSH,
      `${shell}: ${name} names no start-up file`,
      () =>
        inWorld(BUILD, async (world) => {
          world.configure(DENY_TOUCH);
          const marker = join(world.dir, "m");
          const dir = join(world.dir, "d");
          mkdirSync(dir);
          writeFileSync(join(dir, file === "." ? ".zshrc" : file), `touch ${marker}\n`);
          const value = file === "." ? dir : join(dir, file);
          await world.ok(["new", "s", "--env", `${name}=${value}`, "--", shell]);
          assert.equal(existsSync(marker), false);
        }),
    );
  }
});
