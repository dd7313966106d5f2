/**
 * Wrappers that find their program with another PATH than the line's:
 * `command -p` (the standard path), `env -i`, `env -`, `env -u PATH` (execvp
 * then searches the standard path, a shell sets its own), a login `su` or
 * `runuser` (login.defs' PATH), `setpriv --reset-env`, `sudo` (secure_path),
 * and `env PATH=DIR` (DIR). With `deny: ["/usr/bin/touch"]` and a harmless
 * `touch` first on the line's PATH, each ran /usr/bin/touch while the
 * harmless one was judged (red-team review 5a: f05, f06, reproduced through
 * the binary). Each must be denied; honest lines stay allowed.
 * @module
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createPolicy } from "../../lib/policy/mod.ts";
import { describeAllowed, describeAsked, describeDenied } from "./_verdicts.ts";

// a/touch is harmless (true) and first on PATH; bin/ls is a link to touch.
const dir = realpathSync(mkdtempSync(join(tmpdir(), "tb-paths-")));
mkdirSync(join(dir, "a"));
mkdirSync(join(dir, "bin"));
symlinkSync("/bin/true", join(dir, "a", "touch"));
symlinkSync("/usr/bin/touch", join(dir, "bin", "ls"));
after(() => rmSync(dir, { recursive: true, force: true }));

const CONTEXT = {
  cwd: dir,
  env: { HOME: "/home/someone", PATH: `${dir}/a:/usr/bin:/bin` },
};
const RULE = "/usr/bin/touch";
const policy = () => createPolicy({ deny: [RULE] });

describeDenied("policy: a wrapper's own PATH finds the program", policy, CONTEXT, [
  ["command -p", "command -p touch m", RULE],
  ["env -i", "env -i touch m", RULE],
  ["env -", "env - touch m", RULE],
  ["env --ignore-environment", "env --ignore-environment touch m", RULE],
  ["env -u PATH", "env -u PATH touch m", RULE],
  ["env --unset=PATH", "env --unset=PATH touch m", RULE],
  ["env -i into a shell (its own default PATH)", "env -i sh -c 'touch m'", RULE],
  ["su -", 'su - -c "touch m"', RULE],
  ["runuser -l", 'runuser -l root -c "touch m"', RULE],
  ["setpriv --reset-env", "setpriv --reset-env touch m", RULE],
  ["sudo (secure_path)", "sudo touch m", RULE],
  ["sudo into a shell", "sudo sh -c 'touch m'", RULE],
  ["doas (its safe path)", "doas touch m", RULE],
  ["env PATH=DIR", "env PATH=/usr/bin touch m", RULE],
]);

describeDenied(
  "policy: env PATH=DIR finds the program in DIR",
  () => createPolicy({ deny: ["touch"] }),
  CONTEXT,
  [
    ["a link named ls in DIR", "env PATH=bin ls", "touch"],
    ["env -i PATH=DIR", "env -i PATH=bin ls", "touch"],
    ["inherited by a shell", "env PATH=bin:/usr/bin sh -c 'ls x'", "touch"],
  ],
);

describeAsked("policy: a program not found in the PATH env gives is asked about", policy, CONTEXT, [
  ["not there yet", "env PATH=/nonexistent/dir ls m", /not found in the PATH a wrapper gives it/],
  ["built at run time", 'env PATH="$P" ls', /env changes PATH/],
], { unknown: true });

describeAllowed("policy: honest lines with these wrappers stay allowed", policy, CONTEXT, [
  "env -i PATH=/usr/bin ls",
  "env PATH=/usr/bin:/bin ls -l",
  "env -i ls",
  "env -i bash -c 'ls -l'",
  "command -p ls",
  "sudo ls",
  "sudo sh -c 'ls'",
  "su - -c 'ls'",
  "setpriv --reset-env ls",
  "touch m",
]);
