/**
 * The tampering rules of the typed-line check, line by line: traps and
 * options that run around the check's own commands, and name patterns, are
 * refused; lines that only look alike are not.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { tampersWithCheck } from "../../lib/sessions/line_tampering.ts";
import type { TypedLine } from "../../lib/sessions/typed_lines.ts";

function typed(shell: "bash" | "zsh", line: string): TypedLine {
  return {
    line,
    cwd: "/tmp",
    path: "/usr/bin:/bin",
    aliases: {},
    globalAliases: {},
    suffixAliases: {},
    shell,
    home: "/root",
    keyword: false,
    braceCcl: false,
    commentsOff: false,
  };
}

const REFUSED: ["bash" | "zsh", string][] = [
  ["bash", "shopt -s extdebug"],
  ["bash", "shopt -s checkwinsize extdebug"],
  ["bash", "set -T"],
  ["bash", "set -eT"],
  ["bash", "set -o functrace"],
  ["bash", "shopt -os functrace"],
  ["bash", "trap 'false' DEBUG"],
  ["bash", "builtin trap -- 'x=1' RETURN"],
  ["bash", "trap 'x' INT ERR"],
  ["bash", 'trap "x" $s'],
  ["bash", "declare -ft f"],
  ["zsh", "trap 'setopt err_exit' DEBUG"],
  ["zsh", "trap 'x' ZERR"],
  ["zsh", "TRAPDEBUG() { setopt err_exit; }"],
  ["zsh", "function TRAPZERR { :; }"],
  ["zsh", "typeset -gr -m '_?tb_why'"],
  ["zsh", "unset -m 'P?D'"],
  ["zsh", "readonly -m 'x*'"],
  // The line editor turned off: the check lives in it (a fifth review).
  ["bash", "set +o emacs"],
  ["bash", "set +o vi"],
  ["bash", "builtin set -e +o emacs"],
  ["bash", "shopt -u -o emacs"],
  ["bash", "shopt -uo vi"],
  ["bash", "set +o $mode"],
  ["bash", "PROMPT_COMMAND='set +o emacs'"],
  ["zsh", "unsetopt zle"],
  ["zsh", "setopt no_zle"],
  ["zsh", "setopt NO_Z_L_E"],
  ["zsh", "set +o zle"],
  ["zsh", "set -o nozle"],
  ["zsh", "set +Z"],
  ["zsh", "setopt +Z"],
  ["zsh", "emulate sh -o nozle"],
  ["zsh", "setopt $opts"],
  ["zsh", "f() { unsetopt zle; }"],
  // Spelt in pieces the parser joins, also in code kept for later.
  ["bash", "set +o 'em'acs"],
  ["bash", "set +o $'\\x65macs'"],
  ["bash", "shopt -u -o e\\macs"],
  ["bash", "trap 'set +o em''acs' USR1"],
  ["bash", "f() { set +o 'v'i; }"],
  ["zsh", "unsetopt 'z'le"],
  ["zsh", "setopt no_'z'le"],
  ["zsh", "trap 'set +''Z' USR1"],
  // interactive_comments changed, also beside a question about it.
  ["bash", "shopt -u interactive_comments"],
  ["bash", "shopt -pu interactive_comments"],
  ["bash", "shopt -q interactive_comments; shopt -u interactive_comments"],
  ["bash", "echo interactive_comments"],
  ["zsh", "unsetopt -o INTERACTIVE_COMMENTS"],
  ["zsh", "[[ -o interactivecomments ]] && unsetopt interactivecomments"],
];

const ALLOWED: ["bash" | "zsh", string][] = [
  ["bash", "shopt -s extglob"],
  ["bash", "set -e"],
  ["bash", "trap 'echo bye' EXIT INT"],
  ["bash", "trap - DEBUG"],
  ["bash", "trap -p DEBUG"],
  ["bash", "echo extdebug"],
  ["zsh", "trap 'echo x' INT"],
  ["zsh", "set -T"],
  ["zsh", "typeset -r x=1"],
  ["zsh", "unset PWD"],
  ["bash", "unset PROMPT_COMMAND"],
  ["bash", "set -o vi"],
  ["bash", "set -o emacs"],
  ["bash", "set +o history"],
  ["bash", "shopt -s globstar"],
  ["bash", "echo vi emacs"],
  ["zsh", "setopt autocd extendedglob"],
  ["zsh", "unsetopt beep"],
  ["zsh", "set -o vi"],
  ["zsh", "emulate -L zsh"],
  ["zsh", "bindkey_help=1; echo zle"],
  // Questions about interactive_comments (the reviewer's f09: these were refused).
  ["bash", "shopt -p interactive_comments"],
  ["bash", "shopt -q interactive_comments && echo on"],
  ["bash", "shopt -p extglob interactive_comments"],
  ["zsh", "[[ -o interactivecomments ]] && echo on"],
  ["zsh", "[[ ! -o INTERACTIVE_COMMENTS ]] || echo on"],
];

describe("sessions: lines that would change the typed-line check", () => {
  for (const [shell, line] of REFUSED) {
    it(`${shell}: refuses ${line}`, async () => {
      assert.notEqual(await tampersWithCheck(typed(shell, line)), null);
    });
  }
  it("bash: refuses an alias that turns readline off where it is used", async () => {
    const line = { ...typed("bash", "x"), aliases: { x: `set +o "v"i` } };
    assert.notEqual(await tampersWithCheck(line), null);
  });
  for (const [shell, line] of ALLOWED) {
    it(`${shell}: lets ${line} through`, async () => {
      assert.equal(await tampersWithCheck(typed(shell, line)), null);
    });
  }
});
