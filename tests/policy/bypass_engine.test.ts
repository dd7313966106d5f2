/**
 * Bypasses of the third abuse run that the engine closes: a denied program
 * spelled by a glob or an expansion among another command's arguments (run
 * or copied by a program nobody listed), the directory holding it given to a
 * program that runs a directory, and GNU long options abbreviated past an
 * option rule. Honest lines beside them stay allowed.
 * @module
 */

import { after, before, describe, test } from "node:test";
import { describeAllowed, describeAsked, describeUnderRule } from "./_verdicts.ts";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPolicy, DEFAULT_POLICY_RULES } from "../../lib/policy/mod.ts";
import type { Decision } from "../../lib/policy/mod.ts";

const CONTEXT = { cwd: "/", env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch"] });

/** Lines that could run or copy `touch` without naming it: asked about. */
const SPELLED: [string, string][] = [
  ["a glob of the path given to valgrind", "valgrind -q /usr/bin/tou?h m"],
  ["an expansion in the path", "t=tou; valgrind -q /usr/bin/${t}ch m"],
  ["start-stop-daemon -x with a glob", "start-stop-daemon -S -x /usr/bin/tou?h -- m"],
  ["gdb --args with a glob", "gdb -batch -ex run --args /usr/bin/tou?h m"],
  ["a bracket glob", "valgrind /usr/bin/t[o]uch m"],
  ["a glob in the directory part", "valgrind /usr/b?n/touch m"],
  ["a bare glob of the name", "valgrind tou* m"],
  ["a glob copied into a program", "cp /usr/bin/tou?h ./x"],
  ["a substitution naming the program", 'cp "$(command -v touch)" ./y'],
  ["backquotes naming the program", "cp `command -v touch` ./y"],
  ["an option value with a glob", "tool --exec=/usr/bin/to*h"],
  ["a substitution and text", "valgrind $(echo tou)ch m"],
  ["backquotes and text", "valgrind `printf tou`ch m"],
  ["an unknown variable and text", "valgrind ${x}ch m"],
  ["run-parts of the program's directory", "run-parts --regex '^tou.h$' -a m /usr/bin"],
  ["run-parts of /bin", "run-parts /bin/"],
  ["run-parts of a glob of the directory", "run-parts /usr/b?n"],
  ["an attached option value, a path", "start-stop-daemon -S -x/usr/bin/touch -- m"],
  ["an attached option value, a name", "start-stop-daemon -S -xtouch -- m"],
  ["an attached option value, a glob", "start-stop-daemon -S -x/usr/bin/tou?h -- m"],
];

describeAsked(
  "policy: a denied program spelled by a glob or an expansion is asked about",
  policy,
  CONTEXT,
  SPELLED.map(([name, line]) => [name, line, "touch"]),
);

/** Globs and expansions that cannot spell the denied program. */
const HONEST = [
  "ls *.txt",
  "cat src/*.ts",
  "cat $HOME/notes",
  "echo $(date)",
  "cd $(git rev-parse --show-toplevel)/src",
  "command -v touch",
  "ls /usr",
  "cp build/*.o out/",
  "echo file-$(date +%s).log",
  'git commit -m "fix: $(cat msg)"',
  "t=x; echo ${t}ch",
  'echo "Hello $USER"',
  "kill $(pgrep foo)",
  // A glob is a path relative to the cwd: one elsewhere than the program's directory cannot be it,
  // and a bare `*` is not taken for the program's name.
  "ls *",
  "rm -rf build/*",
  "cp dist/* out/",
  "for f in *; do wc -l $f; done",
];

describe("policy: a bare glob in the program's own directory is asked about", () => {
  test('"valgrind *" with the cwd /usr/bin', async () => {
    const verdict = await policy().checkLine("valgrind *", { ...CONTEXT, cwd: "/usr/bin" });
    assert.equal(verdict.decision, "ask", `${verdict.decision}: ${verdict.reason}`);
    assert.deepEqual(verdict.rule, { list: "deny", pattern: "touch" });
  });
});

describeAllowed(
  "policy: globs and expansions that spell no denied program stay allowed",
  policy,
  CONTEXT,
  HONEST,
);

/** Long options abbreviated as GNU getopt_long reads them: [rule, line, decision]. */
const ABBREVIATED: [string, string, Decision][] = [
  ["rm -rf", "rm --recur --forc x", "deny"],
  ["rm -rf", "rm -r --fo x", "deny"],
  ["rm -rf", "rm --r --f x", "deny"],
  ["rm -rf", "rm --recur x", "allow"],
  ["rm -rf", "rm --verbose --force x", "allow"],
  ["chmod -R", "chmod --recurs 700 x", "deny"],
  ["git push --force*", "git push --forc", "deny"],
  ["git push --force*", "git push --follow-tags", "allow"],
  ["curl --output=x", "curl --out=x http://h", "deny"],
  ["curl --output=x", "curl --out=y http://h", "allow"],
];

describeUnderRule("policy: abbreviated long options match the option rules", CONTEXT, ABBREVIATED);

describe("policy: abbreviated long options, the shipped rules", () => {
  test("the shipped rules ask about rm --recur --forc /", async () => {
    const verdict = await createPolicy(DEFAULT_POLICY_RULES).checkLine(
      "rm --recur --forc /",
      CONTEXT,
    );
    assert.equal(verdict.decision, "ask", verdict.reason);
  });
});

/** Lines that change which file a name runs without `PATH=`: unknown, so asked about. */
const LOOKUP: [string, string, RegExp][] = [
  ["read PATH", 'read PATH <<< "$PWD/d"; ls m', /sets PATH/],
  ["printf -v PATH", "printf -v PATH %s /tmp/d; ls m", /sets PATH/],
  ["printf -vPATH", "printf -vPATH %s /tmp/d; ls m", /sets PATH/],
  ["read -r from a process substitution", "IFS= read -r PATH < <(echo /tmp/d); ls m", /PATH/],
  ["read -a PATH", "read -a PATH <<< /tmp/d; ls m", /sets PATH/],
  ["mapfile", "mapfile -t PATH < f; ls m", /sets PATH/],
  ["readarray", "readarray PATH < f; ls m", /sets PATH/],
  ["getopts", "getopts o PATH -o; ls m", /sets PATH/],
  ["declare with a quoted assignment", 'declare "PATH=/tmp/d"; ls m', /sets PATH/],
  ["export with a quoted assignment", "export 'PATH=/tmp/d'; ls m", /sets PATH/],
  ["a computed name", "export $V; ls m", /only known when the line runs/],
  ["local PATH", "f() { local PATH; ls m; }; f", /sets PATH/],
  ["a nameref to PATH", "declare -n r=PATH; r=/tmp/d; ls m", /changes PATH/],
  ["command printf -v", "command printf -v PATH %s /tmp/d; ls m", /sets PATH/],
  ["BASH_CMDS[ls]=", "BASH_CMDS[ls]=/usr/bin/touch; ls m", /changes BASH_CMDS/],
  ["BASH_CMDS=( )", "BASH_CMDS=([ls]=/usr/bin/touch); ls m", /changes BASH_CMDS/],
  ["read into BASH_CMDS", 'read "BASH_CMDS[ls]" <<< /usr/bin/to?ch; ls m', /sets BASH_CMDS/],
  ["zsh's commands table", "commands[ls]=/tmp/t; ls m", /changes commands/],
  ["zsh's path array", "path=(/tmp/d $path); ls m", /changes path/],
  ["zsh's hash NAME=PATH", "hash ls=/tmp/t; ls m", /hash NAME=PATH/],
  ["set -o keyword", "set -o keyword; ls PATH=/tmp/d m", /set -k/],
  ["set -k", "set -k; ls PATH=/tmp/d m", /set -k/],
  ["set -ek", "set -ek; ls PATH=/tmp/d m", /set -k/],
  ["set -eo keyword", "set -eo keyword; ls PATH=/tmp/d m", /set -k/],
  ["set from a variable", "set $OPTS; ls PATH=/tmp/d m", /set -k/],
  ["shopt -o -s keyword", "shopt -o -s keyword; ls PATH=/tmp/d m", /shopt -o keyword/],
  ["arithmetic (( ))", "((PATH=0)); ls m", /arithmetic may assign PATH/],
  ["let", "let PATH=0; ls m", /arithmetic may assign PATH/],
  ["$(( ))", ": $((PATH=0)); ls m", /arithmetic may assign PATH/],
  ["++", "((++PATH)); ls m", /arithmetic may assign PATH/],
  ["a value arithmetic evaluates", "x='PATH=0'; echo $((x)); ls m", /arithmetic may assign PATH/],
];

describeAsked("policy: what changes which file a name runs is unknown", policy, CONTEXT, LOOKUP, {
  unknown: true,
});

describe("policy: what changes which file a name runs, honest lines", () => {
  for (
    const line of [
      "export PATH",
      "declare -x PATH",
      "read -r line",
      "read -p PATH x",
      "printf '%s\\n' x",
      "set -eo pipefail",
      "set -- a b",
      "set -x",
      "local x=1",
      "export FOO BAR",
      "hash -r",
      "echo $((x=1)); ls",
      "(( PATH == 1 )) && ls",
    ]
  ) {
    test(`stays allowed: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "allow", verdict.reason);
    });
  }
});

/** Lines that put a file into a writable directory on PATH before running a name (with ~/bin first on PATH). */
const SHADOWS: [string, string][] = [
  [
    "a script written by printf",
    "printf '%s\\n' '#!/bin/sh' 'exec tou\"\"ch \"$@\"' > ~/bin/ls; chmod +x ~/bin/ls; ls m",
  ],
  ["a link made with ln", "ln -sf /usr/bin/id ~/bin/ls; ls m"],
  ["a copy into the directory", "cp /usr/bin/id ~/bin/; ls m"],
  ["dd of=", "dd if=/usr/bin/id of=~/bin/cat; chmod +x ~/bin/cat; cat m"],
  ["a path with an expansion", "cp /usr/bin/id $HOME/bin/ls; ls m"],
  ["cd into the directory first", "cd ~/bin && ln -s /usr/bin/id ls; cd /; ls m"],
  ["tee", "echo x | tee ~/bin/ls; ls m"],
  ["a glob of the name", "cp /usr/bin/id ~/bin/l?; ls m"],
];

describe("policy: a line that puts a file into a directory on PATH is unknown", () => {
  let home = "";
  before(() => {
    home = realpathSync(mkdtempSync(join(tmpdir(), "tb-shadow-")));
    mkdirSync(join(home, "bin"));
    writeFileSync(join(home, "x"), "");
  });
  after(() => rmSync(home, { recursive: true, force: true }));
  const context = () => ({
    cwd: home,
    env: { HOME: home, PATH: `${home}/bin:/usr/bin:/bin` },
  });
  for (const [name, line] of SHADOWS) {
    test(`${name}: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, context());
      assert.equal(verdict.decision, "ask", `${verdict.decision}: ${verdict.reason}`);
      assert.match(verdict.reason, /directory on PATH/);
    });
  }
  test("in a directory on PATH, a command may create the name a later one runs", async () => {
    const inBin = { cwd: join(home, "bin"), env: context().env };
    const verdict = await policy().checkLine("tar xf /tmp/a.tar; ls m", inBin);
    assert.equal(verdict.decision, "ask", verdict.reason);
    assert.match(verdict.reason, /a directory on PATH/);
    const alone = await policy().checkLine("ls -l", inBin);
    assert.equal(alone.decision, "allow", alone.reason);
  });
  test("an attached option value", async () => {
    const verdict = await policy().checkLine(`tar -C${home}/bin -xf a.tar; ls m`, context());
    assert.equal(verdict.decision, "ask", verdict.reason);
    assert.match(verdict.reason, /directory on PATH/);
  });
  test("a program the line writes before running it by path", async () => {
    const verdict = await policy().checkLine("printf 'touch m' > ./x; ./x", context());
    assert.equal(verdict.decision, "ask", verdict.reason);
    assert.match(verdict.reason, /as a file as well as running it/);
  });
  for (
    const line of [
      "echo hi > ~/notes.txt; ls",
      "cp x y; ls",
      "echo > ~/bin/other; ls",
      "cat $HOME/bin/ls",
      "ls -l ~/bin/other",
      "gcc -Wl,-rpath,/usr/lib -o prog x.c; ls",
    ]
  ) {
    test(`stays allowed: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, context());
      assert.equal(verdict.decision, "allow", verdict.reason);
    });
  }
});

/** Values the line keeps and passes on by expansion: asked about like arguments. */
const VALUES: [string, string][] = [
  ["an assignment", "t=/usr/bin/touch; valgrind -q $t m"],
  ["a bare name", "t=touch; valgrind $t m"],
  ["an assignment before the command", "T=/usr/bin/touch valgrind $T m"],
  ["export", "export T=/usr/bin/touch; valgrind $T m"],
  ["an array", 'a=(/usr/bin/touch); valgrind "${a[@]}" m'],
  ["a for list", "for t in /usr/bin/touch; do valgrind $t m; done"],
  ["a here-string read", "read t <<< /usr/bin/touch; valgrind $t m"],
  ["a value with blanks", 't="/usr/bin/touch m"; valgrind $t'],
  ["a glob in a value", "t=/usr/bin/tou?h; valgrind $t m"],
  ["expansions of the line's values", "t=tou; u=ch; valgrind $t$u m"],
  ["an expansion and text", "t=tou; valgrind ${t}ch m"],
  ["a for variable", "for a in tou; do valgrind ${a}ch m; done"],
  ["a here-document read", "read t <<EOF\n/usr/bin/touch\nEOF\nvalgrind $t m"],
  [
    "a here-document read in a loop",
    "while read t; do valgrind $t m; done <<EOF\n/usr/bin/touch\nEOF",
  ],
];

describe("policy: a value naming a denied program is asked about", () => {
  for (const [name, line] of VALUES) {
    test(`${name}: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "ask", `${verdict.decision}: ${verdict.reason}`);
      assert.deepEqual(verdict.rule, { list: "deny", pattern: "touch" });
    });
  }
  for (const line of ["x=1; y=hello; echo $x $y", "for f in *.txt; do wc -l $f; done"]) {
    test(`stays allowed: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "allow", verdict.reason);
    });
  }
});
