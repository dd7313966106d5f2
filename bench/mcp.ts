/**
 * The MCP benchmark: `termbridge mcp` driven by the official MCP SDK client
 * over stdio, as an MCP host drives it.
 *
 * 1. start-up: spawn until the initialize response, and until tools/list
 *    answers (goal: median < 100 ms), median of fresh starts, next to the
 *    same binary's `--version` (the process start-up floor);
 * 2. round trip: `type "echo X<i>"` + `sendKey Enter` + `getContent`
 *    (repeated until the screen shows `X<i>` as an output line), p50/p99
 *    over the rounds (goal: p50 < 5 ms), next to a `listSessions` call (the
 *    protocol's own round trip), with the getContent calls each round needed.
 *
 * Run from the repository root, on either runtime (the runtime runs the client):
 *
 *     node_modules/.bin/bun bench/mcp.ts
 *     node_modules/.bin/deno run -A bench/mcp.ts
 *
 * The server is `dist/termbridge mcp` when built (`make build`), else this
 * runtime running `main.ts mcp`; `BENCH_MCP=source` or `binary` forces one,
 * `BENCH_MCP_BIN=PATH` names another binary. Sizes: `BENCH_STARTS` (10),
 * `BENCH_ROUNDS` (200), `BENCH_WARMUP` (10). `BENCH_MARKDOWN=1` also prints
 * the table as Markdown. The table goes to stdout, progress to stderr.
 * @module
 */

import { cpus } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../lib/runtime/mod.ts";
import { mcpCommand, startMcp, versionRun } from "./_mcp_server.ts";
import { roundTripSection } from "./_mcp_round_trip.ts";
import { parsePreference, type TermbridgeCommand } from "./_termbridge.ts";
import {
  envNumber,
  failedRow,
  fixed,
  formatMarkdown,
  formatTable,
  median,
  progress,
  type Row,
  verdict,
} from "./_report.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The run's settings, from the environment. */
function readConfig(env: Record<string, string>) {
  return {
    prefer: parsePreference("BENCH_MCP", env.BENCH_MCP),
    binary: env.BENCH_MCP_BIN || undefined,
    starts: envNumber(env, "BENCH_STARTS", 10),
    rounds: envNumber(env, "BENCH_ROUNDS", 200),
    // 0 warm-ups is allowed; envNumber only takes positive numbers.
    warmups: env.BENCH_WARMUP === "0" ? 0 : envNumber(env, "BENCH_WARMUP", 10),
    markdown: env.BENCH_MARKDOWN === "1",
  };
}

/** Section 1: fresh servers, each timed from spawn to initialize and to tools/list, then stopped. */
async function startupSection(command: TermbridgeCommand, starts: number): Promise<Row[]> {
  const initialize: number[] = [];
  const toolsList: number[] = [];
  const version: number[] = [];
  let tools = 0;
  let clean = 0;
  for (let i = 0; i < starts; i++) {
    // Interleaved, so that a busy moment of the machine hits both.
    version.push(versionRun(command));
    const server = await startMcp(ROOT, command);
    initialize.push(server.initializeMs);
    toolsList.push(server.toolsListMs);
    tools = server.toolCount;
    const status = await server.stop();
    if (status.byEof && status.code === 0) clean++;
    else console.error(`[bench] start ${i}: ended ${JSON.stringify(status)}\n${server.stderr()}`);
  }
  progress(`start-up: ${starts} fresh starts done`);
  const floor = `--version exit ${fixed(median(version))}`;
  const row = (measure: string, value: string, baseline = "-", goal = "-"): Row => ({
    section: "start-up",
    measure,
    value,
    baseline,
    verdict: goal,
  });
  const listMedian = median(toolsList);
  return [
    row(`spawn to initialize answered ms (median of ${starts})`, fixed(median(initialize)), floor),
    row(
      `spawn to tools/list answered ms (median of ${starts})`,
      fixed(listMedian),
      floor,
      verdict(`${fixed(listMedian)} ms`, listMedian < 100, "< 100 ms"),
    ),
    row(
      "spawn to tools/list answered ms, min / max",
      `${fixed(Math.min(...toolsList))} / ${fixed(Math.max(...toolsList))}`,
    ),
    row("tools listed", String(tools)),
    row(
      "exit after stdin closed",
      `${clean} of ${starts} exit 0 on EOF`,
      "-",
      verdict(`${clean}/${starts}`, clean === starts, "all"),
    ),
  ];
}

async function run(config: ReturnType<typeof readConfig>) {
  const started = performance.now();
  const command = mcpCommand(ROOT, config.prefer, config.binary);
  progress(`server: ${command.description}`);
  const rows: Row[] = [];
  try {
    rows.push(...await startupSection(command, config.starts));
  } catch (error) {
    rows.push(...failedRow("start-up", error));
  }
  try {
    rows.push(...await roundTripSection(ROOT, command, config));
  } catch (error) {
    rows.push(...failedRow("round trip", error));
  }
  return { rows, command, seconds: (performance.now() - started) / 1000 };
}

const config = readConfig(runtime.env());
const { rows, command, seconds } = await run(config);
console.log([
  `termbridge MCP benchmark, client on ${runtime.name} ${runtime.version}`,
  `${new Date().toISOString()}, ${cpus().length} cores, ${cpus()[0]?.model ?? "unknown CPU"}`,
  `server: ${command.description}`,
  ...(command.warning ? [`WARNING: ${command.warning}`] : []),
  `client: @modelcontextprotocol/sdk Client + StdioClientTransport (the child's stdin/stdout)`,
  `sizes: ${config.starts} fresh starts; ${config.rounds} rounds after ${config.warmups} warm-ups`,
  `total time: ${seconds.toFixed(1)} s`,
  "",
  formatTable(rows),
].join("\n"));
if (config.markdown) console.log(`\n${formatMarkdown(rows)}`);
