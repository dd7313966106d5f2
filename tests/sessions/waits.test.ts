/**
 * Session.wait: text appearing and disappearing, quiet output, the prompt,
 * the program's exit, and timeouts that carry the screen.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { SessionUsageError } from "../../lib/sessions/errors.ts";
import { WaitTimeoutError } from "../../lib/terminal/errors.ts";
import { TIMEOUT_MS, withSessions } from "./_kit.ts";

describe("sessions: wait", () => {
  it("sessions: wait for text resolves once it is printed", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("text");
      await session.exec("sleep 0.3; echo READY-$((40 + 2))", 50);
      const seen = await session.wait({ text: "READY-42" }, TIMEOUT_MS);
      assert.match(seen.screen, /^READY-42$/m);
      assert.ok(seen.elapsedMs >= 0);
    });
  });

  it("sessions: wait for a regex returns what it matched", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("regex");
      await session.exec("echo 'build took 1234 ms'", TIMEOUT_MS);
      const seen = await session.wait({ regex: "took (\\d+) ms" }, TIMEOUT_MS);
      assert.equal(seen.match, "took 1234 ms");
    });
  });

  it("sessions: wait with gone resolves when the text leaves the screen", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("gone");
      // Quoted apart, so that the echoed command line does not show the word itself.
      await session.exec("printf 'SPIN''NER'; sleep 0.3; printf '\\r\\033[KDONE\\n'", 50);
      await session.wait({ text: "SPINNER" }, TIMEOUT_MS);
      const seen = await session.wait({ text: "SPINNER", gone: true }, TIMEOUT_MS);
      assert.doesNotMatch(seen.screen, /SPINNER/);
      assert.match(seen.screen, /^DONE$/m);
    });
  });

  it("sessions: wait for idle resolves after the output stops", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("idle");
      await session.exec("for i in 1 2 3 4 5; do echo tick$i; sleep 0.1; done", 50);
      const seen = await session.wait({ idleMs: 300 }, TIMEOUT_MS);
      assert.ok(seen.elapsedMs >= 300, `waited ${seen.elapsedMs} ms`);
      assert.match(seen.screen, /^tick5$/m, "the quiet came after the last tick");
    });
  });

  it("sessions: wait for the prompt resolves at once when the shell is idle", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("idle-prompt");
      await session.exec("echo ready", TIMEOUT_MS);
      const seen = await session.wait({ prompt: true }, TIMEOUT_MS);
      assert.match(seen.screen, /^ready$/m);
    });
  });

  // A command whose end mark arrived is over, even if no exec collected its result yet.
  it("sessions: wait for the prompt resolves when a running command ended", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("prompt");
      const running = await session.exec("sleep 0.4; echo finished", 50);
      assert.equal(running.status, "running");
      const seen = await session.wait({ prompt: true }, 2500);
      assert.match(seen.screen, /^finished$/m);
      const rest = await session.exec("", TIMEOUT_MS);
      assert.deepEqual([rest.status, rest.exitCode], ["completed", 0]);
    });
  });

  it("sessions: wait for exit resolves when the shell ends", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("exit");
      session.type("sleep 0.2; exit 5\r");
      await session.wait({ exit: true }, TIMEOUT_MS);
      assert.deepEqual(session.terminal.exitStatus, { exitCode: 5, signal: null });
    });
  });

  it("sessions: a wait that times out is a WaitTimeoutError with the screen", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("timeout");
      await session.exec("echo on-screen", TIMEOUT_MS);
      await assert.rejects(
        session.wait({ text: "never printed" }, 200),
        (error: unknown) =>
          error instanceof WaitTimeoutError &&
          /Timed out after 200 ms waiting for "never printed"/.test(error.message) &&
          /^on-screen$/m.test(error.screen),
      );
    });
  });

  it("sessions: an empty condition or a bad regex is a SessionUsageError", async () => {
    await withSessions(async ({ open }) => {
      const session = await open("usage");
      await assert.rejects(session.wait({}, 100), SessionUsageError);
      await assert.rejects(
        session.wait({ regex: "(" }, 100),
        (error: unknown) =>
          error instanceof SessionUsageError && /Cannot wait for \/\(\//.test(error.message),
      );
    });
  });
});
