/**
 * Wrappers that run their program somewhere other than where the line runs:
 * in another directory (`env -C`, `sudo -D`, `unshare -w`, `nsenter --wd`, a
 * login shell), under another root (`chroot`, `unshare --root`, `nsenter
 * --root`), with another PATH (`sudo PATH=DIR`), or in a bash reading
 * `NAME=VALUE` anywhere as assignments (`bash -k`, `-o keyword`, SHELLOPTS),
 * or with a builtin turned off so that its name runs a file (`enable -n cd`).
 * Each was a way to run a denied program under an allowed name (reproduced
 * through the binary: `env -C ev ./ls2 m` ran ev/ls2, a link to touch, while
 * ./ls2 in the line's directory was judged). Each must be asked about or
 * denied; honest lines stay allowed.
 * @module
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createPolicy } from "../../lib/policy/mod.ts";
import { describeAllowed, describeAsked, describeDenied } from "./_verdicts.ts";

// The line's directory holds ./tool, a harmless program; sub/ holds ./tool, a link to touch.
const dir = realpathSync(mkdtempSync(join(tmpdir(), "tb-places-")));
mkdirSync(join(dir, "sub"));
symlinkSync("/bin/true", join(dir, "tool"));
symlinkSync("/usr/bin/touch", join(dir, "sub", "tool"));
after(() => rmSync(dir, { recursive: true, force: true }));

const CONTEXT = { cwd: dir, env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch"] });

/** Lines whose program is elsewhere: [name, line, reason]. */
const ASKED: [string, string, RegExp][] = [
  ["env -C", "env -C sub ./tool m", /changes directory before it runs "\.\/tool"/],
  ["env --chdir=", "env --chdir=sub ./tool m", /changes directory/],
  ["env --ch (abbreviated)", "env --ch sub ./tool m", /changes directory/],
  ["env -C into bash -c", "env -C sub bash -c './tool m'", /changes directory/],
  ["env -C into a script", "env -C sub bash ./tool", /changes directory/],
  ["sudo -D", "sudo -D sub ./tool m", /changes directory/],
  ["sudo --chdir", "sudo --chdir=sub ./tool m", /changes directory/],
  ["sudo -i (the target's home)", "sudo -i ./tool m", /changes directory/],
  ["unshare -w", "unshare -w sub ./tool m", /changes directory/],
  ["unshare --wd", "unshare --wd=sub ./tool m", /changes directory/],
  ["nsenter --wd=", "nsenter --wd=sub ./tool m", /changes directory/],
  ["nsenter -w attached", "nsenter -wsub ./tool m", /changes directory/],
  ["su - (a login shell's home)", "su - -c './tool m'", /changes directory/],
  ["su -l", "su -l root -c './tool m'", /changes directory/],
  ["chroot", "chroot /srv/jail ls m", /chroot runs its program under another root/],
  ["chroot with a path", "chroot / ./tool m", /another root/],
  ["unshare --root", "unshare --root=/srv/jail ls m", /another root/],
  ["unshare -R", "unshare -R /srv/jail ls m", /another root/],
  ["nsenter --root", "nsenter --root=/srv/jail ls m", /another root/],
  ["nsenter -r", "nsenter -t 1 -r ls m", /another root/],
  ["sudo -R", "sudo -R /srv/jail ls m", /another root/],
  ["sudo PATH=", "sudo PATH=/tmp/evil ls m", /sudo changes PATH/],
  ["sudo with a variable named at run time", 'sudo "$N"=/tmp/evil ls m', /sudo changes PATH/],
  ["bash -k", "bash -k -c 'ls PATH=/tmp/evil m'", /bash -k makes NAME=VALUE/],
  ["bash -o keyword", "bash -o keyword -c 'ls PATH=/tmp/evil m'", /-o keyword/],
  ["bash -eo keyword", "bash -eo keyword -c 'ls x'", /-o keyword/],
  ["bash -ek", "bash -ek -c 'ls x'", /-k makes/],
  ["sh -k", "sh -k -c 'ls PATH=/tmp/evil m'", /-k makes/],
  [
    "env SHELLOPTS=",
    "env SHELLOPTS=keyword bash -c 'ls PATH=/tmp/evil m'",
    /SHELLOPTS sets options/,
  ],
  ["SHELLOPTS= before bash", "SHELLOPTS=keyword bash -c 'ls PATH=/tmp/evil m'", /SHELLOPTS/],
  ["export SHELLOPTS", "export SHELLOPTS=keyword", /SHELLOPTS/],
  ["BASHOPTS", "BASHOPTS=expand_aliases bash -c 'ls x'", /BASHOPTS/],
  ["sudo SHELLOPTS=", "sudo SHELLOPTS=keyword bash -c 'ls x'", /SHELLOPTS/],
  // A file named like a builtin runs once the builtin is off (reproduced: cd, a link to touch).
  ["enable -n", "enable -n cd; cd m", /turns shell builtins off/],
  ["enable -n with more", "enable -ns kill; kill m", /turns shell builtins off/],
  ["enable built at run time", 'enable "$o" cd; cd m', /turns shell builtins off/],
  ["zsh's disable", "disable cd; cd m", /turns shell builtins off/],
];

describeAsked(
  "policy: a wrapper that runs its program elsewhere is asked about",
  policy,
  CONTEXT,
  ASKED,
);

/** The program's name still decides where it is known: [name, line, rule]. */
const DENIED: [string, string, string][] = [
  ["chroot touch", "chroot /srv/jail touch m", "touch"],
  ["sudo PATH= touch", "sudo PATH=/tmp/evil touch m", "touch"],
  ["su - -c (options after the lone -)", "su - -c 'touch m'", "touch"],
  ["su USER -c (options after the user)", "su root -c 'touch m'", "touch"],
  ["runuser -l USER -c", "runuser -l root -c 'touch m'", "touch"],
  ["env -C with a denied name", "env -C sub touch m", "touch"],
];

describeDenied("policy: a denied program behind these wrappers is denied", policy, CONTEXT, DENIED);

describeAllowed("policy: the same wrappers used plainly stay allowed", policy, CONTEXT, [
  "./tool m",
  "env -C sub ls",
  "env -C /tmp ls -l",
  "sudo ls",
  "sudo -u root ls",
  "sudo FOO=1 ls",
  "env FOO=1 ls",
  "bash -c 'ls x'",
  "bash -lc ls",
  "bash +k -c ls",
  "bash -o pipefail -c 'ls | wc -l'",
  "zsh -k -c 'ls x'",
  "unshare -r ls",
  "nsenter -t 1 -m ls",
  "su -c ls",
  "enable -a",
  "enable -p",
  "disable",
]);

// A program run by another program (nice, env, sudo, xargs) or by `exec` is a file found on PATH,
// never the shell's builtin: `nice cd m` ran a file named cd (a link to touch), reproduced.
mkdirSync(join(dir, "builtins"));
symlinkSync("/usr/bin/touch", join(dir, "builtins", "cd"));
symlinkSync("/usr/bin/touch", join(dir, "builtins", "help"));
const BUILTIN_NAMES = { cwd: dir, env: { ...CONTEXT.env, PATH: `${dir}/builtins:/usr/bin:/bin` } };

describeDenied("policy: a builtin's name run by a program is a file", policy, BUILTIN_NAMES, [
  ["nice", "nice cd m", "touch"],
  ["env", "env cd m", "touch"],
  ["timeout", "timeout 5 help m", "touch"],
  ["sudo", "sudo cd m", "touch"],
  ["xargs", "xargs cd <<< m", "touch"],
  ["exec", "exec cd m", "touch"],
  ["/usr/bin/time", "/usr/bin/time cd m", "touch"],
]);

describeAllowed("policy: a builtin run by the shell stays a builtin", policy, BUILTIN_NAMES, [
  "cd /tmp",
  "command cd /tmp",
  "builtin cd /tmp",
  "time cd /tmp",
  "nice echo hi",
]);

// A word of a wrapper's own that may become no word or several moves its program: `env -u $x
// echo touch m` ran touch with x empty (the reviewer's f08, reproduced through the binary), and
// so did an unmatched glob under nullglob (f06, f07).
describeAsked(
  "policy: a wrapper's word that may vanish or split before its program",
  policy,
  CONTEXT,
  [
    ["an unquoted variable", "env -u $x echo touch m", /may become no word or several/],
    ['"$@"', 'env -u "$@" echo touch m', /may become no word or several/],
    ['"${a[@]}"', 'env -u "${a[@]}" echo touch m', /may become no word or several/],
    ["a substitution", "env -u $(true) echo touch m", /may become no word or several/],
    ["a glob (nullglob)", "env -u [q] echo touch m", /may become no word or several/],
    ["flock's file", "flock $x echo touch m", /may become no word or several/],
    ["timeout's duration", "timeout $t echo touch m", /may become no word or several/],
    ["sudo's user", "sudo -u $u echo touch m", /may become no word or several/],
  ],
);

describeDenied("policy: the program as written is still judged", policy, CONTEXT, [
  ["env with an assignment built at run time", "env FOO=$x touch m", "touch"],
]);

describeAllowed("policy: a quoted expansion is one word", policy, CONTEXT, [
  'env -u "$x" echo touch m',
  'sudo -u "$USER" ls',
  "nice -n 5 ls *.txt",
]);
