/**
 * Session.exec in a real bash with shell integration: exit codes, working
 * directory, clean output, timeouts, busy sessions, nested shells, prompts
 * changed by the user, and a shell that exited.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionBusyError } from "../../lib/sessions/errors.ts";
import { isAlive, waitUntil } from "../helpers.ts";
import { TIMEOUT_MS, withSessions } from "./_kit.ts";

describe("sessions: exec", () => {
  for (
    const [command, exitCode] of [
      ["true", 0],
      ["false", 1],
      ["no-such-command-xyz", 127],
      ["(exit 42)", 42],
    ] as const
  ) {
    it(`sessions: exec "${command}" completes with exit code ${exitCode}`, async () => {
      await withSessions(async ({ open }) => {
        const session = await open("codes");
        const result = await session.exec(command, TIMEOUT_MS);
        assert.equal(result.status, "completed");
        assert.equal(result.exitCode, exitCode);
        assert.equal(result.completion, "shell-integration");
        assert.equal(result.command, command);
        if (exitCode === 127) assert.match(result.output, /no-such-command-xyz: command not found/);
      });
    });
  }

  it("sessions: exec output has neither the echoed command nor the prompt", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("clean");
      const result = await session.exec("echo one; printf 'two\\nthree\\n'", TIMEOUT_MS);
      assert.equal(result.output, "one\ntwo\nthree\n");
      assert.equal(result.truncated, false);
      const silent = await session.exec("x=1", TIMEOUT_MS);
      assert.deepEqual([silent.output, silent.exitCode], ["", 0]);
    });
  });

  it("sessions: cwd follows cd, also into a path with spaces", async () => {
    await withSessions(async ({ open, home }) => {
      const spaced = join(home, "a dir with  spaces");
      mkdirSync(spaced);
      const session = await open("cwd");
      assert.equal(session.cwd, home);
      const first = await session.exec("cd /usr/bin", TIMEOUT_MS);
      assert.deepEqual([first.exitCode, first.cwd], [0, "/usr/bin"]);
      const second = await session.exec(`cd '${spaced}'`, TIMEOUT_MS);
      assert.deepEqual([second.exitCode, second.cwd], [0, spaced]);
      assert.equal(session.cwd, spaced);
      assert.equal(session.info().cwd, spaced);
      const pwd = await session.exec("pwd", TIMEOUT_MS);
      assert.equal(pwd.output, `${spaced}\n`);
      const failed = await session.exec("cd /no/such/dir", TIMEOUT_MS);
      assert.equal(failed.exitCode, 1);
      assert.equal(failed.cwd, spaced);
    });
  });

  it("sessions: two sessions keep their own working directories", async () => {
    await withSessions(async ({ open }) => {
      const [left, right] = await Promise.all([open("left"), open("right")]);
      await left.exec("cd /usr", TIMEOUT_MS);
      await right.exec("cd /tmp", TIMEOUT_MS);
      assert.equal((await left.exec("pwd", TIMEOUT_MS)).output, "/usr\n");
      assert.equal((await right.exec("pwd", TIMEOUT_MS)).output, "/tmp\n");
      assert.deepEqual([left.cwd, right.cwd], ["/usr", "/tmp"]);
    });
  });

  it("sessions: exec keeps working after set -euo pipefail in the session", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("strict");
      assert.equal((await session.exec("set -euo pipefail", TIMEOUT_MS)).exitCode, 0);
      for (let i = 0; i < 3; i++) {
        const result = await session.exec(`echo strict-${i} | cat`, TIMEOUT_MS);
        assert.deepEqual([result.status, result.exitCode, result.output], [
          "completed",
          0,
          `strict-${i}\n`,
        ]);
      }
      const cd = await session.exec("cd /", TIMEOUT_MS);
      assert.deepEqual([cd.exitCode, cd.cwd], [0, "/"]);
      assert.equal(session.terminal.exitStatus, null);
    });
  });

  it("sessions: a timeout returns running; an empty exec collects the rest once", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("slow");
      const started = performance.now();
      const first = await session.exec("echo start; sleep 3; echo end", 1000);
      assert.ok(performance.now() - started < 2900, "returned at the timeout, not at the end");
      assert.deepEqual([first.status, first.exitCode, first.output], ["running", null, "start\n"]);
      assert.equal(session.running, "echo start; sleep 3; echo end");
      const second = await session.exec("", TIMEOUT_MS);
      assert.equal(second.status, "completed");
      assert.equal(second.exitCode, 0);
      assert.equal(second.command, "echo start; sleep 3; echo end");
      assert.equal(second.output, "end\n", "start is not reported twice");
      assert.equal(session.running, null);
      const idle = await session.exec("", 100);
      assert.deepEqual([idle.status, idle.output, idle.exitCode], ["completed", "", null]);
    });
  });

  it("sessions: a line the shell does not run ends the command, even when nobody waited for it", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("comment");
      const stop = new AbortController();
      const cancelled = session.exec("# only a comment", TIMEOUT_MS, stop.signal);
      stop.abort(); // Sent, but nobody waits for the prompt that comes back.
      await assert.rejects(cancelled);
      await session.wait({ prompt: true }, TIMEOUT_MS);
      assert.equal((await session.exec("echo next", TIMEOUT_MS)).output, "next\n");
      assert.equal(session.running, null);
    });
  });

  it("sessions: exec while a command runs is a SessionBusyError that says so", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("busy");
      const first = await session.exec("sleep 100", 300);
      assert.equal(first.status, "running");
      await assert.rejects(
        session.exec("echo hi", TIMEOUT_MS),
        (error: unknown) =>
          error instanceof SessionBusyError &&
          /Cannot run "echo hi" in session "busy": "sleep 100" is still running/.test(
            error.message,
          ),
      );
      const stopped = await session.input("C-c", { timeoutMs: TIMEOUT_MS });
      assert.equal(stopped.status, "completed");
      assert.equal((await session.exec("echo hi", TIMEOUT_MS)).output, "hi\n");
    });
  });

  it("sessions: a nested bash reports its commands; exit returns to the outer one", async () => {
    await withSessions(async ({ open, home }) => {
      const session = await open("nested");
      const outerPid = (await session.exec("echo $$", TIMEOUT_MS)).output.trim();
      await session.exec("bash", TIMEOUT_MS);
      const nested = await session.exec("echo nested", TIMEOUT_MS);
      assert.deepEqual([nested.status, nested.exitCode, nested.output], [
        "completed",
        0,
        "nested\n",
      ]);
      const innerPid = (await session.exec("echo $$", TIMEOUT_MS)).output.trim();
      assert.notEqual(innerPid, outerPid, "the command ran in the nested shell");
      const failed = await session.exec("false", TIMEOUT_MS);
      assert.equal(failed.exitCode, 1);
      const cd = await session.exec("cd /usr", TIMEOUT_MS);
      assert.equal(cd.cwd, "/usr");
      const exit = await session.exec("exit", TIMEOUT_MS);
      assert.equal(exit.status, "completed");
      assert.equal(session.cwd, home, "the outer shell's directory is back");
      assert.equal((await session.exec("echo $$", TIMEOUT_MS)).output.trim(), outerPid);
    });
  });

  it("sessions: exec works after the user changes PS1", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("ps1");
      await session.exec("PS1='custom> '", TIMEOUT_MS);
      await session.wait({ regex: "^custom>$" }, TIMEOUT_MS); // Trailing spaces are trimmed.
      const result = await session.exec("echo still; false", TIMEOUT_MS);
      assert.deepEqual([result.status, result.exitCode, result.output], [
        "completed",
        1,
        "still\n",
      ]);
    });
  });

  // A plain `PROMPT_COMMAND=...` must not remove termbridge's prompt hook
  // (it did when the hook was only a prefix of the PROMPT_COMMAND string:
  // the command then never completed and every later exec was busy).
  it("sessions: exec works after the user replaces PS1 and PROMPT_COMMAND", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("prompt-command");
      const change = await session.exec(
        "PS1='custom> '; PROMPT_COMMAND='echo hook >/dev/null'",
        1500,
      );
      assert.equal(change.status, "completed", "the prompt hook survives the assignment");
      const result = await session.exec("echo still; false", 1500);
      assert.deepEqual([result.status, result.exitCode, result.output], [
        "completed",
        1,
        "still\n",
      ]);
    });
  });

  it("sessions: the user's ~/.bashrc PS1 and PROMPT_COMMAND are kept, with integration", async () => {
    await withSessions(async ({ open, home }) => {
      writeFileSync(
        join(home, ".bashrc"),
        [
          "PS1='mine> '",
          "PROMPT_COMMAND='LAST_STATUS=$?; HOOK_RUNS=$(( ${HOOK_RUNS:-0} + 1 ))'",
          "alias greet='echo hello-from-bashrc'",
          "",
        ].join("\n"),
      );
      const session = await open("bashrc");
      await session.wait({ regex: "^mine>$" }, TIMEOUT_MS);
      assert.equal((await session.exec("greet", TIMEOUT_MS)).output, "hello-from-bashrc\n");
      assert.equal((await session.exec("false", TIMEOUT_MS)).exitCode, 1);
      const seen = await session.exec('echo "last=$LAST_STATUS runs=$HOOK_RUNS"', TIMEOUT_MS);
      // The user's hook saw the status of `false`, and it ran at every prompt.
      assert.match(seen.output, /^last=1 runs=[3-9]\d*\n$/);
      assert.equal(seen.exitCode, 0);
    });
  });

  it("sessions: bash started with its own options keeps integration (--norc, --rcfile, --noprofile)", async () => {
    await withSessions(async ({ open, home }) => {
      writeFileSync(join(home, ".bashrc"), "MARK=from-bashrc\n");
      writeFileSync(join(home, "other.rc"), "MARK=from-other-rc\n");
      const cases = [
        { program: ["bash", "--norc"], mark: "unset" },
        {
          program: ["bash", "--noprofile", "--rcfile", join(home, "other.rc")],
          mark: "from-other-rc",
        },
        { program: ["bash", "--noprofile"], mark: "from-bashrc" },
      ];
      for (const [i, { program, mark }] of cases.entries()) {
        const session = await open(`opts${i}`, { program });
        assert.equal(session.integration, "shell");
        const result = await session.exec('echo "${MARK:-unset}"; (exit 3)', TIMEOUT_MS);
        assert.deepEqual([result.output, result.exitCode], [`${mark}\n`, 3], program.join(" "));
      }
    });
  });

  it("sessions: a shell that exited is reported; exec then names its exit code", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("gone");
      const pid = session.terminal.pid;
      const result = await session.exec("exit 3", TIMEOUT_MS);
      assert.equal(result.status, "completed");
      assert.equal(result.exitCode, 3);
      assert.deepEqual(session.info().exitStatus, { exitCode: 3, signal: null });
      await waitUntil(() => !isAlive(pid), "the shell to be gone");
      await assert.rejects(
        session.exec("echo hi", TIMEOUT_MS),
        (error: unknown) =>
          error instanceof SessionBusyError && /bash exited with code 3/.test(error.message),
      );
      assert.throws(() => session.keys(["Enter"]), SessionBusyError);
    });
  });

  it("sessions: a program without integration uses the screen-stable fallback", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("cat", { program: ["cat"] });
      assert.equal(session.integration, "none");
      const result = await session.exec("hello cat", TIMEOUT_MS);
      assert.equal(result.completion, "screen-stable");
      assert.equal(result.status, "completed");
      assert.equal(result.exitCode, null);
      assert.equal(result.output, "hello cat\n", "the echo is dropped, cat's copy is kept");
      assert.equal(session.info().integration, "none");
    });
  });
});
