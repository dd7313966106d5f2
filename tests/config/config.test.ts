/**
 * Configuration files: errors named by file, line and column in words; a
 * repository's file that may only tighten; trust; where each value came from.
 * @module
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConfigError,
  describeSource,
  loadConfig,
  readConfigFile,
} from "../../lib/config/config.ts";

function withDirs(
  body: (dirs: { home: string; repo: string; env: Record<string, string> }) => void,
) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tb-config-")));
  const home = join(root, "home");
  const repo = join(root, "repo");
  mkdirSync(join(home, ".config", "termbridge"), { recursive: true });
  mkdirSync(repo);
  try {
    body({ home, repo, env: { HOME: home } });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function userFile(home: string, text: string): string {
  const path = join(home, ".config", "termbridge", "termbridge.jsonc");
  writeFileSync(path, text);
  return path;
}

const INVALID: { name: string; text: string; where: string; words: RegExp }[] = [
  {
    name: "a missing comma",
    text: '{\n  "cols": 100\n  "rows": 30\n}\n',
    where: ":3:3:",
    words: /expected "," between items/,
  },
  {
    name: "an unterminated string",
    text: '{\n  "shell": ["bash]\n}\n',
    where: ":2:13:",
    words: /unterminated string/,
  },
  {
    name: "an unknown key",
    text: '{\n  // comment\n  "sheel": ["bash"]\n}\n',
    where: ":3:3:",
    words: /unknown key "sheel"/,
  },
  {
    name: "a nested value of the wrong type",
    text: '{\n  "limits": {\n    "terminals": -3\n  }\n}\n',
    where: ":3:18:",
    words: /"limits.terminals" must be a whole number >= 0, not -3/,
  },
  {
    name: "a sandbox mode that does not exist",
    text: '{ "sandbox": { "mode": "strict" } }',
    where: ":1:24:",
    words: /"sandbox.mode" must be one of "off", "read-only", "workspace-write"/,
  },
  {
    name: "a policy decision that does not exist",
    text: '{ "policy": { "default": "maybe" } }',
    where: ":1:26:",
    words: /"policy.default" must be one of "allow", "ask", "deny"/,
  },
  {
    name: "a question timeout of no time",
    text: '{ "webAskTimeout": 0 }',
    where: ":1:20:",
    words: /"webAskTimeout" must be a number of seconds > 0, not 0/,
  },
];

for (const { name, text, where, words } of INVALID) {
  test(`config: ${name} is named by file, line and column in words`, () => {
    withDirs(({ repo }) => {
      const path = join(repo, "termbridge.jsonc");
      writeFileSync(path, text);
      assert.throws(() => readConfigFile(path), (error: Error) => {
        assert.ok(error instanceof ConfigError);
        assert.ok(error.message.includes(`${path}${where}`), error.message);
        assert.match(error.message, words);
        assert.doesNotMatch(error.message, /Expected|InvalidSymbol|CommaExpected/);
        return true;
      });
    });
  });
}

test("config: a repository's shell, env and allow rules are ignored with one warning naming them", () => {
  withDirs(({ home, repo, env }) => {
    writeFileSync(
      join(repo, "termbridge.jsonc"),
      JSON.stringify({
        shell: ["/tmp/evil"],
        env: { X: "1" },
        policy: { allow: ["curl"], deny: ["rm -rf"], write: ["/**"] },
        limits: { terminals: 4, commandSeconds: 0 },
        sandbox: { mode: "read-only" },
        cols: 90,
      }),
    );
    userFile(home, '{ "policy": { "deny": ["sudo"] } }');
    const loaded = loadConfig({ cwd: repo, env });
    assert.equal(loaded.config.shell, undefined);
    assert.equal(loaded.config.env, undefined);
    assert.deepEqual(loaded.config.policy?.allow, undefined);
    assert.deepEqual(loaded.config.policy?.deny, ["sudo", "rm -rf"]);
    assert.equal(loaded.config.policy?.write, undefined);
    assert.equal(loaded.config.limits?.terminals, 4);
    assert.equal(loaded.config.limits?.commandSeconds, undefined);
    assert.equal(loaded.config.sandbox?.mode, "read-only");
    assert.equal(loaded.config.cols, 90);
    assert.equal(loaded.warnings.length, 1);
    for (const name of ["shell", "env", "policy.allow", "policy.write", "limits.commandSeconds"]) {
      assert.ok(loaded.warnings[0].includes(name), loaded.warnings[0]);
    }
    assert.match(loaded.warnings[0], /"trust"/);
  });
});

test("config: a repository may narrow the write globs", () => {
  withDirs(({ repo, env }) => {
    writeFileSync(join(repo, "termbridge.jsonc"), '{ "policy": { "write": ["${cwd}/src/**"] } }');
    const loaded = loadConfig({ cwd: repo, env });
    assert.deepEqual(loaded.config.policy?.write, ["${cwd}/src/**"]);
    assert.deepEqual(loaded.warnings, []);
  });
});

test("config: a trusted directory's file sets anything; so does --config", () => {
  withDirs(({ home, repo, env }) => {
    writeFileSync(join(repo, "termbridge.jsonc"), '{ "shell": ["zsh"], "trust": ["/"] }');
    userFile(home, `{ "trust": [${JSON.stringify(repo)}] }`);
    const trusted = loadConfig({ cwd: repo, env });
    assert.deepEqual(trusted.config.shell, ["zsh"]);
    assert.deepEqual(trusted.config.trust, [repo], "trust is taken from the user's file only");
    assert.match(trusted.warnings[0] ?? "", /trust \(user config only\)/);
    userFile(home, "{}");
    const explicit = loadConfig({ cwd: home, env, explicit: join(repo, "termbridge.jsonc") });
    assert.deepEqual(explicit.config.shell, ["zsh"]);
  });
});

test("config: each value knows its file and line", () => {
  withDirs(({ home, repo, env }) => {
    const path = userFile(home, '{\n  "cols": 100,\n  "policy": {\n    "deny": ["sudo"]\n  }\n}\n');
    writeFileSync(join(repo, "termbridge.jsonc"), '{\n\n  "policy": { "deny": ["curl"] }\n}');
    const loaded = loadConfig({ cwd: repo, env });
    assert.equal(describeSource(loaded.sources.cols?.[0]), `${path}:2 (user)`);
    assert.deepEqual(loaded.sources["policy.deny"].map(describeSource), [
      `${path}:4 (user)`,
      `${join(repo, "termbridge.jsonc")}:3 (repository)`,
    ]);
    assert.equal(describeSource(loaded.sources.rows?.[0]), "default");
  });
});

test("config: --config naming a missing file is an error", () => {
  withDirs(({ repo, env }) => {
    assert.throws(
      () => loadConfig({ cwd: repo, env, explicit: "nope.jsonc" }),
      (error: Error) => error instanceof ConfigError && /no such file/.test(error.message),
    );
  });
});

test("config: ~ expands in cwd and record; a cwd that is not an existing directory stops every mode with its line", () => {
  withDirs(({ home, repo, env }) => {
    mkdirSync(join(home, "src"));
    userFile(home, '{\n  "cwd": "~/src",\n  "record": "~/casts"\n}\n');
    const loaded = loadConfig({ cwd: repo, env });
    assert.equal(loaded.config.cwd, join(home, "src"));
    assert.equal(loaded.config.record, join(home, "casts"));
    const path = userFile(home, '{\n  "cols": 100,\n  "cwd": "/nonexistent/project"\n}\n');
    assert.throws(
      () => loadConfig({ cwd: repo, env }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          `Invalid config ${path}:3: "cwd" must be an existing directory, not "/nonexistent/project"`,
    );
    userFile(home, '{ "cwd": "src" }');
    assert.throws(
      () => loadConfig({ cwd: repo, env }),
      /"cwd" must be an absolute path \(or one starting with ~\/\), not "src"/,
    );
  });
});
