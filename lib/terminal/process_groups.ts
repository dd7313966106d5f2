/**
 * Finding every process group of a terminal's session. An interactive shell
 * puts each job in a group of its own, so signalling the shell's group alone
 * would leave background jobs behind. Linux only (reads /proc).
 * @module
 */

import { readdirSync, readFileSync } from "node:fs";

/**
 * The process groups of the processes whose session id is `sid` (a terminal's
 * leader pid), the leader's own group first.
 */
export function sessionProcessGroups(sid: number): number[] {
  const groups = new Set<number>([sid]);
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [...groups]; // No /proc: only the leader's group is known.
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // The process ended while we looked.
    }
    // Fields after the command name (which may contain spaces and parentheses).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const [pgrp, session] = [Number(fields[2]), Number(fields[3])];
    if (session === sid) groups.add(pgrp);
  }
  return [...groups];
}
