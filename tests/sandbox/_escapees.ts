/**
 * Processes that try every way out of a terminal, for the containment tests:
 * each writes its pid to a file, and the tests wait for all to start and,
 * once termbridge is gone or the terminal released, for all to be gone.
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { isAlive, waitUntil } from "../helpers.ts";

/**
 * A command line whose processes try every way out, each writing its pid to
 * `file`: a new session, nohup in the background, and one ignoring SIGHUP
 * and SIGTERM; the line itself then sleeps.
 */
export function escapees(file: string): string {
  return [
    `echo $$ >>${file};`,
    `setsid -f sh -c 'echo $$ >>${file}; exec sleep 1000';`,
    `nohup sh -c 'echo $$ >>${file}; exec sleep 1001' >/dev/null 2>&1 &`,
    `sh -c 'trap "" HUP TERM; echo $$ >>${file}; exec sleep 1002' &`,
    "exec sleep 1003",
  ].join(" ");
}

/** The pids written to `file` so far. */
function pidsIn(file: string): number[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
}

/** Waits until the four escapees wrote their pids and run; returns the pids. */
export async function allStarted(file: string): Promise<number[]> {
  await waitUntil(() => pidsIn(file).length === 4, `4 pids in ${file}`, 30_000);
  const pids = pidsIn(file);
  await waitUntil(() => pids.every(isAlive), "every escapee running", 10_000);
  return pids;
}

/** Waits until none of `pids` is alive. */
export async function allGone(pids: number[]): Promise<void> {
  await waitUntil(() => !pids.some(isAlive), `pids ${pids.join(" ")} to be gone`, 20_000);
}
