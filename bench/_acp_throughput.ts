/**
 * Section 2 of the ACP benchmark: a flood (`cat FILE`) through serve, polled
 * with `terminal/output` every 200 ms as agents poll, next to the raw PTY
 * read rate of this runtime (and, as a diagnosis, the same flood unpolled);
 * the truncated output is checked against the file and serve's RSS is
 * sampled throughout.
 * @module
 */

import { closeSync, openSync, readSync } from "node:fs";
import type * as acp from "@agentclientprotocol/sdk";
import { runtime } from "../lib/runtime/mod.ts";
import { ptyEnv, rowMaker, SESSION, SIZE } from "./_acp_common.ts";
import { type RssTrace, watchRss } from "./_acp_serve.ts";
import type { FloodFile } from "./_inputs.ts";
import {
  fixed,
  mb,
  mbPerSecond,
  median,
  progress,
  ratio,
  type Row,
  sleep,
  verdict,
} from "./_report.ts";

/** `outputByteLimit` of the flood: 1 MiB. */
const LIMIT = 1024 * 1024;
const POLL_MS = 200;
const TIMEOUT_MS = 120_000;

/** The last `length` bytes of a file as text, one char per byte (the flood is ASCII). */
function fileTail(path: string, size: number, length: number): string {
  const bytes = new Uint8Array(Math.min(length, size));
  const fd = openSync(path, "r");
  try {
    readSync(fd, bytes, 0, bytes.length, size - bytes.length);
  } finally {
    closeSync(fd);
  }
  return new TextDecoder("latin1").decode(bytes);
}

/** Baseline: `cat FILE` in a PTY of this runtime with an `onData` that only counts. */
async function rawPty(file: FloodFile): Promise<{ ms: number; received: number }> {
  let received = 0;
  const start = performance.now();
  const pty = runtime.spawnPty({
    argv: ["cat", file.path],
    env: ptyEnv(),
    ...SIZE,
    onData: (bytes) => received += bytes.length,
  });
  try {
    await pty.exited;
    return { ms: performance.now() - start, received };
  } finally {
    runtime.kill(-pty.pid, "SIGKILL");
    await pty.close();
  }
}

/** What one flood through serve showed. */
interface Flood {
  /** From sending create until wait_for_exit answered. */
  exitMs: number;
  /** From sending create until an output poll carried `exitStatus`. */
  seenMs: number;
  polls: number;
  pollMs: number;
  final: acp.TerminalOutputResponse;
  rss: RssTrace;
}

/**
 * Ours: `terminal/create` for `cat FILE`, a `wait_for_exit` pending while
 * `terminal/output` is polled every 200 ms until it carries `exitStatus`,
 * then release; serve's RSS sampled every 50 ms until 500 ms after release.
 * @throws {Error} when the command has not exited after two minutes
 */
async function acpFlood(ctx: acp.AgentContext, file: FloodFile, servePid: number): Promise<Flood> {
  const rss = watchRss(servePid, 50);
  let trace: RssTrace | undefined;
  try {
    const start = performance.now();
    const terminal = await ctx.createTerminal({
      sessionId: SESSION,
      command: "cat",
      args: [file.path],
      outputByteLimit: LIMIT,
    });
    let exitMs = NaN;
    const waited = terminal.waitForExit().then(() => exitMs = performance.now() - start);
    let polls = 0, pollMs = 0;
    let final: acp.TerminalOutputResponse;
    for (;;) {
      const asked = performance.now();
      final = await terminal.currentOutput();
      pollMs += performance.now() - asked;
      polls++;
      if (final.exitStatus) break;
      if (performance.now() - start > TIMEOUT_MS) {
        await terminal.release();
        throw new Error(`Timed out after ${TIMEOUT_MS} ms: cat of the flood file`);
      }
      await sleep(POLL_MS);
    }
    const seenMs = performance.now() - start;
    await waited;
    await terminal.release();
    await sleep(500); // Let serve free the terminal before the end reading.
    trace = rss.stop();
    return { exitMs, seenMs, polls, pollMs, final, rss: trace };
  } finally {
    if (trace === undefined) rss.stop();
  }
}

/** Diagnosis: the same flood with only `wait_for_exit` pending, no polls; milliseconds. */
async function acpFloodUnpolled(ctx: acp.AgentContext, file: FloodFile): Promise<number> {
  const start = performance.now();
  const terminal = await ctx.createTerminal({
    sessionId: SESSION,
    command: "cat",
    args: [file.path],
    outputByteLimit: LIMIT,
  });
  try {
    await terminal.waitForExit();
    return performance.now() - start;
  } finally {
    await terminal.release();
  }
}

/** The checks of one flood's final output, each true when it passed. */
function checkOutput(file: FloodFile, final: acp.TerminalOutputResponse) {
  const bytes = new TextEncoder().encode(final.output).length;
  return {
    bytes,
    size: bytes <= LIMIT,
    truncated: final.truncated === true,
    // Lines are exactly 100 bytes: the last 100 bytes are the last line and its \n.
    lastLine: final.output.endsWith(fileTail(file.path, file.bytes, 100)),
    tail: final.output === fileTail(file.path, file.bytes, bytes),
    exit: final.exitStatus?.exitCode === 0 && final.exitStatus?.signal === null,
  };
}

/** Runs the section, `runs` floods of each kind interleaved, and returns its rows. */
export async function throughputSection(
  ctx: acp.AgentContext,
  options: { file: FloodFile; servePid: number; runs: number },
): Promise<Row[]> {
  const { file, servePid, runs } = options;
  const row = rowMaker("acp throughput");
  const raws: { ms: number; received: number }[] = [];
  const floods: (Flood & { checks: ReturnType<typeof checkOutput> })[] = [];
  const unpolled: number[] = [];
  for (let run = 1; run <= runs; run++) {
    progress(`throughput ${run}/${runs}: raw PTY read`);
    raws.push(await rawPty(file));
    progress(`throughput ${run}/${runs}: terminal/create cat FILE, terminal/output every 200 ms`);
    const flood = await acpFlood(ctx, file, servePid);
    floods.push({ ...flood, checks: checkOutput(file, flood.final) });
    progress(`throughput ${run}/${runs}: the same with wait_for_exit only, no polls`);
    unpolled.push(await acpFloodUnpolled(ctx, file));
  }
  const wire = file.bytes + file.newlines;
  const rate = (ms: number) => mbPerSecond(file.bytes, ms);
  const spread = (rates: number[]) =>
    runs === 1 ? "" : ` (${fixed(Math.min(...rates))}-${fixed(Math.max(...rates))})`;
  const ours = floods.map((flood) => rate(flood.exitMs));
  const raw = raws.map((r) => rate(r.ms));
  const [oursMb, rawMb] = [median(ours), median(raw)];
  const passed = (key: "size" | "truncated" | "lastLine" | "tail" | "exit", goal: string) => {
    const count = floods.filter((flood) => flood.checks[key]).length;
    return verdict(`${count} of ${runs} runs`, count === runs, goal);
  };
  const last = floods[floods.length - 1];
  const mbOf = (bytes: number) => `${mb(bytes)} MB`;
  return [
    row(
      "input: plain 99-char lines (MB = 10^6 bytes)",
      `${mb(file.bytes)} MB, ${file.newlines} lines`,
      "-",
      `${mb(wire)} MB on the wire (\\n -> \\r\\n); MB/s count file bytes`,
    ),
    row(
      `ours MB/s, create -> wait_for_exit (median of ${runs})`,
      `${fixed(oursMb)}${spread(ours)}`,
      `raw PTY ${runtime.name} ${fixed(rawMb)}${spread(raw)}`,
      verdict(ratio(oursMb, rawMb), oursMb >= 0.7 * rawMb, ">= 0.70x"),
    ),
    row(
      `diagnosis: ours without output polls MB/s (median of ${runs})`,
      `${fixed(median(unpolled.map(rate)))}${spread(unpolled.map(rate))}`,
      `polled ${fixed(oursMb)}`,
      `what polling every ${POLL_MS} ms costs`,
    ),
    row(
      "raw PTY bytes read (onData only counts)",
      raws.every((r) => r.received === wire) ? `${wire} in every run` : "DIFFERENT",
      `expected ${wire}`,
    ),
    row(
      "exit seen: wait_for_exit / output poll ms (last run)",
      `${fixed(last.exitMs, 0)} / ${fixed(last.seenMs, 0)}`,
      "-",
      `${last.polls} polls, ${fixed(last.pollMs / last.polls, 1)} ms each on average`,
    ),
    row(
      "final output <= outputByteLimit (1 MiB)",
      `${last.checks.bytes} bytes`,
      `limit ${LIMIT}`,
      passed("size", "<= limit"),
    ),
    row(
      "final output truncated: true",
      String(last.final.truncated),
      "-",
      passed("truncated", "all"),
    ),
    row(
      "final output ends with the file's last line",
      JSON.stringify(fileTail(file.path, file.bytes, 100).slice(0, 9)),
      "-",
      passed("lastLine", "nothing lost at the end"),
    ),
    row(
      "final output = the file's last N bytes",
      last.checks.tail ? "same" : "DIFFERENT",
      "-",
      passed("tail", "exact tail"),
    ),
    row(
      "exit status",
      JSON.stringify(last.final.exitStatus ?? null),
      "-",
      passed("exit", "exit 0"),
    ),
    row(
      `serve RSS start / peak / end (VmRSS every 50 ms, all ${runs} runs)`,
      [floods[0].rss.start, Math.max(...floods.map((f) => f.rss.peak)), last.rss.end]
        .map(mbOf).join(" / "),
      "-",
      "start: before run 1; end: 500 ms after the last release",
    ),
  ];
}
