/**
 * Every limit hit is enforced and reported in words: terminals at once,
 * wall-clock seconds per command (the whole process group killed), CPU
 * seconds, address space and processes per command, and the idle timeout of
 * sessions.
 * @module
 */

import { describe, it, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import process from "node:process";
import { LimitError, type LimitHit, TerminalBudget } from "../../lib/sandbox/mod.ts";
import {
  EXITED_TAIL_BYTES,
  type TerminalEvent,
  TerminalService,
} from "../../lib/service/terminal_service.ts";
import { SessionNotFoundError } from "../../lib/sessions/errors.ts";
import { SessionManager } from "../../lib/sessions/manager.ts";
import { waitUntil } from "../helpers.ts";
import { existsSync } from "node:fs";

const isRoot = process.getuid?.() === 0;
const hasPython = ["/usr/bin/python3", "/bin/python3"].some(existsSync);

async function withService(
  options: Partial<ConstructorParameters<typeof TerminalService>[0]>,
  body: (service: TerminalService, events: TerminalEvent[]) => Promise<void>,
): Promise<void> {
  const service = new TerminalService({ cwd: "/tmp", ...options });
  const events: TerminalEvent[] = [];
  service.onEvent((event) => events.push(event));
  try {
    await body(service, events);
  } finally {
    await service.releaseAll();
  }
}

describe("limits", () => {
  it("limits: limits.terminals refuses one more command and says which limit", async () => {
    await withService({ limits: { terminals: 2 } }, async (service) => {
      await service.create({ sessionId: "s", command: "sleep 100" });
      const second = await service.create({ sessionId: "s", command: "sleep 100" });
      await assert.rejects(
        service.create({ sessionId: "s", command: "true" }),
        (error: Error) =>
          error instanceof LimitError &&
          /the most limits\.terminals \(2\) allows/.test(error.message),
      );
      await service.release("s", second);
      const third = await service.create({ sessionId: "s", command: "true" });
      assert.deepEqual(await service.waitForExit("s", third), { exitCode: 0, signal: null });
    });
  });

  it("limits: exited, unreleased terminals keep a bounded output in all: the oldest keep their tail", async () => {
    const options = { outputCeiling: 1024 * 1024, exitedOutputBytes: 2 * 1024 * 1024 };
    await withService(options, async (service) => {
      const command = "head -c 700000 /dev/zero | tr '\\0' a | fold -w 99; echo END";
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const id = await service.create({ sessionId: "s", command });
        await service.waitForExit("s", id);
        ids.push(id);
      }
      const [oldest, middle, newest] = ids.map((id) => service.output("s", id));
      assert.ok(newest.output.length > 700_000, "the newest keeps all of its output");
      assert.equal(newest.truncated, false);
      for (const cut of [oldest, middle]) {
        assert.equal(cut.truncated, true);
        assert.ok(cut.output.length <= EXITED_TAIL_BYTES, `${cut.output.length} characters`);
        assert.match(cut.output, /\na+END\n?$/);
      }
    });
  });

  it("limits: terminals and sessions share one budget", async () => {
    const budget = new TerminalBudget(1);
    const sessions = new SessionManager({ cwd: "/tmp", budget });
    try {
      await withService({ budget }, async (service) => {
        await sessions.open({ name: "one", program: ["sleep", "100"] });
        await assert.rejects(service.create({ sessionId: "s", command: "true" }), LimitError);
      });
      await assert.rejects(sessions.open({ name: "two", program: ["sleep", "100"] }), LimitError);
    } finally {
      await sessions.closeAll();
    }
  });

  it("limits: limits.commandSeconds kills the process group and says so", async () => {
    await withService(
      { limits: { commandSeconds: 1 }, killGraceMs: 300 },
      async (service, events) => {
        // The group goes, a child that ignores SIGTERM included (SIGKILL after the grace).
        const id = await service.create({
          sessionId: "s",
          command: "sh -c 'trap \"\" TERM; sleep 100' & sleep 100",
        });
        const status = await service.waitForExit("s", id);
        assert.equal(status.exitCode, null);
        const { output } = service.output("s", id);
        assert.match(output, /termbridge: killed: ran longer than limits\.commandSeconds \(1 s\)/);
        const hits = events.filter((e) => e.type === "limit");
        assert.deepEqual(hits.map((e) => e.type === "limit" && e.hit.limit), [
          "limits.commandSeconds",
        ]);
      },
    );
  });

  it("limits: limits.cpuSeconds stops a busy loop with SIGXCPU and says so", async () => {
    await withService({ limits: { cpuSeconds: 1 } }, async (service, events) => {
      const id = await service.create({ sessionId: "s", command: "while :; do :; done" });
      assert.deepEqual(await service.waitForExit("s", id), { exitCode: null, signal: "SIGXCPU" });
      assert.match(
        service.output("s", id).output,
        /termbridge: killed: used more than limits\.cpuSeconds \(1 s\) of CPU time/,
      );
      assert.ok(events.some((e) => e.type === "limit" && e.hit.limit === "limits.cpuSeconds"));
    });
  });

  itWhen(hasPython, "limits: limits.memoryBytes makes a large allocation fail", async () => {
    await withService({ limits: { memoryBytes: 256 * 1024 * 1024 } }, async (service) => {
      const id = await service.create({
        sessionId: "s",
        command: "python3 -c 'bytearray(512 * 1024 * 1024)'",
      });
      const status = await service.waitForExit("s", id);
      assert.notEqual(status.exitCode, 0);
      assert.match(service.output("s", id).output, /MemoryError/);
    });
  });

  itWhen(isRoot, "limits: limits.processes makes forks beyond it fail", async () => {
    // RLIMIT_NPROC counts the user's processes and root is exempt: run as nobody.
    await withService({ limits: { processes: 3 } }, async (service) => {
      const id = await service.create({
        sessionId: "s",
        command: "setpriv --reuid=65534 --regid=65534 --clear-groups " +
          "sh -c 'for i in 1 2 3 4 5 6; do sleep 5 & done; wait'",
      });
      await service.waitForExit("s", id);
      assert.match(service.output("s", id).output, /fork|Resource temporarily unavailable/i);
    });
  });

  it("limits: limits.commandSeconds in a shell session kills an exec'd command, not the shell", async () => {
    const hits: LimitHit[] = [];
    const sessions = new SessionManager({
      cwd: "/tmp",
      limits: { commandSeconds: 1 },
      onLimit: (_name, hit) => hits.push(hit),
    });
    try {
      const session = await sessions.open({ name: "main", program: ["bash"] });
      const result = await session.exec("sleep 100", 20_000);
      assert.equal(result.status, "completed");
      assert.notEqual(result.exitCode, 0);
      assert.match(result.output, /killed: ran longer than limits\.commandSeconds \(1 s\)/);
      assert.equal(hits[0]?.limit, "limits.commandSeconds");
      const after = await session.exec("echo still here", 10_000);
      assert.equal(after.output.trim(), "still here");
      // A line typed at the keyboard (a person's vim, say) is not timed.
      session.type("sleep 2.5; echo typed-$((1+1))\r");
      await session.terminal.waitForText("typed-2", 20_000);
      assert.equal(hits.length, 1, "the typed command was not killed");
    } finally {
      await sessions.closeAll();
    }
  });

  it("limits: an idle session is closed and a later request says why", async () => {
    const hits: string[] = [];
    const sessions = new SessionManager({
      cwd: "/tmp",
      idleTimeoutSeconds: 0.5,
      onLimit: (name, hit) => hits.push(`${name}: ${hit.message}`),
    });
    try {
      // A program that ignores SIGHUP and SIGTERM takes the close 500 ms to
      // kill: closeAll must still wait for it (Deno's leak check failed in CI).
      const program = ["sh", "-c", "trap '' HUP TERM; exec sleep 100"];
      const session = await sessions.open({ name: "idle", program });
      await waitUntil(() => !sessions.has("idle"), "the idle session to close", 20_000);
      assert.equal(session.terminal.disposed, true);
      assert.throws(
        () => sessions.get("idle"),
        (error: Error) =>
          error instanceof SessionNotFoundError &&
          /closed: unused for longer than idleTimeout \(0\.5 s\)/.test(error.message),
      );
      assert.equal(hits.length, 1);
    } finally {
      await sessions.closeAll();
    }
  });
});
