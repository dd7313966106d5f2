/**
 * Section 3: what idle and full sessions cost in our RSS, and whether
 * hundreds of shells stay responsive.
 * @module
 */

import type { Terminal } from "../lib/terminal/terminal.ts";
import { disposeAll, openBash, waitForLine, waitForPrompt } from "./_bash.ts";
import { fixed, mb, mbDelta, progress, type Row, timed, verdict } from "./_report.ts";
import { canCollect, settledRss } from "./_rss.ts";

const SECTION = "memory";
const BATCH = 50;
const MB = 1e6;

/** Sizes of the section. */
export interface SessionSizes {
  /** Idle sessions opened after the first one, averaged. */
  idle: number;
  /** Sessions that print `seq 1 2000`, averaged. */
  full: number;
  /** Sessions of the scale test. */
  many: number;
}

/** Opens `count` shells, `BATCH` at a time, each waited for until its prompt shows. */
async function openShells(count: number, into: Terminal[]): Promise<void> {
  for (let opened = 0; opened < count; opened += BATCH) {
    const batch = Math.min(BATCH, count - opened);
    const results = await Promise.allSettled(
      Array.from({ length: batch }, () => openBash(60_000)),
    );
    for (const result of results) if (result.status === "fulfilled") into.push(result.value);
    const failed = results.find((result) => result.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
}

/** Fills the scrollback: `seq 1 2000` in each terminal, waited for until the next prompt. */
async function fillScrollback(terminals: Terminal[]): Promise<number> {
  await Promise.all(terminals.map(async (terminal) => {
    terminal.type("seq 1 2000\r");
    await waitForLine(terminal, "2000");
    await waitForPrompt(terminal);
  }));
  return Math.min(...terminals.map((terminal) => terminal.lines({ scope: "all" }).length));
}

/** Types `echo ok<i>` in each terminal; returns how many echoed within the timeout. */
async function countResponsive(terminals: Terminal[]): Promise<number> {
  const results = await Promise.allSettled(terminals.map((terminal, i) => {
    terminal.type(`echo ok${i}\r`);
    return waitForLine(terminal, `ok${i}`, 30_000);
  }));
  return results.filter((result) => result.status === "fulfilled").length;
}

/** Idle and full-scrollback sessions: the RSS each costs. */
async function perSessionCosts(sizes: SessionSizes): Promise<Row[]> {
  const open: Terminal[] = [];
  try {
    const base = await settledRss();
    progress(`${SECTION}: 1 + ${sizes.idle} idle shells`);
    await openShells(1, open);
    const afterFirst = await settledRss();
    await openShells(sizes.idle, open);
    const afterIdle = await settledRss();
    progress(`${SECTION}: ${sizes.full} shells printing seq 1 2000`);
    const full: Terminal[] = [];
    await openShells(sizes.full, full);
    open.push(...full);
    const kept = await fillScrollback(full);
    const afterFull = await settledRss();

    const idleCost = (afterIdle - afterFirst) / sizes.idle;
    const fullCost = (afterFull - afterIdle) / sizes.full;
    const gcNote = canCollect ? "after gc" : "no gc: lowest of 4 samples";
    return [
      row("baseline RSS MB", mb(base), "-", gcNote),
      row(
        "RSS with 1 idle bash MB",
        mb(afterFirst),
        `before ${mb(base)}`,
        mbDelta(afterFirst - base),
      ),
      row(
        `RSS per extra idle bash MB (avg of ${sizes.idle})`,
        fixed(idleCost / MB, 2),
        `${mb(afterFirst)} -> ${mb(afterIdle)}`,
        verdict(`${fixed(idleCost / MB, 2)} MB`, idleCost <= MB, "<= 1 MB"),
      ),
      row(
        `RSS per bash after seq 1 2000 MB (avg of ${sizes.full}, ${kept} lines kept)`,
        fixed(fullCost / MB, 2),
        `${mb(afterIdle)} -> ${mb(afterFull)}`,
        verdict(`${fixed(fullCost / MB, 2)} MB`, fullCost <= 10 * MB, "<= 10 MB"),
      ),
    ];
  } finally {
    await disposeAll(open);
  }
}

/** Hundreds of idle shells: time to open, RSS, responsiveness, time to dispose. */
async function manySessions(count: number): Promise<Row[]> {
  const open: Terminal[] = [];
  try {
    const base = await settledRss();
    progress(`${SECTION}: opening ${count} shells`);
    const opening = await timed(() => openShells(count, open));
    const loaded = await settledRss();
    progress(`${SECTION}: echo in each of ${count} shells`);
    const answering = await timed(() => countResponsive(open));
    progress(`${SECTION}: disposing ${count} shells`);
    const disposing = await timed(() => disposeAll(open.splice(0)));
    const after = await settledRss();
    const responsive = answering.result;
    return [
      row(
        `open ${count} idle bash, ms (batches of ${BATCH})`,
        fixed(opening.ms, 0),
        "-",
        `${fixed(opening.ms / count, 1)} ms each`,
      ),
      row(
        `RSS with ${count} bash MB`,
        mb(loaded),
        `before ${mb(base)}`,
        `+${fixed((loaded - base) / count / MB, 2)} MB each`,
      ),
      row(
        `responsive of ${count} (echo ok<i>)`,
        String(responsive),
        `${fixed(answering.ms, 0)} ms for all`,
        verdict(`${responsive}/${count}`, responsive === count, "all"),
      ),
      row(`dispose ${count} bash, ms`, fixed(disposing.ms, 0), "-", `RSS after ${mb(after)} MB`),
    ];
  } finally {
    await disposeAll(open);
  }
}

function row(measure: string, value: string, baseline: string, verdictText: string): Row {
  return { section: SECTION, measure, value, baseline, verdict: verdictText };
}

/** Runs the section. */
export async function sessionsSection(sizes: SessionSizes): Promise<Row[]> {
  return [...await perSessionCosts(sizes), ...await manySessions(sizes.many)];
}
