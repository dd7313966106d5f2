/**
 * The cost of containment, the sandbox and resource limits per spawn: each
 * variant starts `/bin/true` in a PTY and waits for its exit status, rounds
 * interleaved so that every variant sees the same machine load, next to the
 * unwrapped spawn of the same run.
 *
 *     node_modules/.bin/bun bench/sandbox.ts
 *     node_modules/.bin/deno run -A bench/sandbox.ts
 *
 * `BENCH_ROUNDS` (100) spawns per variant; `BENCH_MARKDOWN=1` also prints
 * the table as Markdown. Variants that this machine cannot run (no writable
 * cgroup, no bwrap) are reported as such.
 * @module
 */

import { existsSync, readdirSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../lib/runtime/mod.ts";
import { containment, rlimitPrefix, sandboxPrefix } from "../lib/sandbox/mod.ts";
import { type Containment, startMarker } from "../lib/sandbox/containment.ts";
import {
  envNumber,
  fixed,
  formatMarkdown,
  formatTable,
  median,
  percentile,
  progress,
  type Row,
  verdict,
} from "./_report.ts";

/** A way to start a program: the argv before it, and what to do around the spawn. */
interface Variant {
  name: string;
  /** Argv prefix for this spawn (a cgroup is made per spawn, as a terminal does). */
  prefix(): { argv: string[]; done(): Promise<void> | void };
}

async function spawnOnce(argv: string[], cwd: string): Promise<number> {
  const start = performance.now();
  const pty = runtime.spawnPty({
    argv,
    cwd,
    env: runtime.env(),
    cols: 80,
    rows: 24,
    stdin: "null",
    onData: () => {},
  });
  const status = await pty.exited;
  const ms = performance.now() - start;
  await pty.close();
  if (status.exitCode !== 0) {
    throw new Error(`${argv.join(" ")} ended with ${JSON.stringify(status)}`);
  }
  return ms;
}

const rounds = envNumber(runtime.env(), "BENCH_ROUNDS", 100);
const cwd = mkdtempSync(join(tmpdir(), "tb-bench-sandbox-"));
const env = runtime.env();
const contained = containment();
const bwrap = ["/usr/bin/bwrap", "/bin/bwrap"].find(existsSync);
const boxSettings = { mode: "workspace-write" as const, network: false };
const sandbox = bwrap ? await sandboxPrefix(boxSettings, cwd, env) : null;
const limits = rlimitPrefix({ cpuSeconds: 600, memoryBytes: 4e9, processes: 4096 });

const fixedPrefix = (argv: string[]) => () => ({ argv, done: () => {} });
/** The fallback where no cgroup is writable, measured even where one is. */
const marker = contained.kind === "marker" ? contained : startMarker("bench");
const withCgroup = (rest: string[], using: Containment = contained) => () => {
  const cgroup = using.create("bench");
  return { argv: [...cgroup?.prefix ?? [], ...rest], done: async () => await cgroup?.remove() };
};

const variants: Variant[] = [
  { name: "unwrapped", prefix: fixedPrefix([]) },
  ...(contained.root ? [{ name: "containment (cgroup)", prefix: withCgroup([]) }] : []),
  { name: "containment (marker, no cgroup)", prefix: withCgroup([], marker) },
  ...(sandbox ? [{ name: "sandbox (nsenter into bwrap)", prefix: fixedPrefix(sandbox) }] : []),
  ...(contained.root && sandbox
    ? [{ name: "containment + sandbox", prefix: withCgroup(sandbox) }]
    : []),
  { name: "rlimits (prlimit)", prefix: fixedPrefix(limits) },
];

/**
 * Measured in rounds of their own: tearing down a bwrap's namespaces keeps
 * the kernel's RCU busy, which delays the next cgroup migration by several
 * milliseconds and would be charged to containment if interleaved.
 */
const alternatives: Variant[] = [
  { name: "unwrapped, again", prefix: fixedPrefix([]) },
  ...(bwrap
    ? [{
      name: "a new bwrap per command (not used)",
      prefix: fixedPrefix([
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev-bind",
        "/dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--bind",
        cwd,
        cwd,
        "--unshare-net",
        "--",
      ]),
    }]
    : []),
];

/** Release (cgroup removal, marker sweep) times per variant, as spawn times are. */
const releases = new Map<string, number[]>();

/** Spawn times per variant, rounds interleaved, the first 5 rounds left out (warm-up). */
async function measure(group: Variant[]): Promise<Map<string, number[]>> {
  progress(`${rounds} rounds of ${group.map((v) => v.name).join(", ")} on ${runtime.name}`);
  const samples = new Map<string, number[]>(group.map((v) => [v.name, []]));
  for (let round = 0; round < rounds + 5; round++) {
    for (const variant of group) {
      const { argv, done } = variant.prefix();
      const ms = await spawnOnce([...argv, "/bin/true"], cwd);
      const released = performance.now();
      await done();
      if (round < 5) continue;
      samples.get(variant.name)!.push(ms);
      if (variant.name.startsWith("containment (")) {
        releases.set(variant.name, [
          ...releases.get(variant.name) ?? [],
          performance.now() - released,
        ]);
      }
    }
  }
  return samples;
}

const section = `spawn (${runtime.name})`;

function rowsOf(group: Variant[], samples: Map<string, number[]>): Row[] {
  const [baseline, ...rest] = group;
  const base = median(samples.get(baseline.name)!);
  const row = (variant: Variant, result: string): Row => {
    const values = samples.get(variant.name)!;
    return {
      section,
      measure: `${variant.name}: spawn to exit, p50 (p90) ms`,
      value: `${fixed(median(values), 2)} (${fixed(percentile(values, 90), 2)})`,
      baseline: variant === baseline ? "-" : `${baseline.name} ${fixed(base, 2)}`,
      verdict: result,
    };
  };
  return [
    row(baseline, "-"),
    ...rest.map((variant) => {
      const extra = median(samples.get(variant.name)!) - base;
      const text = `+${fixed(extra, 2)} ms`;
      return row(
        variant,
        variant.name.startsWith("sandbox") ? verdict(text, extra < 5, "< 5 ms") : text,
      );
    }),
  ];
}

const rows = rowsOf(variants, await measure(variants));
rows.push(...rowsOf(alternatives, await measure(alternatives)));
for (const [name, values] of releases) {
  rows.push({
    section,
    measure: `${name}: release (kill and remove, or sweep /proc), p50 (p90) ms`,
    value: `${fixed(median(values), 2)} (${fixed(percentile(values, 90), 2)})`,
    baseline: "-",
    verdict: `${readdirSync("/proc").filter((name) => /^\d+$/.test(name)).length} processes now`,
  });
}
rmSync(cwd, { recursive: true, force: true });
if (!contained.root) {
  rows.push({
    section,
    measure: "containment",
    value: contained.kind,
    baseline: "-",
    verdict: contained.reason,
  });
}
if (!bwrap) {
  rows.push({ section, measure: "sandbox", value: "no bwrap", baseline: "-", verdict: "-" });
}
console.log(formatTable(rows));
if (env.BENCH_MARKDOWN === "1") console.log(`\n${formatMarkdown(rows)}`);
