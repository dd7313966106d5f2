/**
 * Programs that run their arguments without being known wrappers: a shell
 * among their arguments with a `-c` string or no script is judged as the
 * command it is (`perf stat sh -c 'touch m'` ran touch under deny touch,
 * `perf stat bash --norc` started an unchecked shell: red-team review 5a,
 * f15). A shell name that is just text stays allowed. Programs that do what
 * the name they are called by says: git called `git-push` (a link in
 * git-core, or `exec -a git-push git`) pushed under deny git push (f08, f08b).
 * Links among the arguments: `perf stat ./ls2 m` (ls2 -> touch) and
 * `run-parts --arg=m d` (d/ls2 -> touch) ran touch (f01, f01b).
 * @module
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createPolicy } from "../../lib/policy/mod.ts";
import { describeAllowed, describeAsked, describeDenied, describeUnderRule } from "./_verdicts.ts";

// The line's directory holds mysh, a link to bash, ls2, a link to touch, d/ls2 and a link to d.
const dir = realpathSync(mkdtempSync(join(tmpdir(), "tb-arguments-")));
symlinkSync("/bin/bash", join(dir, "mysh"));
symlinkSync("/usr/bin/touch", join(dir, "ls2"));
mkdirSync(join(dir, "d"));
mkdirSync(join(dir, "src"));
symlinkSync("/usr/bin/touch", join(dir, "d", "ls2"));
symlinkSync(join(dir, "d"), join(dir, "dl"));
after(() => rmSync(dir, { recursive: true, force: true }));

const CONTEXT = { cwd: dir, env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch", "rm -rf"], ask: ["git push"] });

describeDenied("policy: a shell among an unlisted program's arguments is judged", policy, CONTEXT, [
  ["perf stat sh -c", "perf stat sh -c 'touch m'", "touch"],
  ["perf stat sh -c rm -rf", "perf stat sh -c 'rm -rf victim'", "rm -rf"],
  ["bwrap", "bwrap --bind / / sh -c 'touch m'", "touch"],
  ["a shell by path, grouped options", "perf stat /bin/sh -ec 'touch m'", "touch"],
  ["bash -o NAME -c", "perf stat bash -o pipefail -c 'touch m'", "touch"],
  ["zsh -fc", "perf stat zsh -fc 'touch m'", "touch"],
  ["a link to a shell", "perf stat ./mysh -c 'touch m'", "touch"],
  ["docker exec", "docker exec box sh -c 'touch m'", "touch"],
]);

describeAsked("policy: a shell started among the arguments is asked about", policy, CONTEXT, [
  ["bash --norc", "perf stat bash --norc", /bash reads the commands it runs from standard input/],
  ["sh -s", "perf stat sh -s x", /standard input/],
  ["fish -c", "perf stat fish -c 'touch m'", /fish runs commands in its own language/],
], { unknown: true });

describeAllowed("policy: a shell name that is just text stays allowed", policy, CONTEXT, [
  "perf stat ls",
  "perf stat sh -c 'ls -l'",
  "perf stat bash script.sh",
  "man bash",
  "which sh",
  "apt show bash",
  "grep -r bash .",
  "echo sh -c 'touch m'",
  "apt install bash zsh",
  "apt install bash -y",
  "ps -C bash -o pid",
  "useradd -s /bin/bash -m alice",
  "chsh -s /bin/zsh",
  "docker run --rm -it ubuntu bash -c 'ls'",
  "kubectl exec pod -- sh -c 'ls -l'",
]);

describeUnderRule("policy: git and busybox do what the name they are called by says", CONTEXT, [
  ["git push", "/usr/lib/git-core/git-push -q origin main", "deny"],
  ["git push", "git-push origin main", "deny"],
  ["git push", "(exec -a git-push git -q origin main)", "deny"],
  ["git push", "exec -agit-push git origin main", "deny"],
  ["git push", "exec -a git-status git", "allow"],
  ["git push", "/usr/lib/git-core/git-status", "allow"],
  ["git push", "git-lfs push origin main", "allow"],
  ["rm -rf", "exec -a rm busybox -rf /", "deny"],
  ["rm -rf", "exec -a myname python3 x.py", "allow"],
  ["git push", 'exec -a "$N" git origin main', "ask"],
  ["git push", "env -a git-push git origin main", "deny"],
  ["git push", "env --argv0=git-push git origin main", "deny"],
  ["git push", "env -a x ls", "allow"],
  // zsh runs external commands with $ARGV0 as their argv[0].
  ["git push", "ARGV0=git-push git -q origin main", "deny"],
  ["git push", 'ARGV0="$x" git status', "ask"],
  ["git push", "ARGV0=foo git status", "allow"],
]);

describeAsked(
  "policy: a link to a denied program among the arguments is asked about",
  policy,
  CONTEXT,
  [
    ["a link by path", "perf stat ./ls2 m", "touch"],
    ["a link the working directory holds", "perf stat ls2 m", "touch"],
    ["a link in a subdirectory", "foo ./d/ls2", "touch"],
    ["a directory holding a link", "run-parts --arg=m d", "touch"],
    ["a directory given by path", "run-parts ./d/", "touch"],
    ["a link to such a directory", "run-parts dl", "touch"],
    ["a value the line sets", "SHELL=./ls2 flock f -c m", "touch"],
  ],
);

describeAllowed("policy: arguments that lead to no denied program stay allowed", policy, CONTEXT, [
  "tar czf x.tgz src",
  "make -C src",
  "cp -r src /tmp/elsewhere",
  "ls -l d",
  "npm test",
]);
