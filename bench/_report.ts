/**
 * Rows of the benchmark table, their formatting, and the small statistics and
 * timing helpers every section uses.
 * @module
 */

/** One printed figure next to its baseline. */
import process from "node:process";

export interface Row {
  /** Which section measured it: `"throughput plain"`, `"round trip"`... */
  section: string;
  /** What was measured, with its unit. */
  measure: string;
  /** Our figure. */
  value: string;
  /** The figure it is compared with, named (`"tmux 180.2"`), or `"-"`. */
  baseline: string;
  /** The ratio to the baseline and the goal it is held to, or `"-"`. */
  verdict: string;
}

const HEADER: Row = {
  section: "section",
  measure: "measure",
  value: "value",
  baseline: "baseline",
  verdict: "ratio/goal",
};

const COLUMNS = ["section", "measure", "value", "baseline", "verdict"] as const;

/** Formats rows as a table with a header, columns separated by `" | "`. */
export function formatTable(rows: Row[]): string {
  const all = [HEADER, ...rows];
  const widths = COLUMNS.map((key) => Math.max(...all.map((row) => row[key].length)));
  const line = (row: Row) =>
    COLUMNS.map((key, i) => row[key].padEnd(widths[i])).join(" | ").trimEnd();
  const rule = widths.map((width) => "-".repeat(width)).join("-|-");
  return [line(HEADER), rule, ...rows.map(line)].join("\n");
}

/** Formats rows as a Markdown table (for RESULTS.md). */
export function formatMarkdown(rows: Row[]): string {
  const line = (row: Row) =>
    `| ${COLUMNS.map((key) => row[key].replaceAll("|", "\\|")).join(" | ")} |`;
  return [line(HEADER), `|${COLUMNS.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

/** The `p`-th percentile (0..100) of `values`, by nearest rank; NaN when empty. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

/** The median of `values`. */
export function median(values: number[]): number {
  return percentile(values, 50);
}

/** `n` with `digits` decimals. */
export function fixed(n: number, digits = 1): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "n/a";
}

/** Bytes as megabytes (10^6 bytes), one decimal. */
export function mb(bytes: number): string {
  return fixed(bytes / 1e6);
}

/** A difference of bytes as signed megabytes: `"+3.2 MB"`, `"-1.0 MB"`. */
export function mbDelta(bytes: number): string {
  return `${bytes >= 0 ? "+" : "-"}${mb(Math.abs(bytes))} MB`;
}

/** Megabytes per second for `bytes` moved in `ms` milliseconds. */
export function mbPerSecond(bytes: number, ms: number): number {
  return bytes / 1e6 / (ms / 1000);
}

/** `value / baseline` as `"0.83x"`. */
export function ratio(value: number, baseline: number): string {
  return `${fixed(value / baseline, 2)}x`;
}

/** A verdict: the text, then `ok` or `MISSED` against the goal. */
export function verdict(text: string, met: boolean, goal: string): string {
  return `${text} (goal ${goal}: ${met ? "ok" : "MISSED"})`;
}

/** Milliseconds taken by `body`, with its result. */
export async function timed<T>(body: () => Promise<T> | T): Promise<{ ms: number; result: T }> {
  const start = performance.now();
  const result = await body();
  return { ms: performance.now() - start, result };
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Prints a progress line on stderr, so that stdout carries only the table. */
export function progress(message: string): void {
  console.error(`[bench] ${message}`);
}

/** A whole number from the environment variable `name`, or `fallback`. */
export function envNumber(env: Record<string, string>, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`Cannot read ${name}: expected a positive number, got "${text}"`);
  }
  return value;
}

/**
 * A section that failed, as one row (so the other sections still report);
 * the error goes to stderr and the exit code becomes 1.
 */
export function failedRow(section: string, error: unknown): Row[] {
  console.error(error);
  process.exitCode = 1;
  const message = error instanceof Error ? error.message : String(error);
  return [{
    section,
    measure: "FAILED",
    value: message.split("\n")[0],
    baseline: "-",
    verdict: "-",
  }];
}
