/**
 * The agent's whole process tree belongs to termbridge: whatever the agent
 * started itself (a new session, nohup, signal-ignoring children) is gone
 * on every way `termbridge acp` ends - the agent SIGKILLed, termbridge
 * SIGKILLed (cgroup and marker), the init timeout, SIGINT and SIGTERM, the
 * end of the --prompt turns - found by a marker in /proc, not only by pid;
 * and the same with the agent in the sandbox, where bwrap is its parent.
 * @module
 */

import { describe, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { containment } from "../../lib/sandbox/mod.ts";
import { waitUntil } from "../helpers.ts";
import { allGone, allStarted, escapees } from "../sandbox/_escapees.ts";
import { acpArgv, agentArgv, parseEvents, withTempDir } from "./acp_run.ts";
import { Child } from "./child.ts";

const contained = containment().kind !== "off";
const hasBwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some(existsSync);

/** Each test runs with the agent outside any sandbox, and (with bubblewrap) inside it. */
const PLACES = hasBwrap ? ["", " in the sandbox"] : [""];

/** The `--config` flags that put the agent where `place` says (a config file in `dir`). */
function placeFlags(place: string, dir: string): string[] {
  if (place === "") return [];
  const config = join(dir, "termbridge-test.jsonc");
  writeFileSync(config, JSON.stringify({ sandbox: { mode: "workspace-write" } }));
  return ["--config", config];
}

/** Pids whose command line or environment holds `marker`. */
function marked(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1");
      const environ = readFileSync(`/proc/${name}/environ`, "latin1");
      if (cmdline.includes(marker) || environ.includes(marker)) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Waits until the escapees and every process carrying `marker` are gone. */
async function nothingLeft(pids: number[], marker: string): Promise<void> {
  await allGone(pids);
  await waitUntil(() => marked(marker).length === 0, `no process marked ${marker}`, 10_000);
}

function newMarker(): string {
  return `tb-tree-${Date.now()}-${Math.random().toString(36).slice(2)}`;
}

/** The tree agent (agents/tree_agent.ts) with its pid file, marker and moment. */
function treeAgent(file: string, marker: string, when: "start" | "prompt" | "term"): string[] {
  return [...agentArgv("tree_agent"), file, marker, when];
}

/** The agent's own pid, once it wrote it. */
async function agentPid(file: string): Promise<number> {
  let pid = 0;
  await waitUntil(
    () => {
      try {
        pid = Number(readFileSync(`${file}.agent`, "utf8"));
      } catch {
        return false; // Not written yet.
      }
      return pid > 0;
    },
    "the agent's pid",
    30_000,
  );
  return pid;
}

describe("acp agent tree", () => {
  for (const place of PLACES) {
    itWhen(
      contained,
      `acp${place}: the init timeout leaves nothing the agent started (sh -c with escapees)`,
      async () => {
        await withTempDir(async (dir) => {
          const file = join(dir, "pids");
          const marker = newMarker();
          const line = `export TB_TREE_MARKER=${marker}; ${escapees(file)}`;
          const child = Child.start(
            acpArgv(["/bin/sh", "-c", line], {
              cwd: dir,
              flags: ["--init-timeout", "2", ...placeFlags(place, dir)],
            }),
          );
          try {
            const pids = await allStarted(file);
            const { status } = await child.finished();
            assert.equal(status.exitCode, 6, child.stderr);
            await nothingLeft(pids, marker);
          } finally {
            await child.dispose();
          }
        });
      },
    );

    itWhen(
      contained,
      `acp${place}: the agent SIGKILLed is exit 5 and leaves nothing it started`,
      async () => {
        await withTempDir(async (dir) => {
          const file = join(dir, "pids");
          const marker = newMarker();
          const child = Child.start(acpArgv(treeAgent(file, marker, "start"), {
            cwd: dir,
            flags: placeFlags(place, dir),
          }));
          try {
            const pids = await allStarted(file);
            process.kill(await agentPid(file), "SIGKILL");
            const { status } = await child.finished(20_000);
            assert.equal(status.exitCode, 5, child.stderr);
            // In the sandbox too: the agent's own death, not bwrap's exit code 137.
            const error = parseEvents(child.lines).find((event) => event.type === "error");
            assert.match(String(error?.message), /^The agent was killed by SIGKILL/);
            await nothingLeft(pids, marker);
          } finally {
            await child.dispose();
          }
        });
      },
    );

    for (const kind of ["cgroup", "marker"] as const) {
      itWhen(
        contained && (kind === "marker" || containment().kind === "cgroup"),
        `acp${place}: termbridge SIGKILLed leaves nothing the agent started (${kind})`,
        async () => {
          await withTempDir(async (dir) => {
            const file = join(dir, "pids");
            const marker = newMarker();
            const child = Child.start(
              acpArgv(treeAgent(file, marker, "prompt"), {
                cwd: dir,
                flags: placeFlags(place, dir),
              }),
              {
                env: kind === "marker" ? { TERMBRIDGE_CONTAINMENT: "marker" } : {},
              },
            );
            try {
              await child.write("go\n");
              const pids = await allStarted(file);
              assert.ok(child.signal("SIGKILL"));
              await nothingLeft([...pids, await agentPid(file)], marker);
            } finally {
              await child.dispose();
            }
          });
        },
      );
    }

    for (const signal of ["SIGINT", "SIGTERM"]) {
      itWhen(
        contained,
        `acp${place}: ${signal} during a turn of an agent that ignores it is exit 4, nothing left`,
        async () => {
          await withTempDir(async (dir) => {
            const file = join(dir, "pids");
            const marker = newMarker();
            const child = Child.start(acpArgv(treeAgent(file, marker, "prompt"), {
              cwd: dir,
              flags: placeFlags(place, dir),
            }));
            try {
              await child.write("go\n");
              const pids = await allStarted(file);
              assert.ok(child.signal(signal));
              const { status } = await child.finished(30_000);
              assert.equal(status.exitCode, 4, child.stderr);
              await nothingLeft([...pids, await agentPid(file)], marker);
            } finally {
              await child.dispose();
            }
          });
        },
      );
    }

    itWhen(
      contained,
      `acp${place}: at the end of the --prompt turns an agent that stays gets SIGTERM itself`,
      async () => {
        await withTempDir(async (dir) => {
          const file = join(dir, "pids");
          const marker = newMarker();
          const child = Child.start(
            acpArgv(treeAgent(file, marker, "term"), {
              cwd: dir,
              prompts: ["hello"],
              flags: placeFlags(place, dir),
            }),
          );
          try {
            const pids = await allStarted(file);
            const { status } = await child.finished(30_000);
            assert.equal(status.exitCode, 0, child.stderr);
            // In the sandbox, bwrap (the agent's parent) would not pass it on.
            assert.equal(readFileSync(`${file}.term`, "utf8"), "SIGTERM");
            await nothingLeft([...pids, await agentPid(file)], marker);
          } finally {
            await child.dispose();
          }
        });
      },
    );

    itWhen(
      contained,
      `acp${place}: the end of the --prompt turns leaves nothing, even from an agent that stays`,
      async () => {
        await withTempDir(async (dir) => {
          const file = join(dir, "pids");
          const marker = newMarker();
          const child = Child.start(
            acpArgv(treeAgent(file, marker, "start"), {
              cwd: dir,
              prompts: ["hello"],
              flags: placeFlags(place, dir),
            }),
          );
          try {
            const pids = await allStarted(file);
            const { status } = await child.finished(30_000);
            assert.equal(status.exitCode, 0, child.stderr);
            await nothingLeft([...pids, await agentPid(file)], marker);
            const agent = parseEvents(child.lines).find((event) => event.type === "agent");
            assert.match(
              String(agent?.enclosure),
              new RegExp(`^contained \\(${containment().kind}\\)`),
            );
          } finally {
            await child.dispose();
          }
        });
      },
    );
  }
});
