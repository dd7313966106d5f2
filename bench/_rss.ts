/**
 * Measuring this process's resident memory: settled readings and peaks.
 * @module
 */

import { readFileSync, writeFileSync } from "node:fs";
import { runtime } from "../lib/runtime/mod.ts";
import { sleep } from "./_report.ts";

/** The collector, when the runtime exposes one (Deno with `--v8-flags=--expose-gc`). */
const gc = (globalThis as { gc?: () => void }).gc;

/** Whether readings are taken after a forced garbage collection. */
export const canCollect = gc !== undefined;

/**
 * RSS once things have settled: collects garbage when possible, waits, and
 * returns the lowest of a few samples (without a collector, garbage that is
 * about to be freed makes single samples noisy).
 */
export async function settledRss(): Promise<number> {
  let lowest = Infinity;
  for (let i = 0; i < 4; i++) {
    gc?.();
    await sleep(75);
    lowest = Math.min(lowest, runtime.memoryRss());
  }
  return lowest;
}

/** The kernel's high-water mark of our RSS (`VmHWM`), in bytes, or NaN. */
function highWaterMark(): number {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    const kb = status.match(/^VmHWM:\s+(\d+) kB/m)?.[1];
    return kb === undefined ? NaN : Number(kb) * 1024;
  } catch {
    return NaN; // Not Linux: only the sampled peak is reported.
  }
}

/** Resets `VmHWM` to the current RSS (Linux >= 4.0); false when not possible. */
function resetHighWaterMark(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false; // No permission or not Linux: VmHWM stays the lifetime peak.
  }
}

/** Peaks of RSS seen while a measurement ran. */
export interface Peak {
  /** Highest of `runtime.memoryRss()` sampled every `intervalMs`. */
  sampled: number;
  /** How many samples were taken (few means the event loop was starved). */
  samples: number;
  /** The kernel's exact peak over the same span, or NaN when unavailable. */
  kernel: number;
}

/**
 * Samples RSS every `intervalMs` from now until `stop()` is called, and asks
 * the kernel for its exact peak over the same span.
 */
export function watchPeak(intervalMs = 50): { stop: () => Peak } {
  const kernelReset = resetHighWaterMark();
  let sampled = runtime.memoryRss();
  let samples = 1;
  const timer = setInterval(() => {
    sampled = Math.max(sampled, runtime.memoryRss());
    samples++;
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sampled = Math.max(sampled, runtime.memoryRss());
      return { sampled, samples: samples + 1, kernel: kernelReset ? highWaterMark() : NaN };
    },
  };
}
