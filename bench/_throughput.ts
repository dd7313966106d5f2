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
import { fixed, mb, mbDelta, mbPerSecond, progress, ratio, type Row, verdict } from "./_report.ts";
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

/** Every figure of one flood file: ours first, then the baselines. */
async function measure(file: FloodFile, section: string) {
  progress(`${section}: termbridge Terminal`);
  const ours = await floodTerminal(file);
  progress(`${section}: raw PTY`);
  const raw = await rawPty(file);
  progress(`${section}: tmux`);
  const tmuxMs = tmuxAvailable() ? await tmuxFlood(file) : NaN;
  progress(`${section}: script(1)`);
  const scriptMs = scriptFlood(file);
  progress(`${section}: pure emulator, then logs without a PTY`);
  const parseMs = parseOnly(file);
  const logsMs = logsOnly(file);
  progress(`${section}: a Terminal's work per chunk, by chunk size`);
  const chunks = CHUNK_KIB.map((kib) => ({ kib, ...chunkCost(file, kib * 1024, SIZE) }));
  const rate = (ms: number) => mbPerSecond(file.bytes, ms);
  return {
    ours,
    raw,
    chunks,
    rates: {
      ours: rate(ours.ms),
      raw: rate(raw.ms),
      tmux: rate(tmuxMs),
      script: rate(scriptMs),
      parse: rate(parseMs),
      logs: rate(logsMs),
    },
  };
}

/** Measures one flood file and returns its rows. */
export async function throughputSection(file: FloodFile): Promise<Row[]> {
  const section = `throughput ${file.kind}`;
  const row = (measure: string, value: string, baseline = "-", verdictText = "-"): Row => ({
    section,
    measure,
    value,
    baseline,
    verdict: verdictText,
  });
  const { ours, raw, chunks, rates } = await measure(file, section);
  const expected = wireBytes(file) + END_BYTES;
  const exact = ours.received === expected;
  const tmuxGoal = file.kind === "plain" ? 1 : 1.5;
  const before = `before ${mb(ours.rssBefore)}`;
  const ofOurs = (rate: number) => `ours = ${ratio(rates.ours, rate)} of it`;
  return [
    row(
      "input (MB = 10^6 bytes)",
      `${mb(file.bytes)} MB, ${file.newlines} lines`,
      "-",
      `${fixed(file.escapeShare * 100, 0)}% escape bytes`,
    ),
    row(
      "ours MB/s vs pure emulator",
      fixed(rates.ours),
      `emulator ${fixed(rates.parse)}`,
      verdict(ratio(rates.ours, rates.parse), rates.ours >= 0.8 * rates.parse, ">= 0.80x"),
    ),
    row(
      "ours MB/s vs tmux",
      fixed(rates.ours),
      `tmux ${fixed(rates.tmux)}`,
      verdict(
        ratio(rates.ours, rates.tmux),
        rates.ours >= tmuxGoal * rates.tmux,
        `>= ${tmuxGoal}x`,
      ),
    ),
    row(
      "raw PTY read MB/s (onData only counts)",
      fixed(rates.raw),
      "-",
      `${ofOurs(rates.raw)}; bytes ${raw.received === wireBytes(file) ? "exact" : "DIFFERENT"}`,
    ),
    row("script(1) C floor MB/s", fixed(rates.script), "-", ofOurs(rates.script)),
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
      "ours bytes received",
      String(ours.received),
      `expected ${expected}`,
      verdict(exact ? "exact" : "LOST", exact, "nothing lost"),
    ),
    row(
      "ours last visible line",
      ours.lastLine,
      END,
      verdict(ours.lastLine === END ? "same" : "DIFFERENT", ours.lastLine === END, "END-OF-FLOOD"),
    ),
    row(
      `ours peak RSS MB (sampled every 50 ms, ${ours.peak.samples} samples)`,
      mb(ours.peak.sampled),
      before,
      mbDelta(ours.peak.sampled - ours.rssBefore),
    ),
    ...(Number.isNaN(ours.peak.kernel) ? [] : [
      row(
        "ours peak RSS MB (kernel VmHWM)",
        mb(ours.peak.kernel),
        before,
        mbDelta(ours.peak.kernel - ours.rssBefore),
      ),
    ]),
    row(
      "ours RSS after dispose MB",
      mb(ours.rssAfter),
      before,
      mbDelta(ours.rssAfter - ours.rssBefore),
    ),
  ];
}
