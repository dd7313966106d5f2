/**
 * Running one job of the benchmark in a fresh process of the same runtime,
 * so that what one job leaves in the heap does not show in the next one's
 * RSS, and so that the garbage collector can be called (`--expose-gc`).
 * @module
 */

import { spawnSync } from "node:child_process";
import process from "node:process";
import { runtime } from "../lib/runtime/mod.ts";
import type { Row } from "./_report.ts";

/** Marks the line of a child's stdout that carries its rows. */
const MARK = "BENCH-ROWS ";

/** The most a job may take before it is killed. */
const JOB_TIMEOUT_MS = 10 * 60_000;

/** Argv that runs `script` again on this runtime with `gc()` exposed. */
function selfArgv(script: string): string[] {
  return runtime.name === "deno"
    ? [process.execPath, "run", "-A", "--v8-flags=--expose-gc", script]
    : [process.execPath, "--expose-gc", script];
}

/**
 * Runs `script` in a child process with `env` added to ours and returns the
 * rows it printed with `printRows`. The child's stderr (progress) is passed
 * through.
 * @throws {Error} when the child fails or prints no rows
 */
export function runIsolated(script: string, env: Record<string, string>, label: string): Row[] {
  const [command, ...args] = selfArgv(script);
  const result = spawnSync(command, args, {
    env: { ...runtime.env(), ...env },
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
    timeout: JOB_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = (result.stdout ?? "").split("\n").find((text) => text.startsWith(MARK));
  if (line === undefined) {
    const how = result.error?.message ?? `exit ${result.status ?? result.signal}`;
    throw new Error(`Cannot run the ${label} job: ${how}`);
  }
  return JSON.parse(line.slice(MARK.length)) as Row[];
}

/** Prints `rows` for the parent process to collect. */
export function printRows(rows: Row[]): void {
  console.log(MARK + JSON.stringify(rows));
}
