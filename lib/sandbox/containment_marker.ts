/**
 * Containment where no cgroup can be written (a normal user without a
 * delegated cgroup): every terminal's program starts with an environment
 * variable naming this termbridge process and the terminal
 * (`TERMBRIDGE_OWNER_<pid>_<start time>=<terminal>`), which its children
 * inherit through `setsid`, `nohup`, `disown` and double forks. Releasing the
 * terminal kills every process whose `/proc/PID/environ` carries it, until
 * none is left; the watchdog does the same for all of termbridge's terminals
 * when termbridge ends, `kill -9` included. A process that clears its
 * environment (`env -i`) is not found this way.
 * @module
 */

import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

/** This process's marker variable: its pid and start time (so a reused pid never matches). */
export function ownerVariable(): string | null {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return start === undefined ? null : `TERMBRIDGE_OWNER_${process.pid}_${start}`;
  } catch {
    return null;
  }
}

/** Pids (other than this process) whose environment holds an entry starting with `entry`. */
export function markedPids(entry: string): number[] {
  const found: number[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return found;
  }
  const needle = `\0${entry}`;
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: string;
    try {
      environ = readFileSync(`/proc/${name}/environ`, "latin1");
    } catch {
      continue; // Gone, or another user's.
    }
    if (environ.startsWith(entry) || environ.includes(needle)) found.push(Number(name));
  }
  return found;
}

/** SIGKILLs every process marked with `entry`; how many it found. */
export function killMarked(entry: string): number {
  const pids = markedPids(entry);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  return pids.length;
}

/**
 * Kills marked processes round after round (a process may fork between a
 * read of /proc and the kill) until none is left or `ms` have passed.
 */
export async function sweepMarked(entry: string, ms = 2000): Promise<void> {
  for (const started = Date.now(); killMarked(entry) > 0 && Date.now() - started < ms;) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The watchdog's script in marker mode: waits until termbridge ($1) is gone
 * (its standard input, a pipe only termbridge writes, ends), then kills every
 * process whose environment holds the variable $0, round after round until
 * none is left (bounded).
 */
export const MARKER_WATCHDOG = `trap '' HUP INT TERM QUIT PIPE
while read -r _; do :; done
i=0
while [ "$i" -lt 100 ]; do
  pids=$(grep -lsaz "^$0=" /proc/[0-9]*/environ | cut -d/ -f3)
  [ -z "$pids" ] && break
  kill -9 $pids 2>/dev/null
  sleep 0.05; i=$((i + 1))
done`;
