/**
 * `node:fs`, loaded on first use: both runtimes' `process.getBuiltinModule`
 * gives it synchronously. A static import costs every short-lived command
 * several ms of CPU at start-up in the compiled binary (bench/RESULTS.md,
 * issue 16), and what the shims use it for (the PTY launcher's path, counting
 * open files when a spawn failed) happens only once a terminal is opened.
 * @module
 */

type NodeFs = typeof import("node:fs");

let fs: NodeFs | undefined;

/** The `node:fs` module. */
export function nodeFs(): NodeFs {
  const process = (globalThis as unknown as {
    process: { getBuiltinModule(name: string): unknown };
  }).process;
  return fs ??= process.getBuiltinModule("node:fs") as NodeFs;
}
