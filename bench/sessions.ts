/**
 * The session benchmark: how long `Session.exec("true")` takes in a live bash
 * with shell integration, next to the tmux approach measured in the same run
 * (send-keys, then capture-pane as fast as tmux answers until the prompt is
 * back), and next to what tmux-based agent tools do (a capture every 500 ms);
 * then a script of 1,000 steps (type, key, expect) through `termbridge run`,
 * next to the same steps driven through tmux.
 *
 * Run from the repository root, on either runtime:
 *
 *     node_modules/.bin/bun bench/sessions.ts
 *     node_modules/.bin/deno run -A bench/sessions.ts
 *
 * `BENCH_ROUNDS` (200) timed runs per approach, after `BENCH_WARMUP` (20)
 * untimed ones; `BENCH_MARKDOWN=1` also prints the table as Markdown. The
 * script runs `dist/termbridge` when built, else main.ts on this runtime
 * (`BENCH_TERMBRIDGE=source|binary` chooses). The table goes to stdout,
 * progress to stderr.
 * @module
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import { runtime } from "../lib/runtime/mod.ts";
import { SessionManager } from "../lib/sessions/manager.ts";
import {
  envNumber,
  fixed,
  formatMarkdown,
  formatTable,
  percentile,
  progress,
  ratio,
  type Row,
  verdict,
} from "./_report.ts";
import {
  tmuxAvailable,
  type TmuxLatencies,
  tmuxScriptMs,
  tmuxTrueLatencies,
} from "./_sessions_tmux.ts";
import {
  parsePreference,
  type Preference,
  type TermbridgeCommand,
  termbridgeCommand,
} from "./_termbridge.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SECTION = "exec true";
/** Rounds of the script: type, expect, key, expect. */
const SCRIPT_ROUNDS = 250;
/** The script's goal, in milliseconds. */
const SCRIPT_GOAL_MS = 5000;
/** How often tmux-based agent tools look at the pane. */
const AGENT_POLL_MS = 500;
/** The p50 goal of Session.exec per runtime, in milliseconds. */
const GOAL_P50_MS = { bun: 3, deno: 5 } as const;

/** Latencies (ms) of `Session.exec("true")`, timing the last `rounds` of `warmup + rounds`. */
async function sessionLatencies(rounds: number, warmup: number): Promise<number[]> {
  // An empty HOME: the user's ~/.bashrc (prompt hooks of version managers)
  // would be timed too, and the tmux shell runs without it.
  const home = mkdtempSync(join(tmpdir(), "tb-sessions-bench-"));
  const manager = new SessionManager({
    env: { HOME: home, HISTFILE: "/dev/null" },
    cols: 120,
    rows: 40,
  });
  try {
    const session = await manager.open({ name: "bench", program: ["bash"] });
    const latencies: number[] = [];
    for (let i = 0; i < warmup + rounds; i++) {
      const start = performance.now();
      const result = await session.exec("true", 10_000);
      const ms = performance.now() - start;
      if (result.status !== "completed" || result.exitCode !== 0) {
        throw new Error(`Cannot time exec: "true" gave ${JSON.stringify(result)}`);
      }
      if (i >= warmup) latencies.push(ms);
    }
    return latencies;
  } finally {
    await manager.closeAll();
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * What an agent polling every `AGENT_POLL_MS` would see, computed from the
 * measured tmux runs: the first poll after the prompt is back, plus one capture.
 */
function agentPolling(tmux: TmuxLatencies): number[] {
  const capture = percentile(tmux.captureMs, 50);
  return tmux.latencies.map((ms) =>
    Math.max(1, Math.ceil((ms - capture) / AGENT_POLL_MS)) * AGENT_POLL_MS + capture
  );
}

/** The table rows. */
function rows(session: number[], tmux: TmuxLatencies | undefined): Row[] {
  const goal = GOAL_P50_MS[runtime.name];
  const p50 = percentile(session, 50);
  const p99 = percentile(session, 99);
  if (tmux === undefined) {
    return [
      {
        section: SECTION,
        measure: "Session.exec p50 ms",
        value: fixed(p50, 2),
        baseline: "tmux not installed",
        verdict: verdict("-", p50 <= goal, `<= ${goal} ms`),
      },
      {
        section: SECTION,
        measure: "Session.exec p99 ms",
        value: fixed(p99, 2),
        baseline: "-",
        verdict: "-",
      },
    ];
  }
  const tmux50 = percentile(tmux.latencies, 50);
  const tmux99 = percentile(tmux.latencies, 99);
  const agent = agentPolling(tmux);
  const agent50 = percentile(agent, 50);
  return [
    {
      section: SECTION,
      measure: "Session.exec p50 ms",
      value: fixed(p50, 2),
      baseline: `tmux poll ${fixed(tmux50, 2)}`,
      verdict: verdict(
        ratio(p50, tmux50),
        p50 <= goal && p50 < tmux50,
        `<= ${goal} ms and < tmux`,
      ),
    },
    {
      section: SECTION,
      measure: "Session.exec p99 ms",
      value: fixed(p99, 2),
      baseline: `tmux poll ${fixed(tmux99, 2)}`,
      verdict: verdict(ratio(p99, tmux99), p99 < tmux99, "< tmux"),
    },
    {
      section: SECTION,
      measure: "tmux send-keys + capture-pane loop p50 ms",
      value: fixed(tmux50, 2),
      baseline: "-",
      verdict: `${fixed(percentile(tmux.captures, 50), 0)} captures per run (p50)`,
    },
    {
      section: SECTION,
      measure: "tmux capture-pane call p50 ms",
      value: fixed(percentile(tmux.captureMs, 50), 2),
      baseline: "-",
      verdict: "-",
    },
    {
      section: SECTION,
      measure: `agent tools polling every ${AGENT_POLL_MS} ms p50 ms (computed)`,
      value: fixed(agent50, 1),
      baseline: `Session.exec ${fixed(p50, 2)}`,
      verdict: `${fixed(agent50 / p50, 0)}x slower than Session.exec`,
    },
    {
      section: SECTION,
      measure: `agent tools polling every ${AGENT_POLL_MS} ms p99 ms (computed)`,
      value: fixed(percentile(agent, 99), 1),
      baseline: `Session.exec ${fixed(p99, 2)}`,
      verdict: "-",
    },
  ];
}

/** The set-up lines of the script: a shell with a prompt the checks can anchor on. */
const SCRIPT_SETUP = ["open --size 80x24", "exec PS1='tb$ '"];

/**
 * The steps: per round, type x and wait until exactly it follows the prompt,
 * then erase it and wait until the line is bare again. Each check waits for
 * the effect of the step before it, so a lost key fails the script.
 */
function scriptSteps(): string[] {
  const round = [
    "type x",
    String.raw`expect '/^tb\$ x$/'`,
    "key BSpace",
    String.raw`expect '/^tb\$$/'`,
  ];
  return Array.from({ length: SCRIPT_ROUNDS }, () => round).flat();
}

/**
 * Milliseconds `termbridge run` takes for `lines`, start-up included.
 * @throws {Error} when the script does not pass
 */
function runScript(command: TermbridgeCommand, dir: string, lines: string[]): number {
  writeFileSync(join(dir, "script.tb"), lines.join("\n") + "\n");
  const start = performance.now();
  const result = spawnSync(command.command, [...command.args, "script.tb"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...runtime.env(), HOME: dir, HISTFILE: "/dev/null" },
  });
  const ms = performance.now() - start;
  if (result.status !== 0) {
    throw new Error(`The script failed (${result.status}): ${result.stderr}`);
  }
  return ms;
}

/** The script through `termbridge run`: whole, and its set-up alone (start-up, open, PS1). */
function scriptTimes(prefer: Preference): { total: number; setup: number; description: string } {
  const dir = mkdtempSync(join(tmpdir(), "tb-script-bench-"));
  try {
    const command = termbridgeCommand(ROOT, ["run"], prefer);
    if (command.warning) progress(`warning: ${command.warning}`);
    runScript(command, dir, SCRIPT_SETUP); // Untimed: fills the runtime's caches (Deno from source).
    const setup = runScript(command, dir, SCRIPT_SETUP);
    const total = runScript(command, dir, [...SCRIPT_SETUP, ...scriptSteps()]);
    return { total, setup, description: command.description };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The rows of the script section. */
function scriptRows(
  ours: { total: number; setup: number; description: string },
  tmuxMs: number | undefined,
): Row[] {
  const steps = scriptSteps().length;
  const stepsMs = Math.max(0, ours.total - ours.setup);
  const row = (measure: string, value: string, baseline: string, verdictText: string): Row => ({
    section: "script",
    measure,
    value,
    baseline,
    verdict: verdictText,
  });
  return [
    row(
      `${SCRIPT_SETUP.length + steps} steps through termbridge run, start-up included, ms`,
      fixed(ours.total, 0),
      "-",
      verdict(`${fixed(ours.total, 0)} ms`, ours.total < SCRIPT_GOAL_MS, `< ${SCRIPT_GOAL_MS} ms`),
    ),
    row(
      `the ${steps} type/key/expect steps alone (total - set-up ${fixed(ours.setup, 0)} ms), ms`,
      fixed(stepsMs, 0),
      tmuxMs === undefined ? "tmux not installed" : `tmux ${fixed(tmuxMs, 0)}`,
      tmuxMs === undefined ? "-" : ratio(stepsMs, tmuxMs),
    ),
    row(
      "per step, ms",
      fixed(stepsMs / steps, 3),
      tmuxMs === undefined ? "-" : `tmux ${fixed(tmuxMs / steps, 2)}`,
      ours.description,
    ),
  ];
}

/** A program's first line of `--version` output (or `-V` for tmux). */
function versionOf(argv: string[]): string {
  const result = spawnSync(argv[0], argv.slice(1), { encoding: "utf8" });
  return result.status === 0 ? result.stdout.split("\n")[0].trim() : "not installed";
}

async function main(): Promise<void> {
  const env = runtime.env();
  const rounds = envNumber(env, "BENCH_ROUNDS", 200);
  const warmup = envNumber(env, "BENCH_WARMUP", 20);
  const started = performance.now();
  progress(`Session.exec("true"): ${warmup} + ${rounds} runs`);
  const session = await sessionLatencies(rounds, warmup);
  let tmux: TmuxLatencies | undefined;
  if (tmuxAvailable()) {
    progress(`tmux send-keys "true" + capture-pane: ${warmup} + ${rounds} runs`);
    tmux = tmuxTrueLatencies(rounds, warmup);
  } else {
    progress("tmux is not installed: no baseline");
  }
  const prefer = parsePreference("BENCH_TERMBRIDGE", env.BENCH_TERMBRIDGE);
  progress(
    `a script of ${SCRIPT_SETUP.length + scriptSteps().length} steps through termbridge run`,
  );
  const script = scriptTimes(prefer);
  let tmuxScript: number | undefined;
  if (tmux !== undefined) {
    progress(`the same ${scriptSteps().length} steps through tmux`);
    tmuxScript = tmuxScriptMs(SCRIPT_ROUNDS);
  }
  const table = [...rows(session, tmux), ...scriptRows(script, tmuxScript)];
  console.log([
    `termbridge session benchmark on ${runtime.name} ${runtime.version}`,
    `${new Date().toISOString()}, ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}`,
    `${versionOf(["bash", "--version"])}; ${versionOf(["tmux", "-V"])}`,
    `${rounds} timed runs after ${warmup} warm-up runs each; ` +
    `total time ${((performance.now() - started) / 1000).toFixed(1)} s`,
    "",
    formatTable(table),
  ].join("\n"));
  if (env.BENCH_MARKDOWN === "1") console.log(`\n${formatMarkdown(table)}`);
}

try {
  await main();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
