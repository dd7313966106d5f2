/**
 * The flood-memory section: how much a flooding terminal raises termbridge's
 * peak RSS beyond what its logs may keep (their ceilings), and how fast it
 * swallows the flood, for this tree and, side by side in the same run, for
 * another checkout of termbridge (`BENCH_BASELINE=DIR`, e.g. the commit
 * before a change), each run in a fresh process, alternating.
 * @module
 */

import { join } from "node:path";
import type { FloodFile } from "./_inputs.ts";
import { fixed, mbPerSecond, median, type Row, verdict } from "./_report.ts";
import { settledRss, watchPeak } from "./_rss.ts";

const END = "END-OF-FLOOD";
/** Most RSS a flooding terminal may add beyond its log ceilings (the goal), bytes. */
const GOAL_OVER_CEILINGS = 40e6;

/** One flood in one fresh process. */
export interface FloodSample {
  /** Kernel peak (VmHWM) minus the settled RSS before, bytes; sampled peak if no VmHWM. */
  peakDelta: number;
  /** The terminal's log ceilings (text + raw), bytes. */
  ceilings: number;
  mbPerSecond: number;
  received: number;
  lastLine: string;
}

/**
 * Floods `count` Terminals of the termbridge checkout at `root` at once, each
 * with the whole of `file` (`cat FILE; echo END`); each sample's `peakDelta`
 * is the one peak of them all, and its `ceilings` the ceilings of one
 * terminal. `warm`: a first, short terminal of the same output comes and
 * goes before the RSS before is read.
 */
export async function floodTogether(
  file: FloodFile,
  root: string,
  count: number,
  warm = false,
): Promise<FloodSample[]> {
  const module = await import(join(root, "lib", "terminal", "terminal.ts"));
  const { Terminal, TERMINAL_DEFAULTS } = module;
  if (warm) {
    // What a running termbridge has done before: shown a terminal of the same kind of output,
    // so that the JIT compiled the parser's paths and the poll loop is up.
    const first = Terminal.spawn({
      argv: ["head", "-c", "4000000", file.path],
      cols: 120,
      rows: 40,
    });
    await first.wait();
    await first.dispose();
  }
  const rssBefore = await settledRss();
  const watch = watchPeak(50);
  const start = performance.now();
  const terminals = Array.from({ length: count }, () =>
    Terminal.spawn({
      argv: ["sh", "-c", `cat '${file.path}'; echo ${END}`],
      cols: 120,
      rows: 40,
    }));
  try {
    await Promise.all(terminals.map((terminal) => terminal.wait()));
    const ms = performance.now() - start;
    const peak = watch.stop();
    const top = Number.isNaN(peak.kernel) ? peak.sampled : peak.kernel;
    return terminals.map((terminal) => ({
      peakDelta: top - rssBefore,
      ceilings: TERMINAL_DEFAULTS.outputLimit + TERMINAL_DEFAULTS.rawLimit,
      mbPerSecond: mbPerSecond(file.bytes * count, ms),
      received: terminal.rawLog.totalBytes,
      lastLine: terminal.lines({ scope: "visible" }).at(-1)?.trimEnd() ?? "",
    }));
  } finally {
    watch.stop();
    await Promise.all(terminals.map((terminal) => terminal.dispose()));
  }
}

/**
 * The row of `count` floods at once, in one fresh process per variant: the
 * peak over the RSS before, less `count` ceilings, per terminal.
 */
export function floodTogetherRow(
  file: FloodFile,
  ours: FloodSample[],
  baseline: FloodSample[],
  baselineLabel: string,
): Row {
  const perTerminal = (samples: FloodSample[]) =>
    (samples[0].peakDelta - samples.length * samples[0].ceilings) / samples.length / 1e6;
  const exact = [...ours, ...baseline].every((s) =>
    s.received === expected(file) && s.lastLine === END
  );
  const value = perTerminal(ours);
  return {
    section: `flood memory ${file.kind}`,
    measure:
      `${ours.length} floods at once: peak RSS over the RSS before and their ceilings, per terminal, MB`,
    value: `${fixed(value)}${exact ? "" : " (BYTES LOST)"}`,
    baseline: baseline.length > 0 ? `${baselineLabel} ${fixed(perTerminal(baseline))}` : "-",
    verdict: verdict(
      `+${fixed(value)} MB each`,
      value <= GOAL_OVER_CEILINGS / 1e6 && exact,
      "<= +40 MB",
    ),
  };
}

/** Bytes a flood of `file` puts through the terminal: LF becomes CR LF, then the END line. */
const expected = (file: FloodFile) => file.bytes + file.newlines + END.length + 2;

/** `"lo-hi"` of `values`, one decimal. */
function range(values: number[]): string {
  return values.length === 0
    ? "n/a"
    : `${fixed(Math.min(...values))}-${fixed(Math.max(...values))}`;
}

/** The rows of one flood file: ours (and the baseline's, when measured) over `n` runs each. */
export function floodMemoryRows(
  file: FloodFile,
  ours: FloodSample[],
  baseline: FloodSample[],
  baselineLabel: string,
  warm: { ours: FloodSample[]; baseline: FloodSample[] },
): Row[] {
  const section = `flood memory ${file.kind}`;
  const over = (samples: FloodSample[]) => samples.map((s) => (s.peakDelta - s.ceilings) / 1e6);
  const rates = (samples: FloodSample[]) => samples.map((s) => s.mbPerSecond);
  const oursOver = over(ours);
  const worst = Math.max(...oursOver);
  const ceilings = fixed((ours[0]?.ceilings ?? NaN) / 1e6);
  const withBaseline = baseline.length > 0;
  const exact = [...ours, ...baseline, ...warm.ours, ...warm.baseline].every((s) =>
    s.received === expected(file) && s.lastLine === END
  );
  const warmOver = over(warm.ours);
  const worstWarm = Math.max(...warmOver);
  const rows: Row[] = [
    {
      section,
      measure:
        `peak RSS over the log ceilings (${ceilings} MB), MB, ${ours.length} runs, fresh process`,
      value: range(oursOver),
      baseline: withBaseline ? `${baselineLabel} ${range(over(baseline))}` : "-",
      verdict: verdict(`worst +${fixed(worst)} MB`, worst <= GOAL_OVER_CEILINGS / 1e6, "<= +40 MB"),
    },
    {
      section,
      measure: `the same after a first 4 MB terminal came and went, ${warm.ours.length} runs`,
      value: range(warmOver),
      baseline: warm.baseline.length > 0 ? `${baselineLabel} ${range(over(warm.baseline))}` : "-",
      verdict: verdict(
        `worst +${fixed(worstWarm)} MB`,
        worstWarm <= GOAL_OVER_CEILINGS / 1e6,
        "<= +40 MB",
      ),
    },
    {
      section,
      measure: "peak RSS over the RSS before, MB (kernel VmHWM)",
      value: range(ours.map((s) => s.peakDelta / 1e6)),
      baseline: withBaseline
        ? `${baselineLabel} ${range(baseline.map((s) => s.peakDelta / 1e6))}`
        : "-",
      verdict: "-",
    },
    {
      section,
      measure: `MB/s, ${ours.length} runs`,
      value: range(rates(ours)),
      baseline: withBaseline ? `${baselineLabel} ${range(rates(baseline))}` : "-",
      verdict: withBaseline
        ? verdict(
          `medians ${fixed(median(rates(ours)) / median(rates(baseline)), 2)}x`,
          median(rates(ours)) >= median(rates(baseline)),
          ">= 1.00x",
        )
        : "-",
    },
    {
      section,
      measure: "every byte received, END-OF-FLOOD last",
      value: exact ? "yes" : "NO",
      baseline: `expected ${expected(file)} bytes`,
      verdict: verdict(exact ? "exact" : "LOST", exact, "nothing lost"),
    },
  ];
  return rows;
}
