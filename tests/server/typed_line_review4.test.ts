/**
 * A fourth review's reports, each reproduced through the built binary before
 * the fix: lines and keys that made a line the policy refuses (`touch`) run
 * anyway. A line answered "more" was accepted by the shell unchecked when the
 * shell read it as complete; options and variables a line set broke zsh's
 * check open; history expanded twice; keys and traps ran or skipped around
 * the check. Each case sets up, attacks, and the marker file the refused
 * `touch` would make must not exist. Also state an earlier line (or the
 * user's start-up file) left in the shell: HOME moved, bash's keyword option,
 * interactive_comments off, zsh's brace_ccl on.
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, itWhen } from "../harness.ts";
import { inWorld } from "./_kit.ts";
import { type Attack, BUILD, DENY_TOUCH, describeAttacks, HAS_ZSH } from "./_attacks.ts";

const CASES: Attack[] = [
  {
    name: "an alias opening a quote, named again as an argument (checker: unfinished)",
    shell: "bash",
    steps: [{ line: `alias x='echo "'` }, { line: 'x "; touch %M%; echo x' }],
  },
  {
    name: "an alias opening a quote, named again as an argument (checker: unfinished)",
    shell: "zsh",
    steps: [{ line: `alias x='echo "'` }, { line: 'x "; touch %M%; echo x' }],
  },
  {
    name: "a quoted here-document delimiter ending in a backslash",
    shell: "bash",
    steps: [{ keys: "cat <<'X\\'; touch %M%\r" }, { line: "X\\" }],
  },
  {
    name: "a quoted here-document delimiter ending in a backslash",
    shell: "zsh",
    steps: [{ keys: "cat <<'X\\'; touch %M%\r" }, { line: "X\\" }],
  },
  {
    name: "a line bash reads as complete only with extglob",
    shell: "bash",
    steps: [{ line: "shopt -s extglob" }, { line: "touch %M%; @(${)" }],
  },
  {
    name: "BASH set: zsh's lines judged by bash's parser",
    shell: "zsh",
    steps: [{ line: "BASH=/usr/bin/bash" }, { line: "touch %M%; echo $(( '1 ))" }],
  },
  {
    name: "a history expansion that expands again when accept-line expands it",
    shell: "zsh",
    steps: [{ line: "touch %M%" }, { line: ": '!touch'" }, { line: "!!:1:Q" }],
  },
  {
    name: "no_unset (and PWD unset) breaks the check half-way",
    shell: "zsh",
    // (Keys, not lines: before the fix the prompt hook failed too, so no prompt came back.)
    steps: [{ keys: "unset -m 'P?D'; setopt no_unset\r" }, { keys: "touch %M%\r" }],
  },
  {
    name: "a hook variable made read-only by a name pattern (typeset -m)",
    shell: "zsh",
    steps: [{ line: "typeset -gr -m '_?tb_why'" }, { line: "touch %M%" }],
  },
  {
    // glob_subst globs the random bytes the check reads: about one line in three failed open.
    name: "glob_subst in an empty directory",
    shell: "zsh",
    steps: [
      { line: "mkdir -p %M%.d && cd %M%.d && setopt glob_subst" },
      ...Array.from({ length: 8 }, () => ({ line: "touch %M%" })),
    ],
  },
  {
    name: "extdebug: a failing DEBUG trap skips the check's refusal",
    shell: "bash",
    steps: [
      { line: "shopt -s extdebug" },
      { line: "trap '[[ $BASH_COMMAND != *refused\\ * ]]' DEBUG" },
      { line: "touch %M%" },
    ],
  },
  {
    name: "a DEBUG trap that sets err_exit skips the check's refusal",
    shell: "zsh",
    steps: [
      { line: "trap '[[ $ZSH_DEBUG_CMD == BUFFER=*refused* ]] && setopt err_exit' DEBUG" },
      { line: "touch %M%" },
    ],
  },
  {
    name: "vi's # (vi-pound-insert) accepts the line itself",
    shell: "zsh",
    steps: [{ line: "set -o vi" }, { keys: "#touch %M%" }, { keys: "\x1b" }, { keys: "#" }],
  },
  {
    name: "vi's v (vi-edit-and-execute-command) runs the line",
    shell: "bash",
    steps: [
      { line: "set -o vi" },
      { line: "EDITOR=true VISUAL=true" },
      { keys: "touch %M%" },
      { keys: "\x1b" },
      { keys: "v" },
    ],
  },
  {
    name: "Ctrl+X Ctrl+R re-reads ~/.inputrc, which binds Enter to accept-line",
    shell: "bash",
    files: { ".inputrc": "set bell-style none\n" },
    steps: [
      { line: `printf '%s\\n' '"\\C-m": accept-line' >> ~/.inputrc` },
      { keys: "\x18\x12" },
      { line: "touch %M%" },
    ],
  },
  {
    name: "spelling correction (setopt correct) changes the line after the check",
    shell: "zsh",
    steps: [{ line: "setopt correct" }, { keys: "tuoch %M%\r" }, { keys: "y" }],
  },
  {
    name: "a function of the user's rebinds accept-line to .accept-line",
    shell: "zsh",
    files: { ".zshrc": "rw() { zle -A .accept-line accept-line; }\n" },
    steps: [{ line: "rw" }, { line: "touch %M%" }],
  },
  {
    name: "a function of the user's puts back the unwrapped completion widget",
    shell: "zsh",
    files: { ".zshrc": "rx() { zle -A .expand-or-complete expand-or-complete; }\n" },
    steps: [{ line: "rx" }, { keys: "echo $(touch %M%)" }, { keys: "\t" }],
  },
  {
    name: "precmd_functions emptied, then a function of the user's rebinds accept-line",
    shell: "zsh",
    files: { ".zshrc": "rw() { zle -A .accept-line accept-line; }\n" },
    steps: [{ keys: "precmd_functions=()\r" }, { keys: "rw\r" }, { keys: "touch %M%\r" }],
  },
  // State an earlier line left in the shell: the hook sends HOME and bash's option letters.
  {
    name: "HOME moved by an earlier line, then a shell that reads its start-up files",
    shell: "bash",
    files: { "elsewhere/.bashrc": "touch %M%\n" },
    steps: [{ line: "HOME=$PWD/elsewhere" }, { line: "/bin/bash -ic true" }],
  },
  {
    name: "HOME moved by an earlier line, then a shell that reads its start-up files",
    shell: "zsh",
    files: { "elsewhere/.zshenv": "touch %M%\n" },
    steps: [{ line: "HOME=$PWD/elsewhere" }, { line: "/usr/bin/zsh -c true" }],
  },
  {
    name: "the keyword option on (from ~/.bashrc): ls PATH=DIR finds ls in DIR",
    shell: "bash",
    files: { ".bashrc": "set -k\n" },
    links: { "elsewhere/ls": "/usr/bin/touch" },
    steps: [{ line: "ls PATH=$PWD/elsewhere %M%" }],
  },
  // Options that change how lines are read, set where no line check saw them (the user's start-up
  // file): the hook sends them with each line, and the policy asks about lines they make unknown.
  {
    name: "interactive_comments off (from ~/.bashrc): what follows a # runs",
    shell: "bash",
    files: { ".bashrc": "shopt -u interactive_comments\n" },
    steps: [{ line: "echo hi #; touch %M%" }],
  },
  // A reviewer's f08, f06, f02 of the sixth session, through a session's shell.
  {
    name: "a wrapper's word that vanishes: env -u $x with x empty",
    shell: "bash",
    steps: [{ line: "env -u $x echo touch %M%" }],
  },
  {
    name: "a wrapper's word that vanishes: env -u $x with x empty",
    shell: "zsh",
    steps: [{ line: "env -u $x echo touch %M%" }],
  },
  {
    name: "nullglob on (from ~/.bashrc): an unmatched glob vanishes",
    shell: "bash",
    files: { ".bashrc": "shopt -s nullglob\n" },
    steps: [{ line: "env -u [q] echo touch %M%" }],
  },
  {
    name: "brace_ccl turned on with the name attached to -o",
    shell: "zsh",
    steps: [{ line: "set -obraceccl; env {t}ouch %M%" }],
  },
  {
    name: "brace_ccl on (from ~/.zshrc): {t}ouch is touch",
    shell: "zsh",
    files: { ".zshrc": "setopt braceccl\n" },
    steps: [{ line: "env {t}ouch %M%" }],
  },
];

describeAttacks("session server: a fourth review of the typed-line check", CASES);

describe("session server: bash's accept key, printed by a line", () => {
  // The macro's second key is in a shell variable (the check rebinds it), which `set` prints:
  // typed on its own after the text, it must not run the line (it did, unchecked, once it was
  // left bound to accept-line between lines).
  itWhen(
    true,
    "bash: the accept key pressed without the check does nothing",
    () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const marker = join(world.dir, "m");
        const keys = join(world.dir, "keys");
        await world.ok(["new", "s"]);
        await world.ok(["exec", "s", `set | grep -a '_k2=' > ${keys}`]);
        const spec = /_k2='(.*)'$/m.exec(readFileSync(keys, "utf8"))?.[1];
        assert.ok(spec !== undefined, "the accept key's name is in __tb_k2");
        const bytes = spec.replace("\\C-x", "\x18").replace("\\C-_", "\x1f");
        await world.ok(["type", "s", "--", `touch ${marker}`]);
        await world.ok(["type", "s", "--", bytes]);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const screen = await world.ok(["screen", "s", "--logical"]);
        assert.equal(existsSync(marker), false, screen);
        // Enter still runs the line through the check, which refuses it.
        await world.ok(["key", "s", "Enter"]);
        await world.ok(["wait", "s", "prompt", "--timeout", "10"]);
        assert.equal(existsSync(marker), false, await world.ok(["screen", "s", "--logical"]));
      }),
  );
});

describe("session server: $PWD set by a line", () => {
  // The hook sent $PWD as the directory paths are judged from; a line can set it
  // (PWD=/elsewhere), and `./t` was then judged as the harmless file of that name there.
  for (const shell of ["bash", "zsh"] as const) {
    itWhen(
      shell === "bash" || HAS_ZSH,
      `${shell}: a program run by a relative path is judged where the shell really is`,
      () =>
        inWorld(BUILD, async (world) => {
          world.configure(DENY_TOUCH);
          const marker = join(world.dir, "m");
          const real = join(world.dir, "real");
          const decoy = join(world.dir, "decoy");
          mkdirSync(real);
          mkdirSync(decoy);
          symlinkSync("/usr/bin/touch", join(real, "t"));
          writeFileSync(join(decoy, "t"), "#!/bin/sh\n", { mode: 0o755 });
          await world.ok(["new", "s", "--", shell]);
          for (const line of [`cd ${real}`, `PWD=${decoy}`, `./t ${marker}`]) {
            await world.ok(["type", "s", "--", line]);
            await world.ok(["key", "s", "Enter"]);
            await world.ok(["wait", "s", "prompt", "--timeout", "10"]);
          }
          const screen = await world.ok(["screen", "s", "--logical"]);
          assert.equal(existsSync(marker), false, screen);
          assert.match(screen, /Denied by policy/);
        }),
    );
  }
});

describe("session server: options the user's ~/.bashrc sets", () => {
  // Under `set -k` the hooks' own `local x=$?` became environments: every line, `echo hi`
  // included, failed with "return: : numeric argument required". Under `set -e` the check's
  // "run it" status (40) ended the shell. Both run the hooks with those options off now.
  for (const option of ["set -k", "set -e"]) {
    itWhen(
      true,
      `bash: "${option}" in ~/.bashrc leaves lines working`,
      () =>
        inWorld(BUILD, async (world) => {
          world.configure(DENY_TOUCH);
          writeFileSync(join(world.dir, ".bashrc"), `${option}\n`);
          await world.ok(["new", "s", "--", "bash"]);
          assert.equal(await world.ok(["exec", "s", "echo hi there"]), "hi there\n");
          assert.equal(await world.ok(["exec", "s", "echo again"]), "again\n");
          // The shell's own options stay as the user set them.
          assert.match(await world.ok(["exec", "s", "echo $-"]), option === "set -k" ? /k/ : /e/);
        }),
    );
  }
});
