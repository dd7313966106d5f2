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
import { createPolicy, DEFAULT_POLICY_RULES } from "../../lib/policy/mod.ts";
import { describeAllowed, describeAsked, describeDenied } from "./_verdicts.ts";

const CONTEXT = { cwd: "/", env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch", "rm"] });
const shipped = () => createPolicy(DEFAULT_POLICY_RULES);

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
  ["$'' is literal in double-quoted ${}", "echo \"${x:-$'`touch m`'}\""],
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
  ["bash -oc: o's value is the next word, c is read", "bash -oc posix 'touch m'"],
  ["bash -Oc", "bash -Oc extglob 'touch m'"],
  ["dash -oc", "dash -oc errexit 'touch m'"],
  ["bash -xoc", "bash -xoc posix 'touch m'"],
  ["zsh --emulate MODE", "zsh --emulate sh -c 'touch m'"],
  ["bash /dev/./stdin", "bash /dev/./stdin <<< 'touch m'"],
  ["bash //dev/stdin", "bash //dev/stdin <<< 'touch m'"],
  ["sh /dev//fd/0", "sh /dev//fd/0 <<< 'touch m'"],
  ["bash /proc/self/./fd/0", "bash /proc/self/./fd/0 <<< 'touch m'"],
  ["bash /proc/self/root/dev/stdin", "bash /proc/self/root/dev/stdin <<EOF\ntouch m\nEOF"],
  ["watch -d takes no value word", "watch -d touch m"],
  ["xargs --eof takes no value word", "xargs --eof touch true"],
  ["xargs --replace takes no value word", "xargs --replace touch {}"],
  ["runuser -u with --session-command", "runuser -u x --session-command 'touch m'"],
  ["su --session-command", "su --session-command 'touch m'"],
  ["env's --split-string abbreviated", "env --split-s='touch m'"],
  ["su's --command abbreviated", "su --comm 'touch m'"],
  [
    "a continuation in a quoted here-document body is literal",
    "cat <<'EOF'\nx\\\nEOF\ntouch m\nEOF",
  ],
  ["a continuation in a \\-quoted here-document body", "cat <<\\EOF\nx\\\nEOF\ntouch m\nEOF"],
  ["a continuation in a <<- quoted body", "cat <<-'EOF'\n\tx\\\n\tEOF\ntouch m\nEOF"],
  ["a quote in a here-document body is text", "cat <<EOF\nit's\nEOF\ntou\\\nch m"],
];

describeDenied(
  "policy: code the parser reads as text is checked",
  policy,
  CONTEXT,
  DENIED.map(([name, line]) => [name, line, "touch"]),
);

/** Lines whose meaning the parser cannot know: asked about (refused with nobody to ask). */
const ASKED: [string, string, RegExp][] = [
  ['E"O"F', 'cat <<E"O"F\nx\nEOF\ntouch m\nE"O"F', /delimiter/],
  ["E'O'F", "cat <<E'O'F\nx\nEOF\ntouch m\nE'O'F", /delimiter/],
  ['EOF""', 'cat <<EOF""\nx\nEOF\ntouch m\nEOF""', /delimiter/],
  ["$'EOF'", "cat <<$'EOF'\nx\nEOF\ntouch m\n$'EOF'", /delimiter/],
  ['$"EOF"', 'cat <<$"EOF"\nx\nEOF\ntouch m\n$"EOF"', /delimiter/],
  ["an unclosed backquote in a here-document", "cat <<EOF\n`touch m\nEOF", /backquote/],
  ["bash --rcfile", "echo 'touch m' > f; bash --rcfile ./f -ic :", /--rcfile/],
  ["bash --init-file", "echo 'touch m' > f; bash --init-file ./f -ic :", /--init-file/],
  ["zsh with ZDOTDIR", "echo 'touch m' > z/.zshenv; ZDOTDIR=$PWD/z zsh -c :", /ZDOTDIR/],
  ["zsh with HOME", "echo 'touch m' > .zshenv; HOME=$PWD zsh -c :", /HOME/],
  ["an interactive bash with HOME", "echo 'touch m' > .bashrc; HOME=$PWD bash -ic :", /HOME/],
  ["zsh through env HOME=", "env HOME=/tmp/x zsh -c :", /HOME/],
  ["zsh after export HOME", "export HOME=/tmp/x; zsh -c :", /HOME/],
  ["zsh after the line writes ~/.zshenv", "echo 'touch m' >> ~/.zshenv; zsh -c :", /startup/],
  [
    "bash -l after the line writes ~/.profile",
    "echo 'touch m' >> ~/.profile; bash -lc :",
    /startup/,
  ],
  ["a script under /dev by another spelling", "bash /dev/../dev/fd/3 3<f", /device or process/],
  ["xargs gives env -S its value", "printf 'touch m' | xargs -0 env -S", /input/],
  [
    "xargs gives env --split-string its value",
    "printf 'touch m' | xargs -0 env --split-string",
    /input/,
  ],
  ["xargs gives script -c its value", "printf 'touch m' | xargs -0 script -qc", /standard input/],
  ["unshare --propagation", "unshare --propagation private /usr/bin/tou?h m", /only known when/],
  ["unshare --setgroups", "unshare --setgroups allow /usr/bin/tou?h m", /only known when/],
  ["unshare --map-user", "unshare --map-user 0 /usr/bin/tou?h m", /only known when/],
  ["strace --trace", "strace -o /dev/null --trace open /usr/bin/tou?h m", /only known when/],
  ["nsenter -W", "nsenter -W /tmp /usr/bin/tou?h m", /only known when/],
  ["nice --adjustment abbreviated", "nice --adj 5 /usr/bin/tou?h m", /only known when/],
  ["timeout --signal abbreviated", "timeout --sig KILL 5 /usr/bin/tou?h m", /only known when/],
];

describeAsked(
  "policy: here-documents the parser reads otherwise are asked about",
  policy,
  CONTEXT,
  ASKED,
);

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
  "zsh -c 'echo hi'",
  'cd $HOME && zsh -c ls; echo "${HOME}"; bash -ic true',
  "HOME=/tmp/x ls",
  'bash -o pipefail -c "ls | wc"',
  "zsh -o extendedglob -c ls",
  "watch -n 1 ls",
  "nsenter --wd ls",
  "strace --summary ls",
  "cat <<EOF\nx\\\nEOF\ntouch m\nEOF",
  "echo $((1 << 2))",
];

describeAllowed(
  "policy: honest lines with here-documents and ${} stay allowed",
  policy,
  CONTEXT,
  ALLOWED,
);

describe("policy: abbreviated wrapper options under the shipped rules", () => {
  for (
    const line of [
      "nice --adj 5 rm -rf /",
      "timeout --sig KILL 5 rm -rf /",
      "sudo --us root rm -rf /",
    ]
  ) {
    test(`${JSON.stringify(line)} is asked as rm -rf / is`, async () => {
      const verdict = await shipped().checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "ask", `${verdict.decision}: ${verdict.reason}`);
      assert.match(verdict.reason, /rm -rf \//);
    });
  }
});
