/**
 * The second abuse run's bypass classes through the built binary: `serve`
 * with deny rules refuses every spelling (-32003) and the marker program
 * never runs; a command line runs in bash, the shell whose grammar the policy
 * reads (`echo x &>/dev/null marker` is one command to bash, two to dash);
 * `policy check` says the same; honest lines still run.
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { removeDir, termbridgeCommand } from "../mcp/_kit.ts";
import { markerWorkspace } from "./_workspace.ts";
import { Serve } from "./_serve.ts";

const S = "s";
const RULES = { policy: { deny: ["marker", "touch", "rm -rf"] } };

/** The dynamic loader of this machine, when it has one where glibc puts it. */
const LOADER = ["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"].find(existsSync);
const TOUCH = realpathSync("/usr/bin/touch");

function errorCode(answer: Record<string, unknown>): number | undefined {
  return (answer.error as { code?: number } | undefined)?.code;
}

/** The markers that ran (files `ran-*` in `dir`). */
function ran(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith("ran-") || name === "M");
}

/** Runs an allowed line to its end and returns its output. */
async function run(serve: Serve, command: string, args?: string[]): Promise<string> {
  const created = await serve.request("terminal/create", {
    sessionId: S,
    command,
    ...(args ? { args } : {}),
  });
  assert.equal(created.error, undefined, `${command}: ${JSON.stringify(created)}`);
  const terminalId = (created.result as { terminalId: string }).terminalId;
  await serve.request("terminal/wait_for_exit", { sessionId: S, terminalId });
  const output = await serve.request("terminal/output", { sessionId: S, terminalId });
  await serve.request("terminal/release", { sessionId: S, terminalId });
  return (output.result as { output: string }).output;
}

describe("bypass classes: through serve", () => {
  it(
    "bypass classes: every spelling is refused with -32003 and nothing runs",
    { timeout: 60_000 },
    async () => {
      const { dir, bin, env } = markerWorkspace(RULES, "termbridge-classes-");
      mkdirSync(join(dir, "victim"));
      const serve = new Serve([], { cwd: dir, env });
      try {
        const lines = [
          "setpriv marker a",
          'setarch "$(uname -m)" -R marker b',
          "choom -n 0 -- marker c",
          "logsave /dev/null marker d",
          "ssh-agent marker e",
          "sg \"$(id -gn)\" -c 'marker f'",
          "capsh -- -c 'marker g'",
          "echo marker h | xargs env",
          "echo marker i | xargs nice -n 1",
          "x='a[$(marker j)]'; echo $((x))",
          "let 'a[$(marker k)]'",
          "[[ 1 -eq 'a[$(marker l)]' ]]",
          "declare -i n; n='a[$(marker m)]'",
          "i='a[$(marker n)]'; echo ${arr[i]}",
          "coproc C { marker o; }; wait",
          "mar{ker,} p",
          `exec 3<${bin}/marker; /proc/self/fd/3 q`,
          `exec 4<${bin}/marker; /dev/fd/4 r`,
          "zsh -fc '=marker s'",
          `env 'BASH_FUNC_ls%%=() { marker t; }' bash -c ls`,
          "mywrapper marker u",
          // The parser takes these for more redirection targets; bash runs `env marker y`.
          "env >/dev/null marker y",
          "nice -n 1 2>/dev/null marker z",
          "rm -fr victim",
          "rm -r -f victim",
          "rm --recursive --force victim",
          "rm {-r,-f} victim",
          ...(LOADER ? [`${LOADER} ${TOUCH} M`] : []),
        ];
        for (const command of lines) {
          const answer = await serve.request("terminal/create", { sessionId: S, command });
          assert.equal(errorCode(answer), -32003, `${command}: ${JSON.stringify(answer)}`);
        }
        // `args: []` runs the command as a line: it is checked as one.
        const empty = await serve.request("terminal/create", {
          sessionId: S,
          command: "marker v",
          args: [],
        });
        assert.equal(errorCode(empty), -32003, JSON.stringify(empty));
        // A function exported through the request's env.
        const exported = await serve.request("terminal/create", {
          sessionId: S,
          command: "bash",
          args: ["-c", "ls"],
          env: [{ name: "BASH_FUNC_ls%%", value: "() { marker w; }" }],
        });
        assert.equal(errorCode(exported), -32003, JSON.stringify(exported));
        assert.match(JSON.stringify(exported), /exported function ls/);
        // A session opened with one.
        const opened = await serve.request("sessions/open", {
          name: "f",
          program: ["bash", "-c", "ls"],
          env: { "BASH_FUNC_ls%%": "() { marker x; }" },
        });
        assert.equal(errorCode(opened), -32003, JSON.stringify(opened));
        assert.deepEqual(ran(dir), []);
        assert.ok(existsSync(join(dir, "victim")), "rm removed the directory");
      } finally {
        await serve.close();
        removeDir(dir);
      }
    },
  );

  it("bypass classes: a command line runs in bash, the grammar the policy reads", {
    timeout: 60_000,
  }, async () => {
    const { dir, env } = markerWorkspace(RULES, "termbridge-classes-");
    // --yes: what is asked about runs, so what runs is the shell's reading of the line.
    const serve = new Serve(["--yes"], { cwd: dir, env });
    try {
      // dash runs `echo x &` then `>/dev/null marker a`; bash runs one echo.
      await run(serve, "echo x &>/dev/null marker a");
      // dash runs nested subshells; bash evaluates arithmetic.
      await run(serve, "((marker b))");
      assert.deepEqual(ran(dir), []);
      assert.match(await run(serve, 'echo "bash=${BASH_VERSION:-none}"'), /bash=\d/);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });

  it("bypass classes: honest lines run (no over-blocking)", { timeout: 60_000 }, async () => {
    const { dir, env } = markerWorkspace(RULES, "termbridge-classes-");
    const serve = new Serve([], { cwd: dir, env });
    try {
      assert.match(await run(serve, 'echo "the marker program is not run here"'), /not run here/);
      assert.match(await run(serve, "echo $((2 + 3)); let i=4; echo $i"), /5\r?\n4/);
      assert.match(await run(serve, "x='$(date)'; echo \"$x\""), /\$\(date\)/);
      await run(serve, "mkdir -p out/{a,b}");
      assert.ok(existsSync(join(dir, "out", "a")) && existsSync(join(dir, "out", "b")));
      await run(serve, "rm -r out/a");
      assert.equal(existsSync(join(dir, "out", "a")), false, "rm -r is not rm -rf");
      assert.match(await run(serve, "command -v marker"), /marker/);
      assert.match(await run(serve, "echo {1..3}"), /1 2 3/);
      assert.deepEqual(ran(dir), []);
    } finally {
      await serve.close();
      removeDir(dir);
    }
  });
});

describe("bypass classes: policy check says what serve does", () => {
  it(
    "bypass classes: policy check exits 1 for deny, 3 for ask, 0 for allow",
    { timeout: 60_000 },
    () => {
      const { dir, env } = markerWorkspace(RULES, "termbridge-classes-");
      try {
        const { command, args } = termbridgeCommand();
        const cases: [string, number, RegExp][] = [
          ["setpriv marker a", 1, /inside setpriv/],
          ["rm -r -f victim", 1, /deny rule "rm -rf"/],
          ["x='a[$(marker b)]'; echo $((x))", 1, /arithmetic evaluation/],
          ["mywrapper marker c", 3, /"marker" among its arguments/],
          ["echo marker d | xargs env", 3, /./],
          ['git commit -m "marker is fine"', 0, /no rule/],
        ];
        for (const [line, status, reason] of cases) {
          const checked = spawnSync(command, [...args, "policy", "check", line], {
            cwd: dir,
            env,
            encoding: "utf8",
          });
          assert.equal(checked.status, status, `${line}: ${checked.stdout}${checked.stderr}`);
          assert.match(checked.stdout, reason);
        }
      } finally {
        removeDir(dir);
      }
    },
  );
});
