/**
 * How a program word becomes a file (review 5): `..` after a symlinked
 * directory is applied where the kernel applies it (`lnk/../ls2` is X/ls2 when
 * lnk is X/real); a process's own files by any spelling (`//dev/stdin`,
 * `/proc/./self/exe`, `/proc/self/cwd/x`, a link into them) are the running
 * shell's, never this process's, so unknown; directory changes other than cd
 * (zsh's `chdir`, a directory named as a command under autocd) make a later
 * relative program unknown, as does a name found through a relative PATH
 * entry; EXECIGNORE is a lookup variable like PATH; bash's builtins that zsh
 * lacks (`help`, `shopt`...) run a file of that name in zsh. Each was
 * reproduced through the binary running touch under deny touch.
 * @module
 */

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createPolicy } from "../../lib/policy/mod.ts";
import { describeAllowed, describeAsked, describeDenied } from "./_verdicts.ts";

// ./ls2 and ./t2 are harmless (true); X/ls2 and s2/t2 are touch; lnk -> X/real.
const dir = realpathSync(mkdtempSync(join(tmpdir(), "tb-files-")));
for (
  const sub of ["X/real", "s2", "bin", "sub/bin", "a", "b", "zpath", "d/inner", "inner", "h/bin"]
) {
  mkdirSync(join(dir, sub), { recursive: true });
}
symlinkSync("/bin/true", join(dir, "ls2"));
symlinkSync("/usr/bin/touch", join(dir, "X", "ls2"));
symlinkSync(join(dir, "X", "real"), join(dir, "lnk"));
symlinkSync("/bin/true", join(dir, "t2"));
symlinkSync("/usr/bin/touch", join(dir, "s2", "t2"));
// d holds no program itself (a directory holding one is asked about as an argument).
symlinkSync("/usr/bin/touch", join(dir, "d", "inner", "t2"));
symlinkSync("/bin/true", join(dir, "inner", "t2"));
symlinkSync("/bin/true", join(dir, "bin", "true2"));
symlinkSync("/usr/bin/touch", join(dir, "sub", "bin", "true2"));
symlinkSync("/bin/true", join(dir, "a", "true2"));
symlinkSync("/usr/bin/touch", join(dir, "b", "true2"));
symlinkSync("/proc/self/fd/0", join(dir, "fd0"));
symlinkSync("/usr/bin/touch", join(dir, "h", "bin", "true2"));
writeFileSync(join(dir, "X", "run"), "#!/bin/sh\n", { mode: 0o755 });
symlinkSync("/proc/self/cwd", join(dir, "here"));
for (const name of ["help", "shopt", "caller", "compgen", "complete", "bind"]) {
  symlinkSync("/usr/bin/touch", join(dir, "zpath", name));
}
after(() => rmSync(dir, { recursive: true, force: true }));

const CONTEXT = { cwd: dir, env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch"] });

describeDenied("policy: `..` is applied after the link before it, as the kernel does", policy, {
  cwd: dir,
  env: CONTEXT.env,
}, [
  ["a link to a directory, then ..", "lnk/../ls2 m", "touch"],
  ["an absolute path through the link", `${dir}/lnk/../ls2 m`, "touch"],
  ["./ first", "./lnk/./../ls2 m", "touch"],
]);

describeDenied(
  "policy: `..` from a working directory reached through a link",
  policy,
  { cwd: join(dir, "lnk"), env: CONTEXT.env },
  [["../ in a symlinked directory", "../ls2 m", "touch"]],
);

describeAsked(
  "policy: a process's own files, by any spelling, are known only when they run",
  policy,
  CONTEXT,
  [
    ["//dev/stdin", "//dev/stdin m < /usr/bin/touch", /a file of the process that runs it/],
    ["/dev/./stdin", "/dev/./stdin m < ls2", /a file of the process/],
    ["/dev/../dev/stdin", "/dev/../dev/stdin m < ls2", /a file of the process/],
    ["/proc/self/root/dev/stdin", "/proc/self/root/dev/stdin m < ls2", /a file of the process/],
    ["//proc/self/exe", "//proc/self/exe -c 'touch m'", /a file of the process/],
    ["/proc/./self/exe", "/proc/./self/exe -c 'touch m'", /a file of the process/],
    ["/proc/self/root/proc/self/exe", "/proc/self/root/proc/self/exe -c x", /a file of/],
    ["/proc/thread-self/exe", "/proc/thread-self/exe -c x", /a file of the process/],
    ["/proc/PID/exe", "/proc/1234/exe -c x", /a file of the process/],
    ["/proc/self/cwd/", "/proc/self/cwd/t2 m", /a file of the process/],
    ["/proc/self/fd/N", "exec 3</usr/bin/touch; /proc/self/fd/3 m", /a file of the process/],
    ["/proc/self/map_files", "/proc/self/map_files/400000-401000 m", /a file of the process/],
    ["/dev/fd/N", "/dev/fd/3 m 3</usr/bin/touch", /a file of the process/],
    ["a link to /proc/self/fd/0", "./fd0 m < /usr/bin/touch", /a file of the process/],
    ["a link to /proc/self/cwd", "./here/t2 m", /a file of the process/],
    ["bash -c with the spelling", "bash -c '//dev/stdin m' < /usr/bin/touch", /a file of/],
    ["a PATH entry in /proc", "PATH=/proc/self/cwd t2 m", /PATH|a file of/],
    [
      "a shell's script through a link to /proc/self/fd/0",
      "echo 'x=tou; ${x}ch m' | /bin/bash ./fd0",
      /a device or process file/,
    ],
  ],
);

describeAsked(
  "policy: a program the line writes first, by another spelling through a link",
  policy,
  CONTEXT,
  [
    [
      "written as X/run, run as lnk/../run",
      "printf 'touch m' > X/run; lnk/../run",
      /names "lnk\/\.\.\/run" as a file/,
    ],
    [
      "written as lnk/../run, run as X/run",
      "printf 'touch m' > lnk/../run; X/run",
      /names "X\/run" as a file/,
    ],
  ],
);

describeAsked(
  "policy: a process's file among an unlisted program's arguments may be run by it",
  policy,
  CONTEXT,
  [
    [
      "perf stat /dev/stdin",
      "perf stat -o /dev/null /dev/stdin m < /usr/bin/touch",
      /a file of the process/,
    ],
    ["another spelling", "perf stat //dev/stdin m < ls2", /a file of the process/],
    ["a descriptor", "valgrind /proc/self/fd/3 m 3< /usr/bin/touch", /a file of the process/],
    ["the process's executable", "perf stat /proc/self/exe -c x", /a file of the process/],
    ["a link to fd 0", "perf stat ./fd0 m < /usr/bin/touch", /a file of the process/],
  ],
);

describeAllowed("policy: process files that run nothing", policy, CONTEXT, [
  "cat /dev/stdin",
  "echo x | cat /dev/stdin",
  "cat /proc/self/status",
  "ls -la /proc/self/fd",
  "echo hi | tee /dev/stderr",
  "python3 script.py < input.txt",
]);

describeAsked("policy: directory changes other than cd", policy, CONTEXT, [
  [
    "bash autocd",
    "shopt -s autocd; d && ./inner/t2 m",
    /changes directory before it runs "\.\/inner\/t2"/,
  ],
  ["autocd with a path", "shopt -s autocd; ./d/ && ./inner/t2 m", /changes directory/],
  ["zsh chdir", "chdir d; ./inner/t2 m", /changes directory before it runs "\.\/inner\/t2"/],
  ["builtin cd", "builtin cd d; ./inner/t2 m", /changes directory/],
  ["command cd", "command cd d; ./inner/t2 m", /changes directory/],
  [
    "cdable variables",
    "shopt -s autocd cdable_vars; v=$PWD/d; v; ./inner/t2 m",
    /changes directory/,
  ],
  ["zsh CDABLE_VARS", "setopt autocd CDABLE_VARS; v=$PWD/d; v; ./inner/t2 m", /changes directory/],
  ["CDPATH", `CDPATH=${dir}; shopt -s autocd; d; ./inner/t2 m`, /changes directory/],
  ["a function from an earlier line", "f d; ./inner/t2 m", /"f" is no program: a shell function/],
  ["a function that changes directory", 'f() { cd "$1"; }', /defines "f" and changes directory/],
  ["one named like a program", 'ls() { cd "$1"; }', /defines "ls" and changes directory/],
]);

describeAsked(
  "policy: a name found through a relative PATH entry after the line changed directory",
  policy,
  { cwd: dir, env: { ...CONTEXT.env, PATH: "bin:/usr/bin:/bin" } },
  [
    ["cd, then a name", "cd sub && true2 m", /looks up "true2" in PATH, whose entry "bin"/],
    ["cd, then a name on PATH after it", "cd sub && ls", /looks up "ls" in PATH/],
    ["pushd", "pushd sub; true2 m", /relative/],
  ],
);

describeAsked(
  "policy: an empty PATH entry (the current directory) after cd",
  policy,
  { cwd: dir, env: { ...CONTEXT.env, PATH: "/usr/bin:/bin:" } },
  [["a name on no absolute entry", "cd s2 && t2 m", /whose entry "\." is relative/]],
);

describeAsked(
  "policy: EXECIGNORE changes which file a name runs",
  policy,
  { cwd: dir, env: { ...CONTEXT.env, PATH: `${dir}/a:${dir}/b:/usr/bin` } },
  [
    ["set on the line", "EXECIGNORE=*/a/*; true2 m", /changes EXECIGNORE/],
    ["exported", "export EXECIGNORE='*/a/*'; true2 m", /EXECIGNORE/],
    ["read", "read EXECIGNORE; true2 m", /sets EXECIGNORE/],
    ["arithmetic", "((EXECIGNORE=1)); true2 m", /EXECIGNORE/],
  ],
);

describeAsked(
  "policy: EXECIGNORE in the environment",
  policy,
  {
    cwd: dir,
    env: { ...CONTEXT.env, PATH: `${dir}/a:${dir}/b:/usr/bin`, EXECIGNORE: "*/a/*" },
  },
  [["a name looked up", "true2 m", /EXECIGNORE is set/]],
);

// PATH="~/bin:$PATH" (quoted: a literal ~): bash expands it as it searches.
const tildePath = {
  cwd: dir,
  env: { HOME: join(dir, "h"), PATH: "~/bin:/usr/bin:/bin" },
};

describeDenied(
  "policy: a PATH entry's leading ~ is the home directory to bash",
  policy,
  tildePath,
  [
    ["a name found there", "true2 m", "touch"],
  ],
);

describeAsked("policy: a write into a ~ entry of PATH", policy, tildePath, [
  ["a copy into it", "cp /usr/bin/id ~/bin/ls; ls m", /directory on PATH/],
]);

describeAllowed("policy: honest lines with a ~ entry in PATH", policy, tildePath, [
  "ls -la",
  "git status",
]);

const zsh = {
  cwd: dir,
  env: { ...CONTEXT.env, PATH: `${dir}/zpath:/usr/bin:/bin` },
  shellState: { keyword: false, homeMoved: false, shell: "/usr/bin/zsh" },
};

describeDenied("policy: bash's builtins zsh lacks run files in zsh", policy, zsh, [
  ["help", "help m", "touch"],
  ["shopt", "shopt -s m", "touch"],
  ["caller", "caller m", "touch"],
  ["compgen", "compgen m", "touch"],
  ["complete", "complete m", "touch"],
  ["bind", "bind m", "touch"],
]);

describeDenied(
  "policy: shell strings use the builtins of their shell",
  policy,
  { cwd: dir, env: zsh.env },
  [
    ["zsh -c in bash", "zsh -c 'help m'", "touch"],
    ["sh -c (dash has no help)", "sh -c 'help m'", "touch"],
    ["another program's string (any shell)", "watch 'help m'", "touch"],
  ],
);

describeAllowed("policy: the same names where they are builtins", policy, {
  cwd: dir,
  env: zsh.env,
}, ["help cd", "shopt -s globstar", "bash -c 'help cd'", "zsh -c 'echo hi; print ok'"]);

describeAllowed("policy: honest lines beside these stay allowed", policy, CONTEXT, [
  "cd d && ls",
  "cd d && ls && cd ..",
  "cd /tmp && git status",
  "./ls2 m",
  "./t2 --version",
  "ls -la /proc/self/fd",
  "cat /proc/self/status",
  "echo hi > /dev/stdout",
  "git -C bin status",
  "s2x=1; echo $s2x",
  "shopt -s globstar; ls **/*.ts",
  "pushd /tmp && ls && popd",
  "make -j4 && ./t2",
  "f() { echo hi; }; f && ./t2",
  "exit",
]);

describeAllowed(
  "policy: a relative PATH entry at the start directory, and absolute ones after cd",
  policy,
  { cwd: dir, env: { ...CONTEXT.env, PATH: "/usr/bin:/bin:bin" } },
  ["true2 m", "cd sub && ls", "cd sub && git status"],
);
