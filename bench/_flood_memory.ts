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

/** Floods a Terminal of the termbridge checkout at `root` with `file` (`cat FILE; echo END`). */
export async function floodSample(file: FloodFile, root: string): Promise<FloodSample> {
  const module = await import(join(root, "lib", "terminal", "terminal.ts"));
  const { Terminal, TERMINAL_DEFAULTS } = module;
  const rssBefore = await settledRss();
  const watch = watchPeak(50);
  const start = performance.now();
  const terminal = Terminal.spawn({
    argv: ["sh", "-c", `cat '${file.path}'; echo ${END}`],
    cols: 120,
    rows: 40,
  });
  try {
    await terminal.wait();
    const ms = performance.now() - start;
    const peak = watch.stop();
    const top = Number.isNaN(peak.kernel) ? peak.sampled : peak.kernel;
    return {
      peakDelta: top - rssBefore,
      ceilings: TERMINAL_DEFAULTS.outputLimit + TERMINAL_DEFAULTS.rawLimit,
      mbPerSecond: mbPerSecond(file.bytes, ms),
      received: terminal.rawLog.totalBytes,
      lastLine: terminal.lines({ scope: "visible" }).at(-1)?.trimEnd() ?? "",
    };
  } finally {
    watch.stop();
    await terminal.dispose();
  }
}

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
): Row[] {
  const section = `flood memory ${file.kind}`;
  const over = (samples: FloodSample[]) => samples.map((s) => (s.peakDelta - s.ceilings) / 1e6);
  const rates = (samples: FloodSample[]) => samples.map((s) => s.mbPerSecond);
  const oursOver = over(ours);
  const worst = Math.max(...oursOver);
  const ceilings = fixed((ours[0]?.ceilings ?? NaN) / 1e6);
  const withBaseline = baseline.length > 0;
  const expected = file.bytes + file.newlines + END.length + 2;
  const exact = [...ours, ...baseline].every((s) => s.received === expected && s.lastLine === END);
  const rows: Row[] = [
    {
      section,
      measure: `peak RSS over the log ceilings (${ceilings} MB), MB, ${ours.length} runs`,
      value: range(oursOver),
      baseline: withBaseline ? `${baselineLabel} ${range(over(baseline))}` : "-",
      verdict: verdict(`worst +${fixed(worst)} MB`, worst <= GOAL_OVER_CEILINGS / 1e6, "<= +40 MB"),
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
      baseline: `expected ${expected} bytes`,
      verdict: verdict(exact ? "exact" : "LOST", exact, "nothing lost"),
    },
  ];
  return rows;
}
