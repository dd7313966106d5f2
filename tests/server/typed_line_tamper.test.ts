/**
 * A review's reports, each reproduced through the built binary before the
 * fix: lines and keys that made a line the policy refuses (`touch`) run
 * anyway, by changing the hook's state, the shell's reading of the line, or
 * by running the line (or its substitutions) without Enter. Each case sets
 * up, attacks, and the marker file the refused `touch` would make must not
 * exist.
 * @module
 */

import { type Attack, describeAttacks } from "./_attacks.ts";

const CASES: Attack[] = [
  {
    name: "a hook variable made read-only through a name built at run time",
    shell: "bash",
    steps: [{ line: "a=_; readonly $a${a}tb_verdict=allow" }, { line: "touch %M%" }],
  },
  {
    name: "a hook variable made read-only through a name built at run time",
    shell: "zsh",
    steps: [{ line: "a=_; typeset -gr $a${a}tb_verdict=allow" }, { line: "touch %M%" }],
  },
  {
    name: "the check function replaced through zsh's functions table",
    shell: "zsh",
    steps: [
      { line: 'a=_; functions[$a${a}termbridge_ask]="return 40"' },
      { line: "touch %M%" },
    ],
  },
  {
    name: "# read as a comment by the check but not by the shell",
    shell: "zsh",
    steps: [{ line: "echo # ; touch %M%" }],
  },
  {
    name: "# read as a comment by the check but not by the shell",
    shell: "bash",
    steps: [{ line: "shopt -u interactive_comments" }, { line: "echo # ; touch %M%" }],
  },
  {
    name: "history quick substitution (^old^new) of a refused line",
    shell: "bash",
    steps: [{ line: "touch %M%.0" }, { line: "^.0^" }],
  },
  {
    name: "history quick substitution (^old^new) of a refused line",
    shell: "zsh",
    steps: [{ line: "touch %M%.0" }, { line: "^.0^" }],
  },
  {
    name: "an alias that opens a quote makes the line look unfinished",
    shell: "bash",
    setup: [`alias q='echo "'`],
    steps: [{ line: 'q "; touch %M%' }],
  },
  {
    name: "Esc-1 Esc-# (insert-comment with an argument) runs the line",
    shell: "bash",
    steps: [{ keys: "#touch %M%" }, { keys: "\x1b1\x1b#" }],
  },
  {
    name: "Esc Ctrl+E (shell-expand-line) runs the line's substitutions",
    shell: "bash",
    steps: [{ keys: "echo $(touch %M%)" }, { keys: "\x1b\x05" }],
  },
  {
    name: "Tab (expand-or-complete) runs the line's substitutions",
    shell: "zsh",
    steps: [{ keys: "echo $(touch %M%)" }, { keys: "\t" }],
  },
  {
    // The earlier lines of a continued command were a shell variable: arithmetic through a
    // computed name, run after the prompt hook, put "5" before the next line ("5touch ...").
    name: "the continued-command state poisoned after the prompt (PROMPT_COMMAND)",
    shell: "bash",
    steps: [
      { line: "n=__t; n+=b_pending" },
      { line: "PROMPT_COMMAND[10]='(( $n = 5 ))'" },
      { line: "touch %M%" },
    ],
  },
  {
    name: "the continued-command state poisoned by a DEBUG trap",
    shell: "zsh",
    steps: [
      { line: "n=__t; n+=b_pending" },
      { line: "trap '(( $n = 5 ))' DEBUG" },
      { line: "touch %M%" },
    ],
  },
  {
    name: "Esc-h (run-help) accepts a line of its own",
    shell: "zsh",
    setup: ["alias run-help='touch %M% #'"],
    steps: [{ keys: "ls" }, { keys: "\x1bh" }],
  },
  {
    name: "Enter in an incremental search (Ctrl+R) runs the line it found",
    shell: "zsh",
    steps: [{ line: "touch %M%" }, { keys: "\x12touch" }, { keys: "\r" }],
  },
  {
    name: "SRANDOM made a name for the seeded RANDOM",
    shell: "bash",
    says: /it sets a variable whose name is known only when the line runs, or a nameref/,
    steps: [{ line: "unset SRANDOM; declare -n SRANDOM=RANDOM; RANDOM=7" }, {
      line: "touch %M%",
    }],
  },
];

describeAttacks(
  "session server: lines and keys that would get a refused line past the check",
  CASES,
);
