/**
 * The "ten floods" section: one terminal flooding alone, then ten at once in
 * one process (aggregate MB/s beside one terminal's), while an idle bash in
 * the same process answers echo round trips (p50/p99 during the floods,
 * beside the same echoes with nothing flooding).
 * @module
 */

import { Terminal } from "../lib/terminal/terminal.ts";
import { openBash, waitForLine, waitForPrompt } from "./_bash.ts";
import type { FloodFile } from "./_inputs.ts";
import { fixed, mbPerSecond, percentile, progress, type Row, verdict } from "./_report.ts";

const SECTION = "ten floods";
const END = "END-OF-FLOOD";

/** One flood's outcome. */
interface Flood {
  received: number;
  lastLine: string;
}

/** Floods `count` Terminals with `file` at once; resolves with the time and each outcome. */
async function flood(file: FloodFile, count: number): Promise<{ ms: number; floods: Flood[] }> {
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
    return {
      ms,
      floods: terminals.map((terminal) => ({
        received: terminal.rawLog.totalBytes,
        lastLine: terminal.lines({ scope: "visible" }).at(-1)?.trimEnd() ?? "",
      })),
    };
  } finally {
    await Promise.all(terminals.map((terminal) => terminal.dispose()));
  }
}

/** Echo round trips (ms) in `bash` until `done` says stop (at least `least` of them). */
async function echoes(bash: Terminal, done: () => boolean, least: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; latencies.length < least || !done(); i++) {
    const start = performance.now();
    bash.type(`echo E${i}\r`);
    await waitForLine(bash, `E${i}`, 60_000);
    latencies.push(performance.now() - start);
    await waitForPrompt(bash, 60_000);
    if (i % 50 === 49) bash.type("clear\r");
  }
  return latencies;
}

/** Runs the section: `count` floods of `file` at once (default ten), and one alone. */
export async function floodTenSection(file: FloodFile, count = 10): Promise<Row[]> {
  const expected = file.bytes + file.newlines + END.length + 2;
  const bash = await openBash();
  try {
    progress(`${SECTION}: echo round trips, nothing flooding`);
    const quiet = await echoes(bash, () => true, 200);
    progress(`${SECTION}: one ${file.kind} flood of ${fixed(file.bytes / 1e6)} MB`);
    const one = await flood(file, 1);
    progress(`${SECTION}: ${count} at once, echoes meanwhile`);
    let finished = false;
    const floods = flood(file, count).finally(() => finished = true);
    const during = await echoes(bash, () => finished, 20);
    const many = await floods;
    const exact = [...one.floods, ...many.floods].every((f) =>
      f.received === expected && f.lastLine === END
    );
    const alone = mbPerSecond(file.bytes, one.ms);
    const together = mbPerSecond(file.bytes * count, many.ms);
    const lost = exact ? "" : " (BYTES LOST)";
    return [
      {
        section: SECTION,
        measure: `${count} ${file.kind} floods at once: aggregate MB/s${lost}`,
        value: fixed(together),
        baseline: `one alone ${fixed(alone)}`,
        verdict: `${fixed(together / alone, 2)}x one terminal's rate`,
      },
      {
        section: SECTION,
        measure: `echo round trip during the floods, p50 / p99 ms (${during.length} rounds)`,
        value: `${fixed(percentile(during, 50), 3)} / ${fixed(percentile(during, 99), 3)}`,
        baseline: `no flood ${fixed(percentile(quiet, 50), 3)} / ${
          fixed(percentile(quiet, 99), 3)
        }`,
        verdict: verdict(
          "other terminals answer",
          during.length >= 20 && exact,
          "every echo seen, every byte received",
        ),
      },
    ];
  } finally {
    await bash.dispose();
  }
}
