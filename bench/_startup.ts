/**
 * Section 4: start-up of the compiled binary next to a compiled Bun hello world.
 * @module
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixed, median, progress, type Row, verdict } from "./_report.ts";

const SECTION = "start-up";

/** Median milliseconds of `argv` run to completion `runs` times (after one warm-up). */
function medianRun(argv: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const start = performance.now();
    const result = spawnSync(argv[0], argv.slice(1), { stdio: "ignore" });
    const ms = performance.now() - start;
    if (result.status !== 0) {
      throw new Error(`Cannot run "${argv.join(" ")}": ${result.error ?? result.status}`);
    }
    if (i > 0) times.push(ms);
  }
  return median(times);
}

/**
 * A hello world compiled with `bun build --compile`, built once and kept in
 * the temp directory for later runs.
 * @throws {Error} when the build fails
 */
function helloWorld(bun: string): string {
  const dir = join(tmpdir(), "termbridge-bench-hello");
  const binary = join(dir, "hello");
  if (existsSync(binary)) return binary;
  progress(`${SECTION}: building the hello world baseline`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "hello.ts"), 'console.log("hello");\n');
  const result = spawnSync(bun, ["build", "--compile", "hello.ts", "--outfile", "hello"], {
    cwd: dir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (result.status !== 0) {
    throw new Error(`Cannot build the hello world: bun exited ${result.status}`);
  }
  return binary;
}

/** Runs the section from the repository at `root`. */
export function startupSection(root: string, runs: number): Row[] {
  const binary = join(root, "dist", "termbridge");
  if (!existsSync(binary)) {
    return [{
      section: SECTION,
      measure: "dist/termbridge --version",
      value: "not built",
      baseline: "-",
      verdict: "run make build",
    }];
  }
  progress(`${SECTION}: median of ${runs} runs`);
  const hello = medianRun([helloWorld(join(root, "node_modules", ".bin", "bun"))], runs);
  const ours = medianRun([binary, "--version"], runs);
  return [{
    section: SECTION,
    measure: `dist/termbridge --version ms (median of ${runs})`,
    value: fixed(ours, 1),
    baseline: `bun hello world ${fixed(hello, 1)}`,
    verdict: `${fixed(ours / hello, 2)}x; ${
      verdict(`${fixed(ours, 1)} ms`, ours <= 20, "<= 20 ms")
    }`,
  }];
}
