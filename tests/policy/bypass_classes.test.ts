/**
 * The bypass classes of the second abuse run, at the policy's level: programs
 * that run their arguments (listed, and the general rule for the rest),
 * commands from xargs' input, arithmetic that runs substitutions, constructs
 * the parser reads differently (named coproc, brace expansion, a program run
 * from a descriptor), zsh's `=cmd`, exported bash functions, and user rules
 * whose options match as sets. Each class has spellings beyond the issue's,
 * and honest lines that must stay allowed.
 * @module
 */

import { describe, test } from "node:test";
import { describeAllowed, describeAsked, describeDenied, describeUnderRule } from "./_verdicts.ts";
import assert from "node:assert/strict";
import { createPolicy, DEFAULT_POLICY_RULES } from "../../lib/policy/mod.ts";
import type { Decision } from "../../lib/policy/mod.ts";

const CONTEXT = { cwd: "/", env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch", "rm", "curl"], ask: ["git push"] });

/** Lines that run `touch`: each must be denied by the rule "touch". */
const DENIED: [string, string][] = [
  ["setpriv", "setpriv --reuid=1000 --clear-groups touch m"],
  ["setpriv with a value word", "setpriv --reuid 1000 touch m"],
  ["setarch", "setarch x86_64 -R touch m"],
  ["linux32", "linux32 touch m"],
  ["choom", "choom -n 100 -- touch m"],
  ["logsave", "logsave -a /tmp/log touch m"],
  ["ssh-agent", "ssh-agent -t 10 touch m"],
  ["sg -c", "sg users -c 'touch m'"],
  ["sg without -c", "sg - users 'touch m'"],
  ["capsh --", "capsh --caps= -- -c 'touch m'"],
  ["capsh ==", "capsh == -- -c 'touch m'"],
  ["the loader by path", "/lib64/ld-linux-x86-64.so.2 /usr/bin/touch m"],
  ["the loader with options", "ld.so --library-path /lib --argv0 x touch m"],
  ["the loader inside sudo", "sudo /lib/ld-linux-aarch64.so.1 touch m"],
  ["arithmetic of a variable the line set", "x='a[$(touch m)]'; echo $((x))"],
  ["arithmetic in (( ))", "y='b[`touch m`]'; (( y + 1 ))"],
  ["let", "let 'a[$(touch m)]'"],
  ["let with an ANSI-C string", "let $'a[$(touch m)]'"],
  ["[[ -eq ]]", "[[ 1 -eq 'a[$(touch m)]' ]]"],
  ["[[ -lt ]] of an escaped word", "[[ a\\[\\$\\(touch\\ m\\)\\] -lt 2 ]]"],
  ["declare -i", "declare -i n; n='a[$(touch m)]'"],
  ["local -i in a function", "f() { local -i k='a[$(touch m)]'; }; f"],
  ["an array subscript", "i='a[$(touch m)]'; echo ${arr[i]}"],
  ["arithmetic in sh -c, the text outside", "export v='a[$(touch m)]'; bash -c 'echo $((v))'"],
  ["a named coproc", "coproc C { touch m; }"],
  ["a named coproc with a loop", "coproc W while true; do touch m; done"],
  ["braces forming the name", "to{uch,} m"],
  ["nested braces", "t{o{u,x},y}ch m"],
  ["a brace sequence", "touc{h..h} m"],
  ["zsh's =cmd", "zsh -fc '=touch m'"],
  ["zsh's =cmd after env", "zsh -c 'env =touch m'"],
  ["an exported function", `env 'BASH_FUNC_ls%%=() { touch "$@"; }' bash -c 'ls m'`],
  ["an exported function, old style", "env 'BASH_FUNC_ls()=() { touch m; }' bash -c ls"],
  ["env with an odd assignment first", "env a-b=1 touch m"],
  ["an exported function through sudo", "sudo 'BASH_FUNC_ls%%=() { touch m; }' bash -c ls"],
  ["the loader by its versioned name", "ld-2.31.so touch m"],
  ["an escaped subscript in arithmetic", "x=a[\\$\\(touch\\ m\\)]; echo $((x))"],
  ["read, then arithmetic", "read x <<< 'a[$(touch m)]'; echo $((x))"],
  ["a substring offset", "x='a[$(touch m)]'; : ${y:x}"],
  ["an assignment's subscript", "x='a[$(touch m)]'; arr[x]=1"],
  ["unset of a subscript", "unset 'a[$(touch m)]'"],
  ["[[ -v ]] of a subscript", "[[ -v 'a[$(touch m)]' ]]"],
  ["printf -v into a subscript", "printf -v 'a[`touch m`]' x"],
  ["words after a redirection's target", "env >/dev/null touch m"],
  ["words after &>", "nice &>/dev/null touch m"],
  ["words after two redirections", "A=1 env 2>/dev/null >/dev/null touch m | cat"],
  ["arithmetic inside bash -c", `bash -c "x='a[\$(touch m)]'; echo \$((x))"`],
];

describeDenied(
  "policy: programs reached another way are denied",
  policy,
  CONTEXT,
  DENIED.map(([name, line]) => [name, line, "touch"]),
);

/** Lines whose program cannot be known, or names a denied one in its arguments: asked about. */
const ASKED: [string, string, RegExp][] = [
  ["an unknown wrapper", "mywrap touch m", /"touch" among its arguments/],
  ["a program by path in the arguments", "runit /usr/bin/touch m", /"\/usr\/bin\/touch"/],
  ["a value naming a denied program", "git -c core.pager=touch log", /"touch"/],
  ["xargs env", "echo touch m | xargs env", /its program from its input|"touch"/],
  ["xargs with a wrapper and nothing after", "printf 'touch\\n' | xargs -n1 nice", /input/],
  ["xargs sudo -u", "xargs sudo -u root", /input/],
  ["find -exec env {}", "find . -exec env {} \\;", /only known when the line runs/],
  ["parallel env", "parallel env ::: date", /only known when the line runs/],
  ["/proc/self/fd", "exec 3</usr/bin/touch; /proc/self/fd/3 m", /descriptor/],
  ["/dev/fd", "exec 7</usr/bin/touch; /dev/fd/7 m", /descriptor/],
  ["/proc/PID/exe", "/proc/1/exe m", /descriptor/],
  ["braces at the front (the parser cannot read it)", "{t,x}ouch m", /not valid shell syntax/],
  ["an exported function built at run time", 'env BASH_FUNC_f%%="$X" bash -c f', /run time/],
  ["man with a pager option", "man -P touch ls", /"touch" among its arguments/],
];

describeAsked(
  "policy: what cannot be known or names a denied program is asked about",
  policy,
  CONTEXT,
  ASKED,
);

/** Honest lines: none of the checks above may catch them. */
const ALLOWED = [
  'git commit -m "rm -rf is bad"',
  "echo $((1 + 2)); let i=i+1; (( n > 3 )) && echo big",
  "x='$(date)'; echo \"$x\"",
  "declare -i n=5; echo $n",
  "echo {a..c} file{1,2}.txt",
  "mkdir -p build/{bin,lib}",
  "find . -name '*.o' -exec ls -l {} +",
  "echo hi | xargs printf '%s\\n'",
  "command -v touch",
  "setpriv --reuid 1000 ls",
  "coproc C { cat; }",
  "grep -r 'touch me' src",
  "env A=1 ls",
  "git log --format='%H [$(x)]'",
  // Programs that only read or print their arguments.
  "echo touch",
  "grep -rn touch src/",
  "ls -la | grep touch",
  "which touch",
  "man touch",
  "man 1 touch",
];

describeAllowed("policy: honest lines stay allowed", policy, CONTEXT, ALLOWED);

describe("policy: honest lines stay allowed, in context", () => {
  test("the environment's exported functions are checked, and harmless ones pass", async () => {
    const env = { ...CONTEXT.env, "BASH_FUNC_ls%%": '() { touch "$@"; }' };
    const bad = await policy().checkLine("ls m", { ...CONTEXT, env });
    assert.equal(bad.decision, "deny", bad.reason);
    assert.match(bad.reason, /exported function ls/);
    const fine = { ...CONTEXT.env, "BASH_FUNC_ll%%": "() { ls -l; }" };
    const ok = await policy().checkLine("ll", { ...CONTEXT, env: fine });
    assert.equal(ok.decision, "allow", ok.reason);
  });
  test("the shipped rules alone do not ask about names among arguments", async () => {
    const verdict = await createPolicy(DEFAULT_POLICY_RULES).checkLine(
      "perf record reboot",
      CONTEXT,
    );
    assert.equal(verdict.decision, "allow", verdict.reason);
    // A rule of the user's does.
    const own = await createPolicy({ ...DEFAULT_POLICY_RULES, ask: ["shred"] }).checkLine(
      "perf record shred x",
      CONTEXT,
    );
    assert.equal(own.decision, "ask", own.reason);
  });
  test("an allow rule for the command itself wins over the names in its arguments", async () => {
    const rules = createPolicy({ deny: ["touch"], allow: ["grep"] });
    const verdict = await rules.checkLine("grep touch notes.txt", CONTEXT);
    assert.equal(verdict.decision, "allow", verdict.reason);
  });
});

/** User rules with options match option sets: [rule, line, decision]. */
const OPTION_SETS: [string, string, Decision][] = [
  ["rm -rf", "rm -fr x", "deny"],
  ["rm -rf", "rm -r -f build", "deny"],
  ["rm -rf", "rm --recursive --force x", "deny"],
  ["rm -rf", "rm --force -R x", "deny"],
  ["rm -rf", "rm -Rf x", "deny"],
  ["rm -rf", "rm -v -rf x", "deny"],
  ["rm -rf", "rm x -rf", "deny"],
  ["rm -rf", "rm {-r,-f} x", "deny"],
  ["rm -rf", "sudo rm -f -r x", "deny"],
  ["rm -rf", "rm -r x", "allow"],
  ["rm -rf", "rm -f x", "allow"],
  ["rm -rf", "rm -- -rf", "allow"],
  ["rm -rf", "rm $OPTS x", "ask"],
  ["rm -rf /", "rm -fr /", "deny"],
  ["rm -rf /", "rm -fr /tmp", "allow"],
  ["git push --force", "git push -f origin", "deny"],
  ["git push --force", "git --no-pager push origin main --force", "deny"],
  ["git push --force", "git push --force-with-lease", "allow"],
  ["git push --force", "git push origin", "allow"],
  ["chmod -R 777", "chmod --recursive 777 /srv", "deny"],
  ["curl -X POST", "curl -X POST http://h", "deny"],
  ["curl -X POST", "curl --request POST http://h", "deny"],
  ["curl -X POST", "curl http://h", "allow"],
  ["find -delete", "find . -name x -delete", "deny"],
  ["find -delete", "find . -depth -type l -name t", "allow"],
  ["rm -?f", "rm -rf x", "deny"],
];

describeUnderRule("policy: options in user rules match as sets", CONTEXT, OPTION_SETS);
