/**
 * No process outlives termbridge: programs that leave their terminal's
 * session (`setsid -f`), ignore the hang-up (`nohup`) or ignore SIGHUP and
 * SIGTERM are gone after a release, and after `kill -9` of termbridge in every
 * mode (the cgroup of each terminal, or the marker of its processes, killed
 * by the watchdog).
 * @module
 */

import { describe, it, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { containment } from "../../lib/sandbox/mod.ts";
import { Terminal } from "../../lib/terminal/terminal.ts";
import { isAlive, termbridgeArgv, waitUntil } from "../helpers.ts";
import { Child } from "../acp/child.ts";
import { currentBinary } from "../built_binary.ts";
import { acpArgv, agentArgv } from "../acp/acp_run.ts";
import { allGone, allStarted, escapees } from "./_escapees.ts";

/** Cgroups or the marker (`TERMBRIDGE_CONTAINMENT=marker` runs this file with the marker). */
const contained = containment().kind !== "off";
/** The compiled binary when it is built and current (`make build`). */
const binary = currentBinary();

/** The watchdog of termbridge process `pid` (its child running the watchdog's script), if any. */
function watchdogOf(pid: number): number | undefined {
  let children: string;
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8");
  } catch {
    return undefined;
  }
  return children.split(" ").filter(Boolean).map(Number).find((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, "utf8").includes("while read -r _");
    } catch {
      return false;
    }
  });
}

/** Asks `termbridge serve` to run `command` in a terminal and waits for its id. */
async function createOverServe(child: Child, command: string): Promise<void> {
  await child.write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "terminal/create",
      params: { sessionId: "s", command },
    }) + "\n",
  );
  await child.waitForLine((line) => line.includes('"terminalId"'), "the terminal id");
}

function withDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "tb-contain-"));
  return body(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** Starts termbridge in a mode, lets it run the escapees, kills it with SIGKILL, checks nothing is left. */
async function killNineLeavesNothing(
  argv: string[],
  start: (child: Child, command: string) => Promise<void>,
  dir: string,
): Promise<void> {
  const file = join(dir, "pids");
  const child = Child.start(argv, { cwd: dir });
  try {
    await start(child, escapees(file));
    const pids = await allStarted(file);
    assert.ok(child.signal("SIGKILL"));
    await allGone(pids);
  } finally {
    await child.dispose();
  }
}

describe("containment", () => {
  it("containment: on this machine each terminal gets a cgroup, or the reason is said", () => {
    const state = containment();
    assert.ok(state.root !== null || state.reason !== "", "a root or a reason");
    assert.equal(state.root !== null, state.kind === "cgroup");
  });

  itWhen(
    contained,
    "containment: release kills setsid, nohup and signal-ignoring escapees",
    async () => {
      await withDir(async (dir) => {
        const file = join(dir, "pids");
        const terminal = Terminal.spawn({ argv: ["/bin/sh", "-c", escapees(file)], stdin: "null" });
        try {
          const pids = await allStarted(file);
          assert.equal(pids[0], terminal.pid, "the reported pid is the program's");
          await terminal.dispose();
          await allGone(pids);
        } finally {
          await terminal.dispose();
        }
      });
    },
  );

  itWhen(
    contained,
    "containment: kill (terminal/kill) takes setsid, nohup and signal-ignoring escapees before release",
    async () => {
      await withDir(async (dir) => {
        const file = join(dir, "pids");
        const terminal = Terminal.spawn({ argv: ["/bin/sh", "-c", escapees(file)], stdin: "null" });
        try {
          const pids = await allStarted(file);
          assert.deepEqual(await terminal.kill("SIGTERM", 500), {
            exitCode: null,
            signal: "SIGTERM",
          });
          await allGone(pids);
        } finally {
          await terminal.dispose();
        }
      });
    },
  );

  itWhen(
    containment().kind === "cgroup",
    "containment: a process that moved itself out of its cgroup is still killed, at release and after kill -9",
    async () => {
      const own = dirname(containment().root!);
      // It moves itself to termbridge's own cgroup (possible where the hierarchy is writable), then leaves the session.
      const command = (file: string) =>
        `sh -c 'echo $$ >${own}/cgroup.procs && exec setsid sh -c "echo \\$\\$ >>${file}; exec sleep 1005"' & sleep 1006`;
      const started = async (file: string) => {
        await waitUntil(
          () => existsSync(file) && readFileSync(file, "utf8").trim() !== "",
          "the escapee",
        );
        const pid = Number(readFileSync(file, "utf8").trim());
        await waitUntil(() => isAlive(pid), "the escapee running");
        assert.doesNotMatch(readFileSync(`/proc/${pid}/cgroup`, "utf8"), /termbridge-/, "it left");
        return pid;
      };
      await withDir(async (dir) => {
        const file = join(dir, "released");
        const terminal = Terminal.spawn({ argv: ["/bin/sh", "-c", command(file)], stdin: "null" });
        try {
          const pid = await started(file);
          await terminal.dispose();
          await allGone([pid]);
        } finally {
          await terminal.dispose();
        }
        const killed = join(dir, "killed");
        const child = Child.start([...termbridgeArgv(), "serve"], { cwd: dir });
        try {
          await createOverServe(child, command(killed));
          const pid = await started(killed);
          assert.ok(child.signal("SIGKILL"));
          await allGone([pid]);
        } finally {
          await child.dispose();
        }
      });
    },
  );

  itWhen(
    contained,
    "containment: a termbridge run in a terminal is cleaned up with it",
    async () => {
      await withDir(async (dir) => {
        const file = join(dir, "pids");
        const terminal = Terminal.spawn({ argv: [...termbridgeArgv(), "serve"], cwd: dir });
        try {
          const request = {
            jsonrpc: "2.0",
            id: 1,
            method: "terminal/create",
            params: { sessionId: "s", command: escapees(file) },
          };
          terminal.write(`${JSON.stringify(request)}\r`);
          const pids = await allStarted(file);
          await terminal.dispose();
          await allGone(pids);
          const root = containment().root;
          if (root === null) return; // Marker mode: no cgroup to look at.
          await waitUntil(
            () =>
              readdirSync(root, { recursive: true }).every((entry) =>
                !/termbridge-/.test(String(entry))
              ),
            "no nested termbridge cgroup left",
          );
        } finally {
          await terminal.dispose();
        }
      });
    },
  );

  itWhen(contained, "containment: a signal death is still reported exactly", async () => {
    const terminal = Terminal.spawn({ argv: ["/bin/sh", "-c", "kill -TERM $$"] });
    try {
      assert.deepEqual(await terminal.wait(), { exitCode: null, signal: "SIGTERM" });
    } finally {
      await terminal.dispose();
    }
  });

  itWhen(contained, "containment: kill -9 of termbridge serve leaves no process", async () => {
    await withDir((dir) =>
      killNineLeavesNothing([...termbridgeArgv(), "serve"], createOverServe, dir)
    );
  });

  itWhen(
    contained && binary !== undefined,
    "containment: kill -9 of the built binary (serve) leaves no process",
    async () => {
      await withDir((dir) => killNineLeavesNothing([binary!, "serve"], createOverServe, dir));
    },
  );

  itWhen(
    contained,
    "containment: kill -9 of termbridge serve while its parent has not reaped it (a zombie) leaves no process",
    async () => {
      await withDir(async (dir) => {
        const file = join(dir, "pids");
        const served = join(dir, "served");
        // The parent execs a sleep that never waits: termbridge stays a zombie once killed.
        const child = Child.start([
          "/bin/sh",
          "-c",
          'exec 3<&0; "$@" <&3 3<&- & echo $! >"$0"; exec sleep 600',
          served,
          ...termbridgeArgv(),
          "serve",
        ], { cwd: dir });
        try {
          await createOverServe(child, escapees(file));
          const pids = await allStarted(file);
          const termbridge = Number(readFileSync(served, "utf8"));
          process.kill(termbridge, "SIGKILL");
          await waitUntil(() => !isAlive(termbridge), "termbridge dead");
          await allGone(pids);
          assert.match(readFileSync(`/proc/${termbridge}/stat`, "utf8"), /\) Z /, "still a zombie");
        } finally {
          await child.dispose();
        }
      });
    },
  );

  itWhen(
    contained,
    "containment: a killed watchdog is started again: kill -9 of termbridge afterwards leaves no process",
    async () => {
      await withDir(async (dir) => {
        const file = join(dir, "pids");
        const child = Child.start([...termbridgeArgv(), "serve"], { cwd: dir });
        try {
          await createOverServe(child, escapees(file));
          const pids = await allStarted(file);
          const first = watchdogOf(child.pid);
          assert.ok(first !== undefined, "a watchdog waits for termbridge");
          process.kill(first, "SIGKILL");
          await waitUntil(() => {
            const next = watchdogOf(child.pid);
            return next !== undefined && next !== first;
          }, "a new watchdog");
          await waitUntil(() => /watchdog .* was killed/.test(child.stderr), "the warning");
          assert.ok(child.signal("SIGKILL"));
          await allGone(pids);
        } finally {
          await child.dispose();
        }
      });
    },
  );

  itWhen(contained, "containment: kill -9 of termbridge mcp leaves no process", async () => {
    await withDir((dir) =>
      killNineLeavesNothing([...termbridgeArgv(), "mcp"], async (child, command) => {
        const send = (message: unknown) => child.write(JSON.stringify(message) + "\n");
        await send({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "test", version: "1" },
          },
        });
        await child.waitForLine((line) => line.includes('"id":1'), "the initialize answer");
        await send({ jsonrpc: "2.0", method: "notifications/initialized" });
        await send({
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "terminal_execute", arguments: { command, timeout: 1 } },
        });
      }, dir)
    );
  });

  itWhen(contained, "containment: kill -9 of termbridge run leaves no process", async () => {
    await withDir(async (dir) => {
      const script = join(dir, "escape.tb");
      const command = escapees(join(dir, "pids"));
      writeFileSync(
        script,
        `open\nexec --timeout 1 ${command}\nwait text NEVER-SHOWN --timeout 300\n`,
      );
      await killNineLeavesNothing(
        [...termbridgeArgv(), "run", script],
        () => Promise.resolve(),
        dir,
      );
    });
  });

  itWhen(contained, "containment: kill -9 of termbridge acp leaves no process", async () => {
    await withDir(async (dir) => {
      const file = join(dir, "pids");
      const argv = acpArgv(agentArgv("terminal_agent"), {
        cwd: dir,
        prompts: [`run ${escapees(file)}`],
        flags: ["--yes"],
      });
      await killNineLeavesNothing(argv, () => Promise.resolve(), dir);
    });
  });
});
