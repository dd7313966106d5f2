/**
 * Programs a wrapper runs that are not its first operand: an option's value
 * that is a program or a command (`strace -o '|CMD'`, `dbus-run-session
 * --dbus-daemon=PROG`, `fakeroot --faked PROG`, `su -s PROG`), and `env -S`
 * strings split by env's own rules (`touch\_m` is `touch m`). Each ran touch
 * under deny touch through the binary (red-team review 5a: f12, f12b, f13,
 * f14). Each must be denied or asked about; honest lines stay allowed.
 * @module
 */

import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { createPolicy } from "../../lib/policy/mod.ts";
import { describeAllowed, describeAsked, describeDenied, describeUnderRule } from "./_verdicts.ts";

const CONTEXT = {
  cwd: realpathSync(tmpdir()),
  env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" },
};
const policy = () => createPolicy({ deny: ["touch", "rm -rf"], ask: ["git push"] });

describeDenied("policy: a program an option or env -S gives is judged", policy, CONTEXT, [
  ["strace -o |CMD", "strace -o '|touch m' true", "touch"],
  ["strace -o !CMD attached", "strace -o'!touch m' true", "touch"],
  ["strace --output=|CMD", "strace --output='|touch m' true", "touch"],
  ["strace -fo |CMD", "strace -fo '|touch m' true", "touch"],
  [
    "dbus-run-session --dbus-daemon=",
    "dbus-run-session --dbus-daemon=/usr/bin/touch true",
    "touch",
  ],
  ["fakeroot --faked", "fakeroot --faked /usr/bin/touch true", "touch"],
  ["fakeroot -f", "fakeroot -f touch true", "touch"],
  ["su -s PROG", "su -s /usr/bin/touch -c m root", "touch"],
  ["su --shell=PROG", "su --shell=/usr/bin/touch root", "touch"],
  ["runuser -s PROG", "runuser -s /usr/bin/touch -c m root", "touch"],
  ["su -s a shell still reads -c", "su -s /bin/bash -c 'touch m' root", "touch"],
  ["env -S \\_ separates", "env -S 'touch\\_m'", "touch"],
  ["env -S \\c ends the string", "env -S 'touch m\\c rest'", "touch"],
  ["env -S with env's options", "env -S '-i touch m'", "touch"],
  ["env -iS grouped", "env -iS 'touch m'", "touch"],
  ["env --split-string= abbreviated", "env --split-s='touch m'", "touch"],
  ["env -S then the rest", "env -S 'rm -rf' victim", "rm -rf"],
  ["env -S into sh -c", "env -S 'sh -c \"touch\\_m\"'", "touch"],
]);

describeAsked("policy: what cannot be known there is asked about", policy, CONTEXT, [
  ["strace -o built at run time", 'strace -o "$F" ls', /strace -o is given a value known only/],
  ["fakeroot -l", "fakeroot -l /tmp/x.so ls", /loads a library/],
  ["su -s built at run time", 'su -s "$S" -c ls root', /only known when the line runs/],
  ["env -S with ${NAME}", "env -S 'ls ${X}'", /env -S expands \$\{NAME\}/],
  ["env -S with an escape env refuses", "env -S 'ls \\q'", /env refuses/],
  ["env -S built at run time", 'env -S "$X"', /only known when the line runs/],
], { unknown: true });

describeAsked("policy: a known wrapper's own option values are looked at", policy, CONTEXT, [
  ["an editor env gives", "env GIT_EDITOR=touch git commit", "touch"],
  ["an option not modelled", "ltrace -F /usr/bin/touch ls", "touch"],
]);

describeUnderRule("policy: su -s runs PROG with -c's value and the user's arguments", CONTEXT, [
  ["git push", "su -s /usr/bin/git -c core.x=y root -- push -q origin main", "deny"],
  ["git push", "su -s /usr/bin/git root -- push origin main", "deny"],
  ["git push", "su -s /usr/bin/git root -- status", "allow"],
]);

describeAllowed("policy: these wrappers used plainly stay allowed", policy, CONTEXT, [
  "strace -o out.txt ls",
  "strace -f -o /tmp/trace.log ls -l",
  "dbus-run-session -- ls",
  "fakeroot make install",
  "fakeroot -i state -s state dpkg-deb -b pkg",
  "su -c ls root",
  "su -s /bin/bash -c 'ls -l' root",
  "su - postgres -c 'psql -l'",
  "env -S 'ls -l' x",
  "env -S 'A=1 ls'",
  "env -S '#touch m'",
  "env -S 'ls\\c touch m'",
  "env -S 'echo \"a\\_b\"'",
  "command -v touch",
  "sudo -u root ls",
  "env -C /tmp ls",
  "find . -name '*.ts' -exec grep -l touch {} +",
  "xargs -I{} cp {} /tmp",
]);
