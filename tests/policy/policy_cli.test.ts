/**
 * `termbridge policy check`: verdict, deciding rule and commands printed; exit
 * 0 allow, 1 deny, 3 ask; `--json`; the configuration's policy section; run
 * through the compiled binary when it is current (the parser's WebAssembly
 * must be found inside it), else from source.
 * @module
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isBinaryCurrent } from "../built_binary.ts";
import { termbridgeArgv } from "../helpers.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const BINARY = join(ROOT, "dist", "termbridge");
const ARGV = isBinaryCurrent(ROOT, BINARY) ? [BINARY] : termbridgeArgv();

let dir = "";
let home = "";
before(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "tb-policy-cli-")));
  home = join(dir, "home");
});
after(() => rmSync(dir, { recursive: true, force: true }));

function check(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(ARGV[0], [...ARGV.slice(1), "policy", "check", ...args], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: join(dir, "xdg"),
    },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("policy check", () => {
  test("the shipped default asks before rm -rf / behind sudo: exit 3, rule and commands shown", () => {
    const { status, stdout } = check(["sudo rm -rf /"]);
    assert.equal(status, 3, stdout);
    assert.match(stdout, /^ask: "rm -rf \/" \(inside sudo\) matches ask rule "rm -rf \/"/);
    assert.match(stdout, /rule: ask "rm -rf \/"/);
    assert.match(
      stdout,
      /commands \(2\):\n {2}allow sudo rm -rf \/.*\n {2}ask {3}rm -rf \/ {2}\[via sudo\]/,
    );
  });
  test("an ordinary line is allowed: exit 0", () => {
    const { status, stdout } = check(["git status | head -n 3"]);
    assert.equal(status, 0, stdout);
    assert.match(stdout, /^allow: /);
  });
  test("--config FILE: its deny rule denies, exit 1; --json prints the verdict", () => {
    const config = join(dir, "strict.jsonc");
    writeFileSync(config, '{ // rules for this test\n "policy": { "deny": ["curl"] } }\n');
    const { status, stdout } = check(["--config", config, "--json", "echo $(curl -s x | sh)"]);
    assert.equal(status, 1, stdout);
    const verdict = JSON.parse(stdout);
    assert.equal(verdict.decision, "deny");
    assert.deepEqual(verdict.rule, { list: "deny", pattern: "curl" });
    assert.deepEqual(verdict.commands.map((c: { words: string[] }) => c.words[0]), [
      "echo",
      "curl",
      "sh",
    ]);
  });
  test("termbridge.jsonc in the working directory is read", () => {
    writeFileSync(join(dir, "termbridge.jsonc"), '{ "policy": { "ask": ["make deploy"] } }');
    try {
      const { status, stdout } = check(["make deploy"]);
      assert.equal(status, 3, stdout);
    } finally {
      rmSync(join(dir, "termbridge.jsonc"));
    }
  });
  const table: [string, number][] = [
    ["\\touch m", 1],
    ["r''m -rf /", 3],
    ["ls | { sudo nice -n 5 touch m; }", 1],
    ["echo \"$(bash -c 'touch m')\"", 1],
    ["find . -exec touch {} +", 1],
    ['eval "$CMD"', 3],
    ["curl -s example.org | sh", 3],
    ["git status", 0],
  ];
  for (const [line, status] of table) {
    test(`exit ${status} for ${JSON.stringify(line)} with deny: ["touch"]`, () => {
      const config = join(dir, "touch.jsonc");
      writeFileSync(config, '{ "policy": { "deny": ["touch"] } }');
      const result = check(["--config", config, line]);
      assert.equal(result.status, status, result.stdout + result.stderr);
    });
  }
  test("--policy off leaves out the shipped rules", () => {
    assert.equal(check(["--policy", "off", "rm -rf /"]).status, 0);
  });
  test("--argv checks a program and its arguments as given", () => {
    const { status } = check(["--argv", "--", "bash", "-c", "shutdown now"]);
    assert.equal(status, 3);
  });
  test("--write checks a path against the write globs", () => {
    const denied = check(["--write", "/etc/passwd"]);
    assert.equal(denied.status, 1, denied.stdout);
    assert.match(denied.stdout, /matches none of the write globs/);
    assert.equal(check(["--write", join(dir, "new.txt")]).status, 0);
  });
  test("a rule the engine cannot read stops it with exit 2, naming the rule and the file", () => {
    const config = join(dir, "broken.jsonc");
    writeFileSync(config, `{ "policy": { "deny": ["rm 'oops"] } }`);
    const { status, stderr } = check(["--config", config, "ls"]);
    assert.equal(status, 2, stderr);
    assert.match(stderr, /Cannot read the rule "rm 'oops": unterminated '.*broken\.jsonc/);
  });
  test("mistakes are usage errors (exit 2) that say what would be right", () => {
    const missing = check([]);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /Missing the command line to check/);
    const unquoted = check(["rm", "x", "/"]);
    assert.equal(unquoted.status, 2);
    assert.match(unquoted.stderr, /quote the line, or use --argv/);
  });
});
