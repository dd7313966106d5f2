/**
 * The policy benchmark: a check of a typical agent line (a pipeline of three
 * commands with a `$(...)`) once the parser is loaded, the parser's load time,
 * and `termbridge --version` start-up beside a compiled Bun hello world and
 * `/bin/true`, all in the same run.
 *
 * Run from the repository root, on either runtime (`make build` first for the
 * start-up rows):
 *
 *     node_modules/.bin/bun bench/policy.ts
 *     node_modules/.bin/deno run -A bench/policy.ts
 *
 * `BENCH_ROUNDS` (5000) checks are timed after 500 warm-up ones;
 * `BENCH_STARTUP_RUNS` (20) start-ups per program; `BENCH_PREVIOUS=BINARY`
 * adds start-up of another build (say, the one before a change), alternating
 * with this one.
 * @module
 */

import { spawnSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createPolicy, DEFAULT_POLICY_RULES, loadShellParser } from "../lib/policy/mod.ts";
import { runtime } from "../lib/runtime/mod.ts";
import {
  envNumber,
  fixed,
  formatTable,
  median,
  percentile,
  progress,
  type Row,
  verdict,
} from "./_report.ts";
import { startupSection } from "./_startup.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const LINE = 'git diff --stat "$(git merge-base HEAD origin/main)" | grep -v test | head -n 20';

/**
 * The benchmark line with its last number varied by round: the parser keeps
 * its last few trees by text (one line checked several times is parsed once),
 * so timing the same text again would time the cache, not the parse.
 */
function lineFor(round: number): string {
  return LINE.replace(/20$/, String(20 + (round % 997)));
}

async function checkSection(rounds: number): Promise<Row[]> {
  progress("policy: loading the parser");
  const started = performance.now();
  const parser = await loadShellParser();
  const loadMs = performance.now() - started;
  const policy = createPolicy({
    ...DEFAULT_POLICY_RULES,
    deny: ["curl", "wget", "sudo"],
    allow: ["git status", "git diff", "npm test"],
  });
  const context = { cwd: ROOT, env: runtime.env() };
  const first = await policy.checkLine(LINE, context);
  if (first.commands.length !== 4 || first.decision !== "allow") {
    throw new Error(`Unexpected verdict on the benchmark line: ${JSON.stringify(first)}`);
  }
  for (let i = 0; i < 500; i++) await policy.checkLine(lineFor(i), context);
  progress(`policy: ${rounds} checks`);
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await policy.checkLine(lineFor(i), context);
    times.push(performance.now() - start);
  }

  const parseTimes: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    parser.parse(lineFor(i + 1));
    parseTimes.push(performance.now() - start);
  }

  const p50 = percentile(times, 50);
  return [
    {
      section: "policy",
      measure: `checkLine p50 ms (${rounds} rounds)`,
      value: fixed(p50, 3),
      baseline: `parse alone ${fixed(percentile(parseTimes, 50), 3)}`,
      verdict: verdict(`${fixed(p50, 3)} ms`, p50 < 0.2, "< 0.2 ms"),
    },
    {
      section: "policy",
      measure: "checkLine p99 ms",
      value: fixed(percentile(times, 99), 3),
      baseline: `parse alone ${fixed(percentile(parseTimes, 99), 3)}`,
      verdict: "-",
    },
    {
      section: "policy",
      measure: "parser load ms (first check pays it)",
      value: fixed(loadMs, 1),
      baseline: `reported by the loader ${fixed(parser.loadMs, 1)}`,
      verdict: "once per process, on first use",
    },
  ];
}

/**
 * `--version` of this binary and of `previous` (another build, e.g. the one
 * before the policy work), alternating run by run so load hits both alike.
 */
function previousSection(root: string, previous: string, runs: number): Row[] {
  const ours: number[] = [];
  const theirs: number[] = [];
  const time = (argv: string[]) => {
    const start = performance.now();
    spawnSync(argv[0], argv.slice(1), { stdio: "ignore" });
    return performance.now() - start;
  };
  for (let i = 0; i <= runs; i++) {
    const a = time([resolve(root, "dist", "termbridge"), "--version"]);
    const b = time([previous, "--version"]);
    if (i > 0) ours.push(a), theirs.push(b);
  }
  return [{
    section: "start-up",
    measure: `dist/termbridge --version ms, alternating (median of ${runs})`,
    value: fixed(median(ours), 1),
    baseline: `${previous} ${fixed(median(theirs), 1)}`,
    verdict: `${fixed(median(ours) - median(theirs), 1)} ms difference`,
  }];
}

function trueSection(runs: number): Row[] {
  const times: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const start = performance.now();
    spawnSync("/bin/true", [], { stdio: "ignore" });
    if (i > 0) times.push(performance.now() - start);
  }
  return [{
    section: "start-up",
    measure: `/bin/true ms (median of ${runs})`,
    value: fixed(median(times), 1),
    baseline: "-",
    verdict: "spawn cost alone",
  }];
}

const env = runtime.env();
const startupRuns = envNumber(env, "BENCH_STARTUP_RUNS", 20);
const rows = [
  ...await checkSection(envNumber(env, "BENCH_ROUNDS", 5000)),
  ...startupSection(ROOT, startupRuns),
  ...trueSection(startupRuns),
  ...(env.BENCH_PREVIOUS ? previousSection(ROOT, env.BENCH_PREVIOUS, startupRuns) : []),
];
await runtime.writeStdout(`${runtime.name} ${runtime.version}\n${formatTable(rows)}\n`);
