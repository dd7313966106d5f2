/**
 * Finding every process group of a terminal's session. An interactive shell
 * puts each job in a group of its own, so signalling the shell's group alone
 * would leave background jobs behind. Linux only (reads /proc).
 * @module
 */

import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { basename } from "node:path";

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

/** The fields of `/proc/PID/stat` after the command name (which may hold spaces and parentheses). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null; // The process is gone (or there is no /proc).
  }
}

/**
 * The foreground process group of the terminal whose session leader is
 * `pid` (`tpgid` in the leader's `/proc/PID/stat`, what tcgetpgrp on the PTY
 * says), or null when the leader is gone.
 */
export function foregroundGroup(pid: number): number | null {
  const fields = statFields(pid);
  const tpgid = Number(fields?.[5]);
  return tpgid > 0 ? tpgid : null;
}

/** The program a process runs: its executable's file name, else its `comm`; null when gone. */
function programOf(pid: number): string | null {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`)).replace(/ \(deleted\)$/, "");
  } catch {
    // Not ours to read, or a kernel thread: the command name is the next best.
  }
  try {
    return readFileSync(`/proc/${pid}/comm`, "latin1").trimEnd();
  } catch {
    return null; // Gone.
  }
}

/** Who reads what is typed into a terminal now: its foreground group and that group's programs. */
export interface ForegroundReader {
  /** The foreground process group's id (its leader's pid). */
  group: number;
  /**
   * The programs of the group, leader first (file names, e.g. `bash`,
   * `python3.11`); several only when the leader has exited and others of its
   * group run on. Empty when none could be read.
   */
  programs: string[];
}

/**
 * The terminal's foreground reader: the program of the foreground process
 * group's leader (`/proc/PGID/exe`), or when the leader is gone the programs
 * of the group's members. Null when the terminal's leader `pid` is gone.
 * Linux only (reads /proc).
 */
export function foregroundReader(pid: number): ForegroundReader | null {
  const group = foregroundGroup(pid);
  if (group === null) return null;
  const leader = programOf(group);
  if (leader !== null) return { group, programs: [leader] };
  const programs: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    // No /proc: nothing is known of the group.
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(statFields(Number(entry))?.[2]) !== group) continue;
    const program = programOf(Number(entry));
    if (program !== null) programs.push(program);
  }
  return { group, programs };
}

/**
 * What the foreground process group of the terminal whose leader is `pid`
 * is doing, as text to compare between two looks: each member's pid, state,
 * page faults and CPU ticks (its own and its reaped children's). `busy` when
 * a member is running or waiting on a disk (state R or D). A group whose
 * look is the same twice and not busy sits idle (waiting for input); a
 * program still starting (a pyenv shim running pyenv's scripts before it
 * execs python, under the same pid) looks different each time. Null when the
 * leader is gone. Linux only (reads /proc).
 */
export function foregroundActivity(pid: number): { busy: boolean; look: string } | null {
  const group = foregroundGroup(pid);
  if (group === null) return null;
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return { busy: false, look: "" }; // No /proc: nothing is known of the group.
  }
  let busy = false;
  const members: string[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (fields === null || Number(fields[2]) !== group) continue;
    if (fields[0] === "R" || fields[0] === "D") busy = true;
    // state, minflt, cminflt, utime, stime, cutime, cstime
    members.push([entry, fields[0], fields[7], fields[8], ...fields.slice(11, 15)].join(":"));
  }
  return { busy, look: members.join(" ") };
}
