/**
 * The session server's memory under a flood of short lines (issue 18): 20 s
 * of `yes` in a bash session while a `wait` checks the screen after every
 * chunk, measured in the server process (VmHWM reset through
 * /proc/PID/clear_refs, minus the settled VmRSS), through the built binary
 * and through the sources on the runtime running the tests. The goal is at
 * most +40 MB over the two log ceilings (16 MiB text + 1 MiB raw = 17.8 MB).
 * Before xterm's line recycling was made garbage-free the Bun server peaked
 * at +50 to +120 MB here (+20 to +30 after). The screen's row texts kept in
 * a Map keyed by xterm's lines then grew the server by 2 to 3 MB a second
 * while the wait ran (+67 MB after 10 s in one CI run, +108 after 40 s);
 * flat since (row_texts.ts). A fresh server run from the sources on Deno
 * peaks at +57 to +60 MB, flat (+72 to +89 and growing with the Map): not
 * found yet (the reader worker's isolate is 15-18 MB of it); that case is
 * skipped and said so.
 */

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, itWhen } from "../harness.ts";
import { BINARY_CURRENT, type Build, inWorld } from "./_kit.ts";

const MB = 1e6;
const GOAL = 17.8 + 40;

function status(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)![1]) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

function floodPeak(build: Build) {
  return inWorld(build, async (world) => {
    await world.ok(["new", "s", "--size", "120x40"]);
    const [pid] = world.serverPids();
    assert.ok(pid !== undefined, "a server was started");
    writeFileSync(`/proc/${pid}/clear_refs`, "5"); // VmHWM := VmRSS.
    const before = status(pid).rss;
    await world.ok(["type", "s", "timeout 20 yes; echo FLOOD-; echo DONE\n"]);
    await world.ok(["wait", "s", "text", "FLOOD-\nDONE", "--timeout", "90"]);
    const grown = (status(pid).peak - before) / MB;
    assert.ok(
      grown <= GOAL,
      `a 20 s yes flood grew the server by ${grown.toFixed(1)} MB (goal <= ${GOAL} MB)`,
    );
  });
}

describe("session server: memory under a flood of short lines", () => {
  for (const build of ["source", "binary"] as const) {
    const deno = build === "source" && runtime.name === "deno";
    itWhen(
      build === "source" ? !deno : BINARY_CURRENT,
      `a 20 s yes flood in bash, a wait pending, stays within 40 MB over the log ceilings (${build})`,
      () => floodPeak(build),
      deno
        ? "known gap: a fresh Deno server peaks at +57 to +60 MB over its start, flat (not found; the reader worker's isolate is 15-18 MB of it)"
        : "dist/termbridge is not current: make dist/termbridge",
    );
  }
});
