/**
 * A fifth review's reports on how a typed line's program word becomes a
 * file, each reproduced through the built binary before the fix (touch ran
 * under deny touch): `..` after a symlinked working directory (`cd lnk` then
 * `../ls2`), `//dev/stdin` judged as termbridge's own standard input,
 * directory changes by zsh's `chdir` and by autocd, and bash's builtins that
 * zsh does not have (`help m` in zsh runs a file named help from PATH).
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, itWhen } from "../harness.ts";
import { inWorld } from "./_kit.ts";
import { type Attack, BUILD, DENY_TOUCH, describeAttacks, HAS_ZSH } from "./_attacks.ts";

const CASES: Attack[] = [
  {
    name: "../ from a symlinked working directory: the kernel's parent, not the lexical one",
    shell: "bash",
    files: { "X/real/.keep": "" },
    links: { "X/ls2": "/usr/bin/touch", "ls2": "/bin/true", "lnk": "X/real" },
    steps: [{ line: "cd lnk" }, { line: "../ls2 %M%" }],
  },
  {
    name: "//dev/stdin is the shell's standard input, not termbridge's",
    shell: "bash",
    steps: [{ line: "//dev/stdin %M% < /usr/bin/touch" }],
  },
  {
    name: "autocd: a directory named as a command changes into it",
    shell: "bash",
    links: { "d/inner/t2": "/usr/bin/touch", "inner/t2": "/bin/true" },
    steps: [{ line: "shopt -s autocd; d && ./inner/t2 %M%" }],
  },
  {
    name: "a function an earlier line defined changes directory",
    shell: "bash",
    links: { "d/inner/t2": "/usr/bin/touch", "inner/t2": "/bin/true" },
    steps: [{ line: 'f() { cd "$1"; }' }, { line: "f d; ./inner/t2 %M%" }],
  },
  {
    name: "chdir changes directory",
    shell: "zsh",
    links: { "d/inner/t2": "/usr/bin/touch", "inner/t2": "/bin/true" },
    steps: [{ line: "chdir d; ./inner/t2 %M%" }],
  },
  {
    name: "help is no builtin of zsh: a file named help on PATH runs",
    shell: "zsh",
    files: { ".zshrc": "PATH=$HOME/a:$PATH\n" },
    links: { "a/help": "/usr/bin/touch" },
    steps: [{ line: "help %M%" }],
  },
];

describeAttacks("session server: a typed line's program word and its file", CASES);

describe("session server: exec's check in a zsh session", () => {
  // exec judged the line with bash's builtins (help: no file) and the shell's own check took
  // that verdict: `exec help m` ran a/help, a link to touch. zsh's lines are judged as zsh's.
  itWhen(
    HAS_ZSH,
    "zsh: exec of a bash-only builtin's name is judged as the file it runs",
    () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const marker = join(world.dir, "m");
        mkdirSync(join(world.dir, "a"));
        symlinkSync("/usr/bin/touch", join(world.dir, "a", "help"));
        writeFileSync(join(world.dir, ".zshrc"), "PATH=$HOME/a:$PATH\n");
        await world.ok(["new", "s", "--", "zsh"]);
        const run = await world.tb(["exec", "s", `help ${marker}`]);
        assert.equal(existsSync(marker), false, run.stdout + run.stderr);
        assert.match(run.stdout + run.stderr, /Denied by policy/);
        // zsh's own builtins stay builtins.
        assert.equal(await world.ok(["exec", "s", "print ok; echo hi"]), "ok\nhi\n");
      }),
  );
});
