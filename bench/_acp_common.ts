/**
 * What both sections of the ACP benchmark share: the session, the terminal
 * size, the environment of the baseline PTYs, and a row maker.
 * @module
 */

import { runtime } from "../lib/runtime/mod.ts";
import type { Row } from "./_report.ts";

/** The session every terminal of the benchmark belongs to (serve takes any string). */
export const SESSION = "bench";

/** serve's terminal size (the Terminal defaults), so that the baselines' PTYs match it. */
export const SIZE = { cols: 120, rows: 40 };

/** The environment of the baseline PTYs: ours, with `TERM` as a Terminal sets it. */
export function ptyEnv(): Record<string, string> {
  return { TERM: "xterm-256color", ...runtime.env() };
}

/** A function that makes rows of `section`; baseline and verdict default to `"-"`. */
export function rowMaker(section: string) {
  return (measure: string, value: string, baseline = "-", verdict = "-"): Row => ({
    section,
    measure,
    value,
    baseline,
    verdict,
  });
}
