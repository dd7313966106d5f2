/**
 * The terminal benchmark: throughput, round trip, memory and start-up, each
 * figure printed next to a baseline measured in the same run.
 *
 * Run from the repository root, on either runtime:
 *
 *     node_modules/.bin/bun bench/terminal.ts
 *     node_modules/.bin/deno run -A bench/terminal.ts
 *
 * Each job (a section, or one flood file) runs in a fresh child process of
 * the same runtime with the garbage collector exposed, so that RSS figures
 * are settled and one job's leftovers do not show in the next; the parent
 * prints the table. `BENCH_ISOLATE=0` runs everything in one process instead.
 *
 * Sizes come from the environment: `BENCH_MB` (200, per flood file),
 * `BENCH_THROUGHPUT_ROUNDS` (3: ours, the raw PTY and script(1) alternated,
 * medians and ranges reported, as the machine's speed drifts between runs),
 * `BENCH_ROUNDS` (200), `BENCH_IDLE` (20), `BENCH_FULL` (10),
 * `BENCH_SESSIONS` (500), `BENCH_STARTUP_RUNS` (20); `BENCH_ONLY` picks
 * sections (`throughput,floodmem,tenfloods,roundtrip,memory,startup,servermem`);
 * `BENCH_MARKDOWN=1` also prints the table as Markdown. The table goes to
 * stdout, progress to stderr.
 *
 * `tenfloods` floods ten Terminals at once in one process with a
 * `BENCH_TEN_MB` (50) MB plain file each, beside one alone, while a bash in
 * the same process answers echoes (p50/p99 during the floods). `servermem`
 * measures the session server's own RSS (the built binary when current, else
 * the sources on this runtime; `BENCH_TERMBRIDGE=source` picks those): `yes` in a session for
 * `BENCH_SERVER_FLOOD_S` (20) s with no client and with an attached client
 * that never reads, twenty unread `sessions/read` of a full log, and a
 * hundred connections without a hello (descriptors).
 *
 * `floodmem` floods one Terminal per fresh process `BENCH_FLOOD_RUNS` times
 * (3) per flood file and reports its peak RSS beyond the log ceilings, as
 * many times after a first short terminal came and went (a warm process), then
 * `BENCH_FLOOD_TOGETHER` (6) Terminals at once in one fresh process, per
 * terminal (one-time costs, such as the JIT compiling the parser, shared); with
 * `BENCH_BASELINE=DIR` (another checkout of termbridge, its node_modules
 * linked) the same runs of DIR's Terminal alternate with ours, so both are
 * measured on the same loaded machine at the same time.
 * @module
 */

import { cpus } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../lib/runtime/mod.ts";
import {
  floodMemoryRows,
  type FloodSample,
  floodTogether,
  floodTogetherRow,
} from "./_flood_memory.ts";
import { type FloodFile, removeFloodFiles, writeFloodFiles } from "./_inputs.ts";
import { printRows, runIsolated } from "./_isolate.ts";
import {
  envNumber,
  failedRow,
  formatMarkdown,
  formatTable,
  progress,
  type Row,
} from "./_report.ts";
import { floodTenSection } from "./_flood_ten.ts";
import { roundTripSection } from "./_round_trip.ts";
import { serverMemorySection } from "./_server_memory.ts";
import { canCollect } from "./_rss.ts";
import { sessionsSection } from "./_sessions.ts";
import { startupSection } from "./_startup.ts";
import { throughputSection } from "./_throughput.ts";

const SCRIPT = fileURLToPath(import.meta.url);
const ROOT = resolve(dirname(SCRIPT), "..");

/** Sections in printed order. */
const SECTIONS = [
  "throughput",
  "floodmem",
  "tenfloods",
  "roundtrip",
  "memory",
  "startup",
  "servermem",
] as const;
type Section = typeof SECTIONS[number];

/** One unit of work, named `section` or `section:flood` (floodmem runs its own way). */
interface Job {
  section: Exclude<Section, "floodmem">;
  flood?: FloodFile["kind"];
}

/**
 * Jobs in execution order: the memory section runs early, the floods last
 * (this matters only when they share a process, with `BENCH_ISOLATE=0`).
 */
const JOBS: Job[] = [
  { section: "startup" },
  { section: "memory" },
  { section: "roundtrip" },
  { section: "throughput", flood: "plain" },
  { section: "throughput", flood: "coloured" },
  { section: "tenfloods", flood: "plain" },
  { section: "servermem" },
];

const jobName = (job: Job) => job.flood ? `${job.section}:${job.flood}` : job.section;

/** The run's sizes, from the environment. */
function readConfig(env: Record<string, string>) {
  const only = (env.BENCH_ONLY ?? "").split(",").map((name) => name.trim()).filter(Boolean);
  const unknown = only.filter((name) => !SECTIONS.includes(name as Section));
  if (unknown.length > 0) {
    throw new RangeError(`Cannot read BENCH_ONLY: unknown section "${unknown[0]}"`);
  }
  return {
    sections: new Set<Section>(only.length > 0 ? only as Section[] : SECTIONS),
    megabytes: envNumber(env, "BENCH_MB", 200),
    throughputRounds: envNumber(env, "BENCH_THROUGHPUT_ROUNDS", 3),
    rounds: envNumber(env, "BENCH_ROUNDS", 200),
    sizes: {
      idle: envNumber(env, "BENCH_IDLE", 20),
      full: envNumber(env, "BENCH_FULL", 10),
      many: envNumber(env, "BENCH_SESSIONS", 500),
    },
    startupRuns: envNumber(env, "BENCH_STARTUP_RUNS", 20),
    floodRuns: envNumber(env, "BENCH_FLOOD_RUNS", 3),
    floodTogether: envNumber(env, "BENCH_FLOOD_TOGETHER", 6),
    tenMegabytes: envNumber(env, "BENCH_TEN_MB", 50),
    serverFloodSeconds: envNumber(env, "BENCH_SERVER_FLOOD_S", 20),
    baseline: env.BENCH_BASELINE ? resolve(env.BENCH_BASELINE) : undefined,
    markdown: env.BENCH_MARKDOWN === "1",
    isolate: env.BENCH_ISOLATE !== "0",
    /** Set in a child: the one job to run. */
    job: env.BENCH_JOB,
  };
}

type Config = ReturnType<typeof readConfig>;

/** The rows of one flood file, its file written and removed around it. */
async function floodRows(
  megabytes: number,
  kind: FloodFile["kind"],
  section: (file: FloodFile) => Promise<Row[]>,
): Promise<Row[]> {
  progress(`writing the ${megabytes} MB ${kind} flood file`);
  const { dir, files } = writeFloodFiles(megabytes, [kind]);
  try {
    return await section(files[0]);
  } finally {
    removeFloodFiles(dir);
  }
}

/** Runs one job in this process. */
function runJob(job: Job, config: Config): Promise<Row[]> | Row[] {
  switch (job.section) {
    case "startup":
      return startupSection(ROOT, config.startupRuns);
    case "memory":
      return sessionsSection(config.sizes);
    case "roundtrip":
      return roundTripSection(config.rounds);
    case "throughput":
      return floodRows(
        config.megabytes,
        job.flood ?? "plain",
        (file) => throughputSection(file, config.throughputRounds),
      );
    case "tenfloods":
      return floodRows(config.tenMegabytes, job.flood ?? "plain", (file) => floodTenSection(file));
    case "servermem":
      return serverMemorySection(ROOT, config.serverFloodSeconds);
  }
}

/** Runs one job here or in a child process; a failure becomes one row. */
async function guardedJob(job: Job, config: Config): Promise<Row[]> {
  try {
    if (!config.isolate) return await runJob(job, config);
    return runIsolated(SCRIPT, { BENCH_JOB: jobName(job) }, jobName(job));
  } catch (error) {
    return failedRow(jobName(job), error);
  }
}

/** Floods of the floodmem section in a fresh process (`count` at once): ours or the baseline's Terminal. */
function floodInChild(
  file: FloodFile,
  root: string,
  config: Config,
  { count = 1, warm = false } = {},
): FloodSample[] {
  const env = {
    BENCH_JOB: "floodmem",
    BENCH_FLOOD_FILE: JSON.stringify(file),
    BENCH_ROOT: root,
    BENCH_FLOOD_COUNT: String(count),
    BENCH_FLOOD_WARM: warm ? "1" : "0",
  };
  if (!config.isolate) throw new RangeError("Cannot run floodmem with BENCH_ISOLATE=0");
  const [row] = runIsolated(SCRIPT, env, `floodmem ${file.kind}`);
  return JSON.parse(row.value) as FloodSample[];
}

/** The floodmem section: per flood file, ours and the baseline alternating, each in a fresh process. */
function floodMemorySection(config: Config): Row[] {
  const kinds: FloodFile["kind"][] = ["plain", "coloured"];
  progress(`writing the ${config.megabytes} MB flood files`);
  const { dir, files } = writeFloodFiles(config.megabytes, kinds);
  try {
    return files.flatMap((file) => {
      const ours: FloodSample[] = [];
      const baseline: FloodSample[] = [];
      const warm = { ours: [] as FloodSample[], baseline: [] as FloodSample[] };
      for (let run = 1; run <= config.floodRuns; run++) {
        progress(`floodmem ${file.kind}: run ${run} of ${config.floodRuns}`);
        ours.push(...floodInChild(file, ROOT, config));
        if (config.baseline) baseline.push(...floodInChild(file, config.baseline, config));
        warm.ours.push(...floodInChild(file, ROOT, config, { warm: true }));
        if (config.baseline) {
          warm.baseline.push(...floodInChild(file, config.baseline, config, { warm: true }));
        }
      }
      const rows = floodMemoryRows(file, ours, baseline, "baseline", warm);
      if (config.floodTogether < 2) return rows;
      progress(`floodmem ${file.kind}: ${config.floodTogether} at once`);
      const count = config.floodTogether;
      const together = floodInChild(file, ROOT, config, { count });
      const baselineTogether = config.baseline
        ? floodInChild(file, config.baseline, config, { count })
        : [];
      return [...rows, floodTogetherRow(file, together, baselineTogether, "baseline")];
    });
  } finally {
    removeFloodFiles(dir);
  }
}

/** The child's part: run the job named `name` and print its rows. */
async function child(name: string, config: Config): Promise<void> {
  if (name === "floodmem") {
    const env = runtime.env();
    const file = JSON.parse(env.BENCH_FLOOD_FILE) as FloodFile;
    const count = Number(env.BENCH_FLOOD_COUNT ?? "1");
    const samples = await floodTogether(file, env.BENCH_ROOT, count, env.BENCH_FLOOD_WARM === "1");
    printRows([{
      section: "floodmem",
      measure: "",
      value: JSON.stringify(samples),
      baseline: "",
      verdict: "",
    }]);
    return;
  }
  const job = JOBS.find((candidate) => jobName(candidate) === name);
  if (job === undefined) throw new RangeError(`Cannot run job "${name}": no such job`);
  printRows(await runJob(job, config));
}

/** The parent's part: run the chosen jobs and print the table in section order. */
async function parent(config: Config): Promise<void> {
  const started = performance.now();
  const jobs = JOBS.filter((job) => config.sections.has(job.section));
  const results = new Map<Job, Row[]>();
  for (const job of jobs) results.set(job, await guardedJob(job, config));
  let floodRows: Row[] = [];
  if (config.sections.has("floodmem")) {
    try {
      floodRows = floodMemorySection(config);
    } catch (error) {
      floodRows = failedRow("flood memory", error);
    }
  }
  const rows = SECTIONS.flatMap((section) =>
    section === "floodmem"
      ? floodRows
      : jobs.filter((job) => job.section === section).flatMap((job) => results.get(job) ?? [])
  );
  const gc = config.isolate
    ? "each job in a fresh process, gc exposed"
    : `one process, gc ${canCollect ? "exposed" : "not exposed"}`;
  console.log([
    `termbridge terminal benchmark on ${runtime.name} ${runtime.version}`,
    `${new Date().toISOString()}, ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}`,
    `sizes: ${config.megabytes} MB per flood, ${config.rounds} rounds, ` +
    `${config.sizes.idle} idle + ${config.sizes.full} full + ${config.sizes.many} sessions; ${gc}`,
    ...(config.baseline ? [`baseline (floodmem): ${config.baseline}`] : []),
    `total time: ${((performance.now() - started) / 1000).toFixed(1)} s`,
    "",
    formatTable(rows),
  ].join("\n"));
  if (config.markdown) console.log(`\n${formatMarkdown(rows)}`);
}

const config = readConfig(runtime.env());
if (config.job !== undefined) await child(config.job, config);
else await parent(config);
