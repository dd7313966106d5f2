/**
 * Section 1: how fast a terminal swallows a flood of output, next to the
 * pure emulator, the raw PTY, tmux and script(1) on the same file.
 * @module
 */

import { spawnSync } from "node:child_process";
import { runtime } from "../lib/runtime/mod.ts";
import { Emulator } from "../lib/terminal/emulator.ts";
import { OutputLog } from "../lib/terminal/output_log.ts";
import { Terminal, TERMINAL_DEFAULTS } from "../lib/terminal/terminal.ts";
import { PlainTextStream } from "../lib/terminal/text_stream.ts";
import { chunkCost } from "./_chunk_cost.ts";
import { feedAsPty, type FloodFile } from "./_inputs.ts";
import {
  fixed,
  mb,
  mbDelta,
  mbPerSecond,
  median,
  progress,
  ratio,
  type Row,
  verdict,
} from "./_report.ts";
import { settledRss, watchPeak } from "./_rss.ts";
import { pollPane, tmuxAvailable, TmuxServer } from "./_tmux.ts";

const END = "END-OF-FLOOD";
/** What `echo END-OF-FLOOD` puts on the wire: the PTY turns `\n` into `\r\n`. */
const END_BYTES = END.length + 2;
const SIZE = { cols: 120, rows: 40 };
const TIMEOUT_MS = 120_000;
/** Chunk sizes of the per-chunk work rows: a read's, and the reader's largest join. */
const CHUNK_KIB = [64, 1024];

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Bytes a PTY delivers for `file`: every `\n` arrives as `\r\n`. */
function wireBytes(file: FloodFile): number {
  return file.bytes + file.newlines;
}

/** Rejects after `ms` so that a stuck measurement cannot hang the run. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Ours: `cat FILE; echo END-OF-FLOOD` in a Terminal until it exits. */
async function floodTerminal(file: FloodFile) {
  const rssBefore = await settledRss();
  const watch = watchPeak(50);
  const start = performance.now();
  const terminal = Terminal.spawn({
    argv: ["sh", "-c", `cat ${quote(file.path)}; echo ${END}`],
    ...SIZE,
  });
  try {
    await within(terminal.wait(), TIMEOUT_MS, `flood of ${file.kind}`);
    const ms = performance.now() - start;
    const peak = watch.stop();
    const received = terminal.rawLog.totalBytes;
    const lastLine = terminal.lines({ scope: "visible" }).at(-1)?.trimEnd() ?? "";
    await terminal.dispose();
    return { ms, received, lastLine, peak, rssBefore, rssAfter: await settledRss() };
  } finally {
    watch.stop();
    await terminal.dispose();
  }
}

/** Baseline (a): the same bytes fed in 64 KB chunks straight to a fresh Emulator. */
function parseOnly(file: FloodFile): number {
  const emulator = new Emulator({ ...SIZE, scrollback: 1000 });
  try {
    return feedAsPty(file, (chunk) => emulator.write(chunk));
  } finally {
    emulator.dispose();
  }
}

/**
 * Diagnosis, not a goal: the work a Terminal does per chunk besides parsing
 * (raw log, plain-text stream, text log), with the default limits, no PTY.
 */
function logsOnly(file: FloodFile): number {
  const raw = new OutputLog(TERMINAL_DEFAULTS.rawLimit);
  const text = new OutputLog(TERMINAL_DEFAULTS.outputLimit);
  const plain = new PlainTextStream();
  return feedAsPty(file, (chunk) => {
    raw.append(chunk);
    plain.pushInto(chunk, text);
    plain.takeOscMarks();
  });
}

/** Baseline (b): the runtime's PTY with an `onData` that only counts. */
async function rawPty(file: FloodFile): Promise<{ ms: number; received: number }> {
  let received = 0;
  const start = performance.now();
  const pty = runtime.spawnPty({
    argv: ["cat", file.path],
    env: { TERM: "xterm-256color", ...runtime.env() },
    ...SIZE,
    onData: (bytes) => received += bytes.length,
  });
  try {
    await within(pty.exited, TIMEOUT_MS, `raw PTY read of ${file.kind}`);
    return { ms: performance.now() - start, received };
  } finally {
    runtime.kill(-pty.pid, "SIGKILL");
    await pty.close();
  }
}

/** Baseline (c): tmux until END-OF-FLOOD shows in `capture-pane`, polled every 5 ms. */
async function tmuxFlood(file: FloodFile): Promise<number> {
  const start = performance.now();
  const server = new TmuxServer(`cat ${quote(file.path)}; echo ${END}; sleep 60`, SIZE);
  try {
    await pollPane(server, (lines) => lines.includes(END), {
      intervalMs: 5,
      timeoutMs: TIMEOUT_MS,
      what: END,
    });
    return performance.now() - start;
  } finally {
    server.dispose();
  }
}

/** Baseline (d): the C floor, `script -qc "cat FILE" /dev/null > /dev/null`. */
function scriptFlood(file: FloodFile): number {
  const start = performance.now();
  const result = spawnSync("script", ["-qc", `cat ${quote(file.path)}`, "/dev/null"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (result.status !== 0) {
    throw new Error(`Cannot run script(1): ${result.error ?? result.status}`);
  }
  return performance.now() - start;
}

/** Every figure of one flood file: ours, the raw PTY and script(1) alternated `rounds` times, then the rest. */
async function measure(file: FloodFile, section: string, rounds: number) {
  const runs = [];
  for (let round = 1; round <= rounds; round++) {
    progress(`${section}, round ${round} of ${rounds}: termbridge Terminal, raw PTY, script(1)`);
    const ours = await floodTerminal(file);
    const raw = await rawPty(file);
    const scriptMs = scriptFlood(file);
    runs.push({ ours, raw, scriptMs });
  }
  progress(`${section}: tmux`);
  const tmuxMs = tmuxAvailable() ? await tmuxFlood(file) : NaN;
  progress(`${section}: pure emulator, then logs without a PTY`);
  const parseMs = parseOnly(file);
  const logsMs = logsOnly(file);
  progress(`${section}: a Terminal's work per chunk, by chunk size`);
  const chunks = CHUNK_KIB.map((kib) => ({ kib, ...chunkCost(file, kib * 1024, SIZE) }));
  const rate = (ms: number) => mbPerSecond(file.bytes, ms);
  return {
    runs,
    chunks,
    rates: {
      ours: spread(runs.map((run) => rate(run.ours.ms))),
      raw: spread(runs.map((run) => rate(run.raw.ms))),
      script: spread(runs.map((run) => rate(run.scriptMs))),
      /** Ours over script(1)'s rate, round by round (the machine's speed drifts between rounds). */
      ofScript: spread(runs.map((run) => run.scriptMs / run.ours.ms)),
      tmux: rate(tmuxMs),
      parse: rate(parseMs),
      logs: rate(logsMs),
    },
  };
}

/** The median of a measure over the rounds, and its range. */
interface Spread {
  median: number;
  low: number;
  high: number;
}

function spread(values: number[]): Spread {
  return { median: median(values), low: Math.min(...values), high: Math.max(...values) };
}

/** `"84.6"` for one round, `"84.6 (80.1-90.2)"`: the median, then the range. */
function shown({ median, low, high }: Spread, digits = 1): string {
  return low === high
    ? fixed(median, digits)
    : `${fixed(median, digits)} (${fixed(low, digits)}-${fixed(high, digits)})`;
}

/** Measures one flood file, ours and its PTY baselines `rounds` times each, and returns its rows. */
export async function throughputSection(file: FloodFile, rounds = 1): Promise<Row[]> {
  const section = `throughput ${file.kind}`;
  const row = (measure: string, value: string, baseline = "-", verdictText = "-"): Row => ({
    section,
    measure,
    value,
    baseline,
    verdict: verdictText,
  });
  const { runs, chunks, rates } = await measure(file, section, rounds);
  const expected = wireBytes(file) + END_BYTES;
  const received = runs.map((run) => run.ours.received);
  const exact = received.every((bytes) => bytes === expected);
  const lastLines = runs.map((run) => run.ours.lastLine);
  const lastIsEnd = lastLines.every((line) => line === END);
  const rawExact = runs.every((run) => run.raw.received === wireBytes(file));
  const tmuxGoal = file.kind === "plain" ? 1 : 1.5;
  const ours = rates.ours.median;
  const ofOurs = (rate: number) => `ours = ${ratio(ours, rate)} of it`;
  // Memory: the round that grew most over its own RSS before the flood.
  const worst = (grown: (run: typeof runs[number]) => number) =>
    runs.reduce((most, run) => grown(run) > grown(most) ? run : most);
  const peakRun = worst((run) => run.ours.peak.sampled - run.ours.rssBefore);
  const kernelRun = worst((run) => run.ours.peak.kernel - run.ours.rssBefore);
  const afterRun = worst((run) => run.ours.rssAfter - run.ours.rssBefore);
  const before = (run: typeof runs[number]) => `before ${mb(run.ours.rssBefore)}`;
  const ofRounds = rounds === 1 ? "" : `, the worst of ${rounds} rounds`;
  return [
    row(
      "input (MB = 10^6 bytes)",
      `${mb(file.bytes)} MB, ${file.newlines} lines`,
      "-",
      `${fixed(file.escapeShare * 100, 0)}% escape bytes`,
    ),
    row(
      rounds === 1
        ? "ours MB/s vs pure emulator"
        : `ours MB/s (median of ${rounds}, range) vs pure emulator`,
      shown(rates.ours),
      `emulator ${fixed(rates.parse)}`,
      verdict(ratio(ours, rates.parse), ours >= 0.8 * rates.parse, ">= 0.80x"),
    ),
    row(
      "ours MB/s vs tmux",
      fixed(ours),
      `tmux ${fixed(rates.tmux)}`,
      verdict(ratio(ours, rates.tmux), ours >= tmuxGoal * rates.tmux, `>= ${tmuxGoal}x`),
    ),
    row(
      "raw PTY read MB/s (onData only counts)",
      shown(rates.raw),
      "-",
      `${ofOurs(rates.raw.median)}; bytes ${rawExact ? "exact" : "DIFFERENT"}`,
    ),
    row(
      "script(1) C floor MB/s",
      shown(rates.script),
      "-",
      verdict(
        rounds === 1
          ? ofOurs(rates.script.median)
          : `ours = ${shown(rates.ofScript, 2)}x of it, round by round`,
        rates.ofScript.median >= 0.85,
        ">= 0.85x (issue 18)",
      ),
    ),
    row(
      "logs + text stream, no PTY, MB/s",
      fixed(rates.logs),
      "-",
      "diagnosis: per-chunk work besides parsing",
    ),
    ...chunks.map(({ kib, msPerMb, skipped }) =>
      row(
        `a Terminal's work per chunk, ${kib} KiB chunks, no PTY`,
        `${fixed(msPerMb)} ms/MB`,
        "-",
        `CPU; ${Math.round(skipped * 100)}% of the bytes skipped by the emulator`,
      )
    ),
    row(
      rounds === 1 ? "ours bytes received" : `ours bytes received (every round)`,
      exact ? String(expected) : received.join(", "),
      `expected ${expected}`,
      verdict(exact ? "exact" : "LOST", exact, "nothing lost"),
    ),
    row(
      rounds === 1 ? "ours last visible line" : "ours last visible line (every round)",
      lastIsEnd ? END : lastLines.join(", "),
      END,
      verdict(lastIsEnd ? "same" : "DIFFERENT", lastIsEnd, "END-OF-FLOOD"),
    ),
    row(
      `ours peak RSS MB (sampled every 50 ms, ${peakRun.ours.peak.samples} samples${ofRounds})`,
      mb(peakRun.ours.peak.sampled),
      before(peakRun),
      mbDelta(peakRun.ours.peak.sampled - peakRun.ours.rssBefore),
    ),
    ...(Number.isNaN(kernelRun.ours.peak.kernel) ? [] : [
      row(
        `ours peak RSS MB (kernel VmHWM${ofRounds})`,
        mb(kernelRun.ours.peak.kernel),
        before(kernelRun),
        mbDelta(kernelRun.ours.peak.kernel - kernelRun.ours.rssBefore),
      ),
    ]),
    row(
      `ours RSS after dispose MB${ofRounds}`,
      mb(afterRun.ours.rssAfter),
      before(afterRun),
      mbDelta(afterRun.ours.rssAfter - afterRun.ours.rssBefore),
    ),
  ];
}
