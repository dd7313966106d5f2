/**
 * Section 1 of the ACP benchmark: `terminal/create` + `terminal/wait_for_exit`
 * of `true` through serve, next to `true` spawned directly in a PTY of this
 * runtime; with two diagnoses that split the gap between them.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import { runtime } from "../lib/runtime/mod.ts";
import { TerminalService } from "../lib/service/terminal_service.ts";
import { ptyEnv, rowMaker, SESSION, SIZE } from "./_acp_common.ts";
import { fixed, percentile, progress, type Row, verdict } from "./_report.ts";

/** The request of every round. */
const TRUE = { sessionId: SESSION, command: "true", args: [] };

/**
 * Milliseconds from spawning `argv` in a PTY (this runtime) until `exited`;
 * close not timed. `stdin: "null"` is how serve runs commands.
 */
async function ptyRun(argv: string[], stdin: "terminal" | "null" = "terminal"): Promise<number> {
  const start = performance.now();
  const pty = runtime.spawnPty({ argv, env: ptyEnv(), ...SIZE, stdin, onData: () => {} });
  try {
    const status = await pty.exited;
    const ms = performance.now() - start;
    if (status.exitCode !== 0) {
      throw new Error(`Cannot run "${argv.join(" ")}" in a PTY: ${JSON.stringify(status)}`);
    }
    return ms;
  } finally {
    await pty.close();
  }
}

/** Milliseconds of create + waitForExit on a TerminalService in this process; release not timed. */
async function serviceRun(service: TerminalService): Promise<number> {
  const start = performance.now();
  const id = await service.create(TRUE);
  await service.waitForExit(SESSION, id);
  const ms = performance.now() - start;
  await service.release(SESSION, id);
  return ms;
}

/** One `true` through serve: create alone, create + wait_for_exit, then release (timed apart). */
async function acpRun(ctx: acp.AgentContext) {
  const start = performance.now();
  const terminal = await ctx.createTerminal(TRUE);
  const createMs = performance.now() - start;
  const status = await terminal.waitForExit();
  const totalMs = performance.now() - start;
  const released = performance.now();
  await terminal.release();
  return { createMs, totalMs, releaseMs: performance.now() - released, ok: status.exitCode === 0 };
}

/** Latencies of every kind, `warmups` rounds dropped; rounds interleave so drift hits all. */
async function measure(ctx: acp.AgentContext, options: { rounds: number; warmups: number }) {
  const service = new TerminalService({ cwd: runtime.cwd() });
  const all = {
    direct: [] as number[],
    wrapped: [] as number[],
    service: [] as number[],
    create: [] as number[],
    total: [] as number[],
    release: [] as number[],
  };
  let failures = 0;
  try {
    for (let i = 0; i < options.warmups + options.rounds; i++) {
      const direct = await ptyRun(["true"]);
      const wrapped = await ptyRun(["true"], "null");
      const inProcess = await serviceRun(service);
      const ours = await acpRun(ctx);
      if (i < options.warmups) continue;
      all.direct.push(direct);
      all.wrapped.push(wrapped);
      all.service.push(inProcess);
      all.create.push(ours.createMs);
      all.total.push(ours.totalMs);
      all.release.push(ours.releaseMs);
      if (!ours.ok) failures++;
    }
  } finally {
    await service.releaseAll();
  }
  return { ...all, failures };
}

/** Runs the section and returns its rows. */
export async function latencySection(
  ctx: acp.AgentContext,
  options: { rounds: number; warmups: number },
): Promise<Row[]> {
  const row = rowMaker("latency true");
  progress(`latency: ${options.warmups} warm-ups, then ${options.rounds} rounds of each`);
  const m = await measure(ctx, options);
  const p50 = (values: number[]) => percentile(values, 50);
  const p99 = (values: number[]) => percentile(values, 99);
  const both = (values: number[]) => `${fixed(p50(values), 2)} / ${fixed(p99(values), 2)}`;
  const diff = (a: number, b: number) => `${a - b >= 0 ? "+" : ""}${fixed(a - b, 2)} ms`;
  const floor = `PTY spawn->exited, ${runtime.name}`;
  return [
    row(
      "create + wait_for_exit p50 ms",
      fixed(p50(m.total), 2),
      `${floor} ${fixed(p50(m.direct), 2)}`,
      verdict(diff(p50(m.total), p50(m.direct)), p50(m.total) - p50(m.direct) <= 1.5, "<= +1.5 ms"),
    ),
    row(
      "create + wait_for_exit p99 ms",
      fixed(p99(m.total), 2),
      `${floor} ${fixed(p99(m.direct), 2)}`,
      diff(p99(m.total), p99(m.direct)),
    ),
    row("terminal/create alone p50 / p99 ms", both(m.create), "-", "part of the figure above"),
    row("terminal/release p50 / p99 ms (not in the figures above)", both(m.release)),
    row(
      "diagnosis: PTY with stdin at end of file, as serve runs it, p50 / p99 ms",
      both(m.wrapped),
      `direct ${both(m.direct)}`,
      `stdin "null" adds ${diff(p50(m.wrapped), p50(m.direct))} p50${
        runtime.name === "bun" ? " (an exec of sh)" : " (same launcher)"
      }`,
    ),
    row(
      `diagnosis: TerminalService in-process (${runtime.name}) p50 / p99 ms`,
      both(m.service),
      `stdin at EOF ${both(m.wrapped)}`,
      `Terminal + service add ${diff(p50(m.service), p50(m.wrapped))} p50; no JSON-RPC`,
    ),
    row(
      "rounds that exited 0",
      `${options.rounds - m.failures} of ${options.rounds}`,
      "-",
      verdict(m.failures === 0 ? "all" : "NOT ALL", m.failures === 0, "all"),
    ),
  ];
}
