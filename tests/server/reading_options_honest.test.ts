/**
 * Sessions whose shell reads lines otherwise (interactive_comments off in
 * ~/.bashrc, brace_ccl on in ~/.zshrc) still run honest lines: a `#` or a
 * brace inside quotes is literal there too, and asking about the option is
 * not changing it. Each was asked about or refused before (a sixth-session
 * reviewer's f04 and f09, reproduced through the binary); the lines that
 * would read otherwise are still asked about (typed_line_review4).
 * @module
 */

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, itWhen } from "../harness.ts";
import { inWorld } from "./_kit.ts";
import { BUILD, DENY_TOUCH, HAS_ZSH } from "./_attacks.ts";

/** Lines run with `exec` in a session whose start-up file is `rc`; each must print `prints`. */
interface Honest {
  shell: "bash" | "zsh";
  rc: string;
  line: string;
  prints: string;
}

const CASES: Honest[] = [
  {
    shell: "bash",
    rc: "shopt -u interactive_comments",
    line: `echo "issue #12" '#13'`,
    prints: "issue #12 #13",
  },
  {
    shell: "bash",
    rc: "shopt -u interactive_comments",
    line: "shopt -p interactive_comments; shopt -q interactive_comments || echo off",
    prints: "shopt -u interactive_comments\noff",
  },
  {
    shell: "zsh",
    rc: "setopt braceccl",
    line: `echo ab | awk '{print $1 "{x}"}'; echo "{t}"`,
    prints: "ab{x}\n{t}",
  },
  {
    shell: "zsh",
    rc: "setopt braceccl",
    line: "[[ -o interactivecomments ]] && echo comments on",
    prints: "comments on",
  },
  {
    shell: "zsh",
    rc: "setopt braceccl",
    line: "setopt +o braceccl",
    prints: "",
  },
];

describe("session server: honest lines in shells that read lines otherwise", () => {
  for (const c of CASES) {
    itWhen(
      c.shell === "bash" || HAS_ZSH,
      `${c.shell} (${c.rc}): ${c.line}`,
      () =>
        inWorld(BUILD, async (world) => {
          world.configure(DENY_TOUCH);
          writeFileSync(join(world.dir, c.shell === "bash" ? ".bashrc" : ".zshrc"), `${c.rc}\n`);
          await world.ok(["new", "s", "--", c.shell]);
          const run = await world.tb(["exec", "s", c.line]);
          assert.equal(run.code, 0, `${run.stdout}${run.stderr}`);
          assert.equal(run.stdout.trim(), c.prints);
        }),
    );
  }
});
