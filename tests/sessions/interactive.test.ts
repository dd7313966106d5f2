/**
 * Input to programs running in a session: prompts, REPLs, Ctrl+C, and
 * programs that take over the screen (vim, less), after which the shell
 * must work as before.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Session } from "../../lib/sessions/session.ts";
import { TIMEOUT_MS, withSessions } from "./_kit.ts";

/** The first visible line of the session's screen. */
function firstLine(session: Session): string {
  return session.screenshot().content.split("\n")[0];
}

describe("sessions: input", () => {
  it("sessions: input answers a read prompt and completes the command", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("read");
      const asked = await session.exec("read -p 'name? ' x; echo got:$x", 500);
      assert.equal(asked.status, "running");
      assert.equal(asked.output, "name? ");
      const answered = await session.input("bob", { timeoutMs: TIMEOUT_MS });
      assert.equal(answered.status, "completed");
      assert.equal(answered.exitCode, 0);
      assert.match(answered.output, /^got:bob$/m);
      assert.equal(session.running, null);
    });
  });

  it("sessions: input drives python3's REPL inside bash, exit() ends it", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("python");
      const started = await session.exec("python3 -q", 500);
      assert.equal(started.status, "running");
      await session.wait({ regex: "^>>>" }, TIMEOUT_MS);
      const sum = await session.input("1+2", { timeoutMs: TIMEOUT_MS });
      assert.equal(sum.status, "running");
      assert.match(sum.output, /^3$/m);
      const exited = await session.input("exit()", { timeoutMs: TIMEOUT_MS });
      assert.equal(exited.status, "completed");
      assert.equal(exited.exitCode, 0);
      assert.equal(exited.command, "python3 -q");
      assert.equal((await session.exec("echo back", TIMEOUT_MS)).output, "back\n");
    });
  });

  it("sessions: python3 as the session's program: 1+2 gives 3, C-d ends it", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("repl", { program: ["python3", "-q"] });
      assert.equal(session.integration, "none");
      const sum = await session.input("1+2", { timeoutMs: TIMEOUT_MS });
      assert.match(sum.output, /^3$/m);
      assert.equal(sum.completion, "screen-stable");
      session.keys(["C-d"]);
      await session.wait({ exit: true }, TIMEOUT_MS);
      assert.deepEqual(session.info().exitStatus, { exitCode: 0, signal: null });
    });
  });

  it("sessions: a program that works silently before it execs python (a pyenv shim) is waited for", async () => {
    await withSessions(async ({ open, home }) => {
      // Like pyenv's shim: a bash script busy for a second or so, then python under the same pid.
      const shim = join(home, "python3");
      writeFileSync(
        shim,
        '#!/usr/bin/env bash\nfor ((i = 0; i < 400000; i++)); do :; done\nexec python3 "$@"\n',
        { mode: 0o755 },
      );
      const session = await open("shim", { program: [shim, "-q"] });
      assert.equal(session.integration, "none");
      assert.equal(session.terminal.foreground()?.programs[0]?.startsWith("python3"), true);
      const sum = await session.input("1+2", { timeoutMs: TIMEOUT_MS });
      assert.match(sum.output, /^3$/m);
      session.keys(["C-d"]);
      await session.wait({ exit: true }, TIMEOUT_MS);
    });
  });

  it("sessions: C-c interrupts sleep 100 with exit code 130", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("interrupt");
      const running = await session.exec("sleep 100", 300);
      assert.deepEqual([running.status, running.exitCode], ["running", null]);
      const started = performance.now();
      const stopped = await session.input("C-c", { timeoutMs: TIMEOUT_MS });
      assert.ok(performance.now() - started < 3000, "the end was noticed, not waited out");
      assert.deepEqual([stopped.status, stopped.exitCode, stopped.command], [
        "completed",
        130,
        "sleep 100",
      ]);
      assert.equal((await session.exec("echo after", TIMEOUT_MS)).output, "after\n");
    });
  });
});

describe("sessions: full-screen programs", () => {
  it("sessions: vim opens on the alternate screen, edits, and :wq saves", async () => {
    await withSessions(async ({ open, home }) => {
      const session = await open("vim");
      const started = await session.exec("vim -u NONE -N notes.txt", 500);
      assert.equal(started.status, "running");
      await session.wait({ regex: '^"notes.txt" \\[New' }, TIMEOUT_MS);
      const shot = session.screenshot();
      assert.equal(shot.altScreen, true);
      assert.match(shot.content, /^~$/m, "vim's empty-line markers");
      session.type("itermbridge was here");
      session.keys(["Escape"]);
      await session.wait({ regex: "^termbridge was here$" }, TIMEOUT_MS);
      const saved = await session.input(":wq", { timeoutMs: TIMEOUT_MS });
      assert.deepEqual([saved.status, saved.exitCode], ["completed", 0]);
      assert.equal(readFileSync(join(home, "notes.txt"), "utf8"), "termbridge was here\n");
      assert.equal(session.screenshot().altScreen, false);
      const after = await session.exec("echo back; false", TIMEOUT_MS);
      assert.deepEqual([after.output, after.exitCode], ["back\n", 1]);
    });
  });

  it("sessions: less pages with ArrowDown and PageDown, q quits", async () => {
    await withSessions(async ({ open, home }) => {
      const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}\n`).join("");
      writeFileSync(join(home, "lines.txt"), lines);
      const session = await open("less", { rows: 20 });
      const started = await session.exec("less lines.txt", 500);
      assert.equal(started.status, "running");
      await session.wait({ regex: "^line 19$" }, TIMEOUT_MS);
      assert.equal(firstLine(session), "line 1");
      assert.equal(session.screenshot().altScreen, true);

      session.keys(["ArrowDown"]);
      await session.wait({ regex: "^line 1$", gone: true }, TIMEOUT_MS);
      assert.equal(firstLine(session), "line 2");

      session.keys(["PageDown"]);
      await session.wait({ regex: "^line 2$", gone: true }, TIMEOUT_MS);
      const after = Number(firstLine(session).replace("line ", ""));
      assert.ok(after > 2, `PageDown moved on a page: "${firstLine(session)}"`);

      const quit = await session.input("q", { enter: false, timeoutMs: TIMEOUT_MS });
      assert.deepEqual([quit.status, quit.exitCode], ["completed", 0]);
      assert.equal(session.screenshot().altScreen, false);
      assert.equal((await session.exec("echo back", TIMEOUT_MS)).output, "back\n");
    });
  });
});
