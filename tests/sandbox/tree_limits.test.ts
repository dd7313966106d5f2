/**
 * The agent tree limits (`limits.agentTreeTasks`, `agentTreeMemoryBytes`):
 * set on the agent's cgroup as a whole (cgroup v2 where its controllers are
 * delegated, else a writable v1 hierarchy), so that forks beyond the ceiling
 * fail for the whole tree, and nothing of them is left after the agent ends
 * or after `kill -9` of termbridge.
 * @module
 */

import { describe, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { containment, encloseAgent } from "../../lib/sandbox/mod.ts";
import { v1Roots } from "../../lib/sandbox/tree_limits.ts";
import { runtime } from "../../lib/runtime/mod.ts";
import { waitUntil } from "../helpers.ts";
import { Child } from "../acp/child.ts";
import { acpArgv } from "../acp/acp_run.ts";

/** Whether this machine gives termbridge a cgroup in which a tree's `controller` can be limited. */
function limitPossible(controller: "pids" | "memory"): boolean {
  if (containment().kind !== "cgroup") return false;
  const v2 = readFileSync(join(containment().root!, "cgroup.subtree_control"), "utf8");
  if (v2.includes(controller)) return true;
  // A v1 hierarchy of the controller, where a cgroup can be made beside termbridge's own.
  const root = v1Roots().find((path) => path.includes(`/${controller}/`));
  if (root === undefined) return false;
  const probe = join(dirname(root), `termbridge-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}
const possible = limitPossible("pids");
const memoryPossible = limitPossible("memory");
const NO_PIDS = "no pids cgroup termbridge can write here (v2 delegated, or v1)";
const NO_MEMORY = "no memory cgroup termbridge can write here (v2 delegated, or v1)";

/** Pids of `sleep SECONDS` processes. */
function sleepers(seconds: string): number[] {
  return readdirSync("/proc").filter((name) => /^\d+$/.test(name)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "latin1") === `sleep\0${seconds}\0`;
    } catch {
      return false;
    }
  }).map(Number);
}

/** The agent's enclosure with only tree limits, working in `dir`. */
function enclose(dir: string, tree: { processes: number; memoryBytes: number }) {
  return encloseAgent(
    { sandbox: undefined, writable: [], limits: {}, tree },
    { workspace: dir, wd: dir, env: runtime.env(), program: "/bin/sh" },
  );
}

describe("agent tree limits", () => {
  itWhen(
    possible,
    "agentTreeTasks: forks beyond the ceiling fail in the whole tree; ending it leaves no cgroup",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "tb-tree-limits-"));
      const enclosure = await enclose(dir, { processes: 8, memoryBytes: 0 });
      // Twenty background sleeps (a length of their own, to find them): at most 8 tasks fit, and
      // the shell, one of them, gives up at the first fork that fails.
      const seconds = String(600 + Math.floor(Math.random() * 300));
      const child = runtime.spawnPiped({
        argv: [
          ...enclosure.prefix,
          "/bin/sh",
          "-c",
          `i=0; while [ "$i" -lt 20 ]; do sleep ${seconds} </dev/null >/dev/null 2>&1 & i=$((i + 1)); done`,
        ],
        stderr: "pipe",
      });
      await child.stdin.close();
      void child.stdout.cancel();
      try {
        assert.match(enclosure.description, /tree limits: 8 tasks/);
        const err = await new Response(child.stderr!).text();
        await child.exited;
        const started = sleepers(seconds);
        assert.ok(started.length > 0 && started.length < 8, `${started.length} sleeps: ${err}`);
        assert.match(err, /fork|Resource temporarily unavailable/i, err);
        await enclosure.end();
        assert.deepEqual(sleepers(seconds), [], "the tree's sleeps are gone");
      } finally {
        await enclosure.end();
        rmSync(dir, { recursive: true, force: true });
      }
      for (const root of v1Roots()) {
        assert.equal(existsSync(join(root, "agent-1")), false, `${root}/agent-1 is left`);
      }
    },
    NO_PIDS,
  );

  itWhen(
    memoryPossible,
    "agentTreeMemoryBytes: a tree using more memory than the ceiling is killed by the kernel",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "tb-tree-limits-"));
      const enclosure = await enclose(dir, { processes: 0, memoryBytes: 64 << 20 });
      // The shell keeps 200 MB of a command's output in its own memory.
      const child = runtime.spawnPiped({
        argv: [
          ...enclosure.prefix,
          "/bin/sh",
          "-c",
          'x=$(head -c 200000000 /dev/zero | tr "\\0" a)',
        ],
      });
      await child.stdin.close();
      void child.stdout.cancel();
      try {
        assert.match(enclosure.description, /tree limits: 67108864 bytes of memory/);
        const status = await child.exited;
        assert.equal(status.signal, "SIGKILL", JSON.stringify(status));
      } finally {
        await enclosure.end();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    NO_MEMORY,
  );

  itWhen(
    possible,
    "acp: with agentTreeTasks the agent's cgroup holds the ceiling, and kill -9 of termbridge leaves no cgroup of it",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "tb-tree-limits-"));
      const config = join(dir, "termbridge.jsonc");
      writeFileSync(config, JSON.stringify({ limits: { agentTreeTasks: 64 } }));
      // An agent that never answers: termbridge waits for it with its tree (and limits) in place.
      const child = Child.start(
        acpArgv(["/bin/sh", "-c", "sleep 60"], { cwd: dir, flags: ["--config", config] }),
        { cwd: dir },
      );
      try {
        let roots: string[] = [];
        await waitUntil(
          () => {
            roots = v1Roots().map((root) => root.replace(`-${process.pid}`, `-${child.pid}`));
            const limited = (root: string) =>
              root.includes("/pids/") && existsSync(join(root, "agent-1")) &&
              readFileSync(join(root, "agent-1", "pids.max"), "utf8").trim() === "64";
            const v2 = containment().root!.replace(`-${process.pid}`, `-${child.pid}`);
            return roots.some(limited) || existsSync(join(v2, "agent-1", "pids.max")) &&
                readFileSync(join(v2, "agent-1", "pids.max"), "utf8").trim() === "64";
          },
          "the agent's tree cgroup with its limit",
          20_000,
        );
        assert.ok(child.signal("SIGKILL"));
        await waitUntil(
          () => roots.every((root) => !existsSync(root)),
          `the v1 cgroups removed (${roots.filter(existsSync).join(", ")})`,
          20_000,
        );
      } finally {
        await child.dispose();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    NO_PIDS,
  );
});
