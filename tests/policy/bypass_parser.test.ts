/**
 * Code the parser reads otherwise than bash (third abuse run): backquote and
 * process substitutions in `${x:-...}` operands, backquotes in here-document
 * bodies and escaped inside other backquotes, here-document delimiters bash
 * ends elsewhere than the parser; and shell and wrapper options read wrong
 * (grouped `-oc`, startup files, values missing or not in the tables).
 * @module
 */

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createPolicy } from "../../lib/policy/mod.ts";

const CONTEXT = { cwd: "/", env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch", "rm"] });

/** Lines that run `touch`: each must be denied by the rule "touch". */
const DENIED: [string, string][] = [
  ["a backquote in ${x:-}", "echo ${x:-`touch m`}"],
  ["a backquote in ${x:=}", "echo ${x:=`touch m`}"],
  ["a backquote in ${x/a/} in double quotes", 'echo "${x/a/`touch m`}"'],
  ["a backquote in a pattern", "echo ${x#`touch m`}"],
  ["a backquote in a nested ${}", "echo ${x:-${y:-`touch m`}}"],
  ["a backquote in a redirection target", ': > "${x:-`touch m`}"'],
  ["a backquote in an assignment's ${}", "x=${y:-`touch m`}"],
  ["a backquote in [[ ]]", "[[ ${x:-`touch m`} ]]"],
  ["a backquote in for ... in", "for x in ${y:-`touch m`}; do :; done"],
  ["$ before a backquote in ${}", "echo ${x:-$`touch m`}"],
  ["single quotes are literal in double-quoted ${}", "echo \"${x:-'`touch m`'}\""],
  ["<() in ${x:-}", "echo ${x:-<(touch m)}"],
  [">() in ${x:-}", ": ${x:->(touch m)}"],
  ["<() in x+=${}", "x+=${y:-<(touch m)}"],
  ["a backquote in a here-document", "cat <<EOF\n`touch m`\nEOF"],
  ["a backquote in a <<- here-document", "cat <<-EOF\n\t`touch m`\nEOF"],
  ["a backquote in ${} in a here-document", "cat <<EOF\n${x:-`touch m`}\nEOF"],
  ["a here-document inside $()", "echo $(cat <<EOF\n`touch m`\nEOF\n)"],
  ["text after a backquote in a here-document", "cat <<EOF\na `echo x` b `touch m`\nEOF"],
  ["escaped backquotes a shell reads from a here-document", "bash <<EOF\n\\`touch m\\`\nEOF"],
  ["an escaped $ a shell reads from a here-document", "bash <<EOF\n\\$(touch m)\nEOF"],
  ["escaped backquotes inside backquotes", "echo `echo \\`touch m\\``"],
  ["escaped backquotes inside backquotes, in double quotes", 'echo "`echo \\`touch m\\``"'],
  ["escaped backquotes inside backquotes, in an assignment", "x=`echo \\`touch m\\``"],
];

describe("policy: code the parser reads as text is checked", () => {
  for (const [name, line] of DENIED) {
    test(`${name}: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "deny", `${verdict.decision}: ${verdict.reason}`);
      assert.deepEqual(verdict.rule, { list: "deny", pattern: "touch" });
    });
  }
});

/** Lines whose meaning the parser cannot know: asked about (refused with nobody to ask). */
const ASKED: [string, string, RegExp][] = [
  ['E"O"F', 'cat <<E"O"F\nx\nEOF\ntouch m\nE"O"F', /delimiter/],
  ["E'O'F", "cat <<E'O'F\nx\nEOF\ntouch m\nE'O'F", /delimiter/],
  ['EOF""', 'cat <<EOF""\nx\nEOF\ntouch m\nEOF""', /delimiter/],
  ["$'EOF'", "cat <<$'EOF'\nx\nEOF\ntouch m\n$'EOF'", /delimiter/],
  ['$"EOF"', 'cat <<$"EOF"\nx\nEOF\ntouch m\n$"EOF"', /delimiter/],
  ["an unclosed backquote in a here-document", "cat <<EOF\n`touch m\nEOF", /backquote/],
];

describe("policy: here-documents the parser reads otherwise are asked about", () => {
  for (const [name, line, reason] of ASKED) {
    test(`${name}: ${JSON.stringify(line)}`, async () => {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "ask", `${verdict.decision}: ${verdict.reason}`);
      assert.match(verdict.reason, reason);
    });
  }
});

/** Honest lines: none of the checks above may catch them. */
const ALLOWED = [
  "echo ${x:-default} ${y//a/b} ${z#*/}",
  "[[ $x =~ ^(a|b)$ ]] && echo y",
  "cat <<'EOF'\nuse `touch` and $(touch m)\nEOF",
  'cat <<"EOF"\nuse `touch m`\nEOF',
  "cat <<\\EOF\nuse `touch m`\nEOF",
  "cat <<EOF\nhello $USER \\`touch m\\` \\$(touch m)\nEOF",
  "cat <<-EOF\n\thello\n\tEOF",
  "cat <<EOF > out.txt\nhello\nEOF\necho done",
  "echo `echo \\$HOME`",
  "echo ${x:-\\`touch m\\`}",
];

describe("policy: honest lines with here-documents and ${} stay allowed", () => {
  for (const line of ALLOWED) {
    test(JSON.stringify(line), async () => {
      const verdict = await policy().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "allow", `${verdict.decision}: ${verdict.reason}`);
    });
  }
});
