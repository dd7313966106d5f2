/**
 * The ACP benchmark: a scripted agent built with the ACP SDK's agent side
 * drives `termbridge serve` over the child's stdin/stdout and measures the
 * client's terminal methods, each figure next to a baseline taken in the same
 * run on the same runtime:
 *
 * 1. latency of `terminal/create` + `terminal/wait_for_exit` for `true`, next
 *    to `true` spawned directly in a PTY (goal: p50 within 1.5 ms of it);
 * 2. throughput of `cat FILE` with `outputByteLimit` 1 MiB, polled with
 *    `terminal/output` every 200 ms, next to the raw PTY read rate (goal:
 *    >= 70% of it), with serve's RSS and checks of the truncated output;
 * 3. the policy check + audit of an agent's `session/request_permission`
 *    (as `termbridge acp` answers one), in this process, beside the plain
 *    `--yes` answer (goal: under 1 ms p50 added);
 * 4. termbridge's MCP tools offered to the agent, through `termbridge acp`:
 *    the time they add to the session's answer (goal: under 150 ms), and
 *    `true` as a tool call via MCP `terminal_execute` beside `terminal/create`
 *    (`BENCH_MCP_STARTS`, default 6 runs each way; `BENCH_ROUNDS` calls);
 * 5. `acp`'s agent start to its answer to `initialize`: plain, inside the
 *    containment (goal: under +5 ms) and inside the sandbox (goal: under
 *    +20 ms), `BENCH_AGENT_STARTS` (30) rounds; `BENCH_ONLY=agent-start`
 *    runs only this section;
 * 6. Claude Code's PreToolUse hook, run as Claude Code runs it
 *    (`/bin/sh -c`): the loopback command (bash and `/dev/tcp`) against
 *    `termbridge _hook` (the built binary), beside `true`;
 *    `BENCH_ONLY=hook` runs only this section.
 *
 * Run from the repository root, on either runtime:
 *
 *     node_modules/.bin/bun bench/acp.ts
 *     node_modules/.bin/deno run -A bench/acp.ts
 *
 * serve is `dist/termbridge serve` when built (`make build`), else this
 * runtime running `main.ts serve`; `BENCH_SERVE=source` or `binary` forces
 * one. Sizes: `BENCH_MB` (200, the flood file), `BENCH_ROUNDS` (200),
 * `BENCH_WARMUP` (10), `BENCH_FLOOD_RUNS` (3: floods of each kind, interleaved,
 * the median rate reported). `BENCH_MARKDOWN=1` also prints the table as
 * Markdown.
 * The table goes to stdout, progress to stderr.
 * @module
 */

import { cpus } from "node:os";
import { dirname, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";
import { runtime } from "../lib/runtime/mod.ts";
import { latencySection } from "./_acp_latency.ts";
import { permissionSection } from "./_acp_permission.ts";
import { mcpToolsSection } from "./_acp_mcp.ts";
import { throughputSection } from "./_acp_throughput.ts";
import { agentStartSection } from "./_acp_agent_start.ts";
import { hookSection } from "./_acp_hook.ts";
import { type ServePreference, startServe } from "./_acp_serve.ts";
import { removeFloodFiles, writeFloodFiles } from "./_inputs.ts";
import {
  envNumber,
  failedRow,
  formatMarkdown,
  formatTable,
  progress,
  type Row,
  verdict,
} from "./_report.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The run's settings, from the environment. */
function readConfig(env: Record<string, string>) {
  const serve = env.BENCH_SERVE ?? "auto";
  if (!["auto", "binary", "source"].includes(serve)) {
    throw new RangeError(
      `Cannot read BENCH_SERVE: expected auto, binary or source, got "${serve}"`,
    );
  }
  return {
    serve: serve as ServePreference,
    megabytes: envNumber(env, "BENCH_MB", 200),
    rounds: envNumber(env, "BENCH_ROUNDS", 200),
    // 0 warm-ups is allowed; envNumber only takes positive numbers.
    warmups: env.BENCH_WARMUP === "0" ? 0 : envNumber(env, "BENCH_WARMUP", 10),
    floodRuns: envNumber(env, "BENCH_FLOOD_RUNS", 3),
    mcpStarts: envNumber(env, "BENCH_MCP_STARTS", 6),
    agentStarts: envNumber(env, "BENCH_AGENT_STARTS", 30),
    only: env.BENCH_ONLY,
    markdown: env.BENCH_MARKDOWN === "1",
  };
}

/** Runs both sections over one SDK connection to one serve child. */
async function run(config: ReturnType<typeof readConfig>) {
  const started = performance.now();
  const serve = startServe(ROOT, config.serve);
  progress(`service: ${serve.argv.join(" ")} (pid ${serve.pid})`);
  const rows: Row[] = [];
  let stopped: Awaited<ReturnType<typeof serve.stop>> | undefined;
  let dir: string | undefined;
  try {
    progress(`writing the ${config.megabytes} MB plain flood file`);
    const flood = writeFloodFiles(config.megabytes, ["plain"]);
    dir = flood.dir;
    // connectWith closes the connection (and with it serve's stdin) when the callback ends.
    await acp.agent().connectWith(serve.stream, async (ctx) => {
      try {
        rows.push(...await latencySection(ctx, config));
      } catch (error) {
        rows.push(...failedRow("latency true", error));
      }
      try {
        rows.push(
          ...await throughputSection(ctx, {
            file: flood.files[0],
            servePid: serve.pid,
            runs: config.floodRuns,
          }),
        );
      } catch (error) {
        rows.push(...failedRow("acp throughput", error));
      }
    });
    try {
      rows.push(...await permissionSection(config));
    } catch (error) {
      rows.push(...failedRow("permission", error));
    }
    try {
      rows.push(
        ...await mcpToolsSection(ROOT, { starts: config.mcpStarts, rounds: config.rounds }),
      );
    } catch (error) {
      rows.push(...failedRow("acp mcp tools", error));
    }
  } finally {
    stopped = await serve.stop();
    if (dir !== undefined) removeFloodFiles(dir);
  }
  const { status, byEof } = stopped;
  const clean = byEof && status.exitCode === 0;
  if (!clean) process.exitCode = 1;
  const ended = clean ? "exit 0 on EOF" : byEof ? "other status" : "had to be killed";
  rows.push({
    section: "shutdown",
    measure: "serve exit after stdin closed",
    value: JSON.stringify(status),
    baseline: "-",
    verdict: verdict(ended, clean, "exit 0 on EOF"),
  });
  return { rows, serve, seconds: (performance.now() - started) / 1000 };
}

/** The agent-start section alone, or after the others. */
async function agentStart(config: ReturnType<typeof readConfig>): Promise<Row[]> {
  try {
    return await agentStartSection({ rounds: config.agentStarts });
  } catch (error) {
    return failedRow("agent start", error);
  }
}

/** The hook section, or its failure as a row. */
async function hook(config: ReturnType<typeof readConfig>): Promise<Row[]> {
  try {
    return await hookSection(resolve(ROOT, "dist/termbridge"), {
      rounds: Math.min(config.rounds, 50),
      warmups: Math.min(config.warmups, 3),
    });
  } catch (error) {
    return failedRow("hook", error);
  }
}

const config = readConfig(runtime.env());
if (config.only === "hook") {
  console.log(formatTable(await hook(config)));
  process.exit();
}
if (config.only === "agent-start") {
  console.log(formatTable(await agentStart(config)));
  process.exit();
}
const { rows, serve, seconds } = await run(config);
rows.push(...await agentStart(config));
rows.push(...await hook(config));
console.log([
  `termbridge ACP terminal benchmark on ${runtime.name} ${runtime.version}`,
  `${new Date().toISOString()}, ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}`,
  `service: ${serve.description}`,
  `agent: @agentclientprotocol/sdk acp.agent() over the child's stdin/stdout (ndjson)`,
  ...(serve.runtimeName === runtime.name ? [] : [
    `note: the baselines run on ${runtime.name}, the service on ${serve.runtimeName}: ` +
    `BENCH_SERVE=source compares like with like`,
  ]),
  `sizes: ${config.megabytes} MB flood x ${config.floodRuns}, ` +
  `${config.rounds} rounds after ${config.warmups} warm-ups`,
  `total time: ${seconds.toFixed(1)} s`,
  "",
  formatTable(rows),
].join("\n"));
if (config.markdown) console.log(`\n${formatMarkdown(rows)}`);
