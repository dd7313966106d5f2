/**
 * The runtime's piped processes (`runtime.spawnPiped`), under whichever
 * runtime runs the tests: `newSession` starts the child in a session of its
 * own, without the parent's process group or controlling terminal.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runtime } from "../../lib/runtime/mod.ts";

/** This process's process group and session ids, from /proc/self/stat. */
function ownIds(): { pgid: number; sid: number } {
  const fields = readFileSync("/proc/self/stat", "latin1").split(") ")[1].split(" ");
  return { pgid: Number(fields[2]), sid: Number(fields[3]) };
}

/** Runs `sh -c` printing its pid, process group and session (from ps), as numbers. */
async function ids(newSession: boolean): Promise<{ pid: number; pgid: number; sid: number }> {
  const child = runtime.spawnPiped({
    argv: ["/bin/sh", "-c", "ps -o pid=,pgid=,sid= -p $$"],
    newSession,
  });
  await child.stdin.close();
  const [text, status] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  assert.equal(status.exitCode, 0);
  const [pid, pgid, sid] = text.trim().split(/\s+/).map(Number);
  return { pid, pgid, sid };
}

describe("runtime: piped processes", () => {
  it("runtime: spawnPiped with newSession starts the child as the leader of a session of its own", async () => {
    const child = await ids(true);
    assert.equal(child.sid, child.pid);
    assert.equal(child.pgid, child.pid);
  });

  it("runtime: spawnPiped without newSession keeps the child in termbridge's group and session", async () => {
    const child = await ids(false);
    assert.deepEqual({ pgid: child.pgid, sid: child.sid }, ownIds());
  });
});
