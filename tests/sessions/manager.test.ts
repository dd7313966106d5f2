/**
 * SessionManager: names, limits, lookup, listing and closing.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import {
  SessionConflictError,
  SessionNotFoundError,
  SessionUsageError,
} from "../../lib/sessions/errors.ts";
import { isAlive, waitUntil } from "../helpers.ts";
import { withSessions } from "./_kit.ts";

describe("sessions: manager", () => {
  it("sessions: opening a name that is open is a SessionConflictError", async () => {
    await withSessions(async ({ open }) => {
      await open("twin");
      await assert.rejects(
        open("twin"),
        (error: unknown) =>
          error instanceof SessionConflictError &&
          /Cannot open session "twin": a session with that name is open/.test(error.message),
      );
    });
  });

  it("sessions: opening the same name twice at once opens it once", async () => {
    await withSessions(async ({ manager, open }) => {
      const results = await Promise.allSettled([open("race"), open("race")]);
      assert.deepEqual(results.map((result) => result.status).sort(), ["fulfilled", "rejected"]);
      const failed = results.find((result) => result.status === "rejected");
      assert.ok((failed as PromiseRejectedResult).reason instanceof SessionConflictError);
      assert.equal(manager.list().length, 1);
    });
  });

  for (const name of ["", "has space", "slash/name", "x".repeat(65), "é"]) {
    it(`sessions: the name ${JSON.stringify(name.slice(0, 12))} is a SessionUsageError`, async () => {
      await withSessions(async ({ manager, open }) => {
        await assert.rejects(
          open(name),
          (error: unknown) =>
            error instanceof SessionUsageError &&
            error.message.startsWith(`Cannot open session ${JSON.stringify(name)}: a name is`),
        );
        assert.deepEqual(manager.list(), []);
      });
    });
  }

  it("sessions: an unknown name is a SessionNotFoundError listing the open sessions", async () => {
    await withSessions(async ({ manager, open }) => {
      assert.throws(
        () => manager.get("nope"),
        (error: unknown) =>
          error instanceof SessionNotFoundError &&
          error.message === 'No session is called "nope" (open: none)',
      );
      await open("alpha");
      await open("beta");
      assert.throws(
        () => manager.get("nope"),
        (error: unknown) =>
          error instanceof SessionNotFoundError &&
          error.message === 'No session is called "nope" (open: "alpha", "beta")',
      );
      await assert.rejects(manager.close("nope"), SessionNotFoundError);
    });
  });

  it("sessions: maxSessions limits the sessions open at once", async () => {
    await withSessions(async ({ manager, open }) => {
      await open("one");
      await open("two");
      await assert.rejects(
        open("three"),
        (error: unknown) =>
          error instanceof SessionConflictError &&
          /Cannot open session "three": 2 sessions are open, the most allowed/.test(error.message),
      );
      await manager.close("one");
      await open("three");
      assert.deepEqual(manager.list().map((info) => info.name).sort(), ["three", "two"]);
    }, { maxSessions: 2 });
  });

  it("sessions: list describes each session; close ends its process", async () => {
    await withSessions(async ({ manager, open, home }) => {
      const session = await open("listed", { cols: 90, rows: 20 });
      await session.exec("sleep 0.1", 4000);
      const [info] = manager.list();
      assert.equal(info.name, "listed");
      assert.deepEqual(info.program, ["bash"]);
      assert.deepEqual([info.cols, info.rows, info.cwd], [90, 20, home]);
      assert.deepEqual([info.running, info.integration, info.exitStatus, info.recording], [
        null,
        "shell",
        null,
        null,
      ]);
      assert.ok(info.idleMs >= 0);
      assert.ok(isAlive(info.pid));
      assert.equal(manager.get("listed"), session);
      assert.equal(await manager.getOrOpen("listed"), session);
      await manager.close("listed");
      assert.equal(manager.has("listed"), false);
      assert.deepEqual(manager.list(), []);
      await waitUntil(() => !isAlive(info.pid), "the closed session's shell to be gone");
    });
  });

  it("sessions: getOrOpen opens a missing session with the defaults", async () => {
    await withSessions(async ({ manager }) => {
      const session = await manager.getOrOpen("fresh");
      assert.equal(manager.has("fresh"), true);
      assert.equal(session.name, "fresh");
    });
  });
});
