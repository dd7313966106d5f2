/**
 * Making sure no process outlives termbridge. Each terminal's processes go
 * into a cgroup (v2) of their own, which is killed as a whole
 * (`cgroup.kill`) when the terminal is released: `setsid`, `nohup`, double
 * forks and ignored signals cannot leave it. One watchdog per termbridge
 * process, a shell reading a pipe only termbridge holds, kills every such
 * cgroup when termbridge ends in any way, `kill -9` included (the pipe's end
 * of file is the kernel's doing, not termbridge's, and comes even while
 * termbridge's parent has not reaped it); a watchdog that is killed is started
 * again.
 *
 * Where no cgroup can be written (a user without a delegated cgroup, a
 * read-only /sys/fs/cgroup), each terminal's processes are marked with an
 * environment variable instead and found in /proc (containment_marker.ts);
 * `containment().kind` says which, `containment().reason` why not cgroups.
 * @module
 */

import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { basename, join } from "node:path";
import process from "node:process";
import { runtime } from "../runtime/mod.ts";
import { killMarked, MARKER_WATCHDOG, ownerVariable, sweepMarked } from "./containment_marker.ts";
import { abandonedCgroups, enableV2Controllers, sweepAbandonedV1, v1Roots } from "./tree_limits.ts";

/**
 * The watchdog (see {@linkcode startWatchdog}): waits until termbridge is
 * gone, however it ended (its standard input, a pipe only termbridge writes,
 * ends), then kills every cgroup under $0, then every process that left them
 * but still carries termbridge's marker variable $2 (when not empty: see
 * {@linkcode terminalCgroup}), removes the cgroups, and then the cgroup v1
 * directories of its tree limits ($3...: see tree_limits.ts). $1 is
 * termbridge's pid, for {@linkcode watched}.
 */
const WATCHDOG = `trap '' HUP INT TERM QUIT PIPE
while read -r _; do :; done
v=$2
shift 2
echo 1 >"$0/cgroup.kill" 2>/dev/null
for d in "$0"/*/; do [ -f "$d/cgroup.kill" ] && echo 1 >"$d/cgroup.kill"; done
i=0
while [ -n "$v" ] && [ "$i" -lt 100 ]; do
  pids=$(grep -lsaz "^$v=" /proc/[0-9]*/environ | cut -d/ -f3)
  [ -z "$pids" ] && break
  kill -9 $pids 2>/dev/null
  sleep 0.05; i=$((i + 1))
done
i=0
while [ "$i" -lt 200 ]; do
  find "$0" -depth -mindepth 1 -type d -exec rmdir {} + 2>/dev/null
  rmdir "$0" 2>/dev/null && break
  sleep 0.05; i=$((i + 1))
done
for d in "$@"; do [ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null; done`;

/**
 * The write ends of the watchdogs' standard input: never written, never
 * closed. The kernel closes them when termbridge ends, however it ends
 * (`kill -9` included, and before its parent reaps it): that end of file is
 * what a watchdog waits for.
 */
const lifelines: WritableStream<Uint8Array>[] = [];

/** How many times a watchdog that died is started again (a command may kill it). */
const RESTARTS = 1000;

/**
 * Starts the watchdog `argv` (a shell script that reads its standard input
 * until it ends, then cleans up) in a session of its own, its standard
 * input a pipe whose write end only termbridge holds (close-on-exec: no
 * command inherits it). It is termbridge's child, which does not keep
 * termbridge running: when it exits while termbridge runs, it was killed (a
 * command of the same user can), and it is started again, saying so on
 * stderr.
 */
export function startWatchdog(argv: string[], restarts = RESTARTS): void {
  const child = runtime.spawnPiped({ argv, stderr: "pipe", newSession: true, unref: true });
  lifelines.push(child.stdin);
  void child.stdout.cancel().catch(() => {});
  void child.stderr?.cancel().catch(() => {});
  void child.exited.then(() => {
    lifelines.splice(lifelines.indexOf(child.stdin), 1);
    void child.stdin.close().catch(() => {});
    restartWatchdog(argv, restarts);
  });
}

/** Starts a watchdog that died again; if it cannot start now (no processes left), in a second. */
function restartWatchdog(argv: string[], restarts: number): void {
  if (restarts <= 0) return;
  const warn = (message: string) =>
    void runtime.writeStderr(`termbridge: warning: ${message}\n`).catch(() => {});
  try {
    startWatchdog(argv, restarts - 1);
    warn("the watchdog that ends commands with termbridge was killed; started a new one");
  } catch (error) {
    warn(`the watchdog was killed and cannot be started again yet: ${(error as Error).message}`);
    setTimeout(() => restartWatchdog(argv, restarts - 1), 1000);
  }
}

/** The cgroup (or, in marker mode, the marker) of one terminal. */
export interface TerminalCgroup {
  /** The cgroup's directory; in marker mode the marker (`VARIABLE=terminal`). */
  readonly path: string;
  /** Argv prefix that moves the program into the cgroup (or marks it) before it runs. */
  readonly prefix: string[];
  /** Kills every process in the cgroup at once (SIGKILL); true when it could. */
  kill(): boolean;
  /**
   * Removes the cgroup (and any below it) once it is empty, killing what is
   * left first and waiting briefly for the kill to finish.
   */
  remove(): Promise<void>;
}

/** Whether containment is on, and why not when it is off. */
export interface Containment {
  /** A cgroup per terminal, an environment marker per terminal (no cgroup writable), or none. */
  readonly kind: "cgroup" | "marker" | "off";
  /** The directory holding this termbridge's cgroups, or null without cgroups. */
  readonly root: string | null;
  /** Why there are no cgroups (empty when there are). */
  readonly reason: string;
  /** A new cgroup for a terminal, or null when containment is off. */
  create(name: string): TerminalCgroup | null;
}

/** The cgroup2 mount point and this process's cgroup in it, or a reason why not. */
function ownCgroupDir(): string | { reason: string } {
  let mounts: string;
  let membership: string;
  try {
    mounts = readFileSync("/proc/self/mountinfo", "utf8");
    membership = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return { reason: "/proc is not readable" };
  }
  const mount = mounts.split("\n").map((line) => line.split(" ")).find((fields) =>
    fields[fields.indexOf("-") + 1] === "cgroup2"
  );
  const own = membership.split("\n").find((line) => line.startsWith("0::"));
  if (mount === undefined || own === undefined) return { reason: "no cgroup v2 is mounted" };
  return join(mount[4], own.slice(3));
}

const off = (reason: string): Containment => ({
  kind: "off",
  root: null,
  reason,
  create: () => null,
});

function startContainment(): Containment {
  if (process.platform !== "linux") return off("cgroups are Linux only");
  const own = ownCgroupDir();
  if (typeof own !== "string") return startMarker(own.reason);
  const root = join(own, `termbridge-${process.pid}`);
  // This process made it already: a second instance of this module (test runners load a
  // module once per test file) shares the directory and its watchdog. (A directory left by
  // an earlier process with the same pid has no watchdog: the marker is used then.)
  if (existsSync(join(root, "cgroup.kill")) && watched(process.pid, root)) {
    return cgroupContainment(root);
  }
  sweepAbandoned(own);
  sweepAbandonedV1();
  try {
    mkdirSync(root);
  } catch (error) {
    return startMarker(`cannot create a cgroup in ${own}: ${(error as Error).message}`);
  }
  if (!existsSync(join(root, "cgroup.kill"))) {
    rmdirSync(root);
    return startMarker("the kernel has no cgroup.kill (Linux 5.14 or later needed)");
  }
  enableV2Controllers(root);
  const variable = ownerVariable() ?? "";
  try {
    startWatchdog(["/bin/sh", "-c", WATCHDOG, root, String(process.pid), variable, ...v1Roots()]);
  } catch (error) {
    rmdirSync(root);
    return startMarker(`cannot start the watchdog: ${(error as Error).message}`);
  }
  return cgroupContainment(root);
}

/** Whether a watchdog (see WATCHDOG) waits for process `pid`, with cgroups under `root`. */
function watched(pid: number, root: string): boolean {
  const wanted = `/bin/sh\0-c\0${WATCHDOG}\0${root}\0${pid}\0`;
  return readdirSync("/proc").some((name) => {
    if (!/^\d+$/.test(name)) return false;
    try {
      return readFileSync(`/proc/${name}/cmdline`, "latin1").startsWith(wanted);
    } catch {
      return false; // Gone meanwhile.
    }
  });
}

/** Containment by cgroups under `root`, this process's directory (its watchdog started). */
function cgroupContainment(root: string): Containment {
  const variable = ownerVariable();
  let next = 1;
  return {
    kind: "cgroup",
    root,
    reason: "",
    create(name: string) {
      const base = name.replace(/[^A-Za-z0-9_.-]/g, "_");
      for (;;) {
        const path = join(root, `${base}-${next++}`);
        try {
          mkdirSync(path);
          return terminalCgroup(path, variable && `${variable}=${basename(path)}`);
        } catch (error) {
          // Taken by another instance of this module in the same process: the next number.
          if ((error as { code?: string }).code === "EEXIST") continue;
          return null; // The hierarchy went away or is full: run uncontained rather than not at all.
        }
      }
    },
  };
}

/**
 * Marker mode (see containment_marker.ts), with a watchdog of its own:
 * `reason` says why there are no cgroups. Exported for the benchmark; use
 * `containment()`.
 */
export function startMarker(reason: string): Containment {
  const variable = ownerVariable();
  if (variable === null) return off(`${reason}; /proc/self/stat is not readable`);
  try {
    startWatchdog(["/bin/sh", "-c", MARKER_WATCHDOG, variable, String(process.pid)]);
  } catch (error) {
    return off(`${reason}; cannot start the watchdog: ${(error as Error).message}`);
  }
  let next = 1;
  return {
    kind: "marker",
    root: null,
    reason,
    create(name: string) {
      const marker = `${variable}=${name.replace(/[^A-Za-z0-9_.-]/g, "_")}-${next++}`;
      // The NUL ends the entry in /proc/PID/environ: one terminal's marker is no prefix of another's.
      const entry = `${marker}\0`;
      return {
        path: marker,
        prefix: ["/usr/bin/env", marker],
        kill: () => {
          killMarked(entry);
          return true;
        },
        remove: () => sweepMarked(entry),
      };
    },
  };
}

/**
 * The cgroup at `path`. With a `marker` (`VARIABLE=terminal`, as in marker
 * mode), the program also carries it in its environment, so that a process
 * that moved itself out of the cgroup (one that may write the hierarchy: root,
 * or a delegated cgroup) is still found at release and by the watchdog,
 * unless it cleared its environment too.
 */
function terminalCgroup(path: string, marker?: string | null): TerminalCgroup {
  const kill = () => {
    try {
      writeFileSync(join(path, "cgroup.kill"), "1");
      return true;
    } catch {
      return false; // Already removed.
    }
  };
  return {
    path,
    prefix: marker
      ? [
        "/bin/sh",
        "-c",
        'echo "$$" >"$0" && export "$1" && shift && exec "$@"',
        join(path, "cgroup.procs"),
        marker,
      ]
      : ["/bin/sh", "-c", 'echo "$$" >"$0" && exec "$@"', join(path, "cgroup.procs")],
    kill,
    async remove() {
      if (!existsSync(path)) return;
      if (populated(path)) kill();
      // SIGKILLed processes leave the cgroup within milliseconds; not worth an inotify watch.
      for (let waited = 0; populated(path) && waited < 2000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      removeTree(path);
      // Whatever left the cgroup (one read of /proc when nothing did).
      if (marker) await sweepMarked(`${marker}\0`);
    },
  };
}

/**
 * Removes a cgroup and the ones below it (a termbridge started in a terminal
 * makes its own there), deepest first; false when some are still emptying
 * after a kill (the watchdog removes them when termbridge ends).
 */
function removeTree(path: string): boolean {
  let removed = true;
  try {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) removed = removeTree(join(path, entry.name)) && removed;
    }
    rmdirSync(path);
  } catch {
    return false;
  }
  return removed;
}

/**
 * Kills and removes what termbridge processes that are gone left behind: a
 * watchdog killed along with them (say, by a cgroup.kill of a terminal they
 * ran in) could not.
 */
function sweepAbandoned(own: string): void {
  for (const path of abandonedCgroups(own)) {
    if (populated(path)) terminalCgroup(path).kill();
    removeTree(path);
  }
}

/** Whether a cgroup still holds processes. */
export function populated(path: string): boolean {
  try {
    return /^populated 1$/m.test(readFileSync(join(path, "cgroup.events"), "utf8"));
  } catch {
    return false;
  }
}

/** The pids in a cgroup (empty when it is gone). */
export function cgroupPids(path: string): number[] {
  try {
    return readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Every cgroup directory of this termbridge process. */
export function terminalCgroups(containment: Containment): string[] {
  if (containment.root === null) return [];
  try {
    return readdirSync(containment.root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory()).map((entry) => join(containment.root!, entry.name));
  } catch {
    return [];
  }
}

let current: Containment | undefined;

/**
 * This process's containment, set up on first use (a cgroup directory or the
 * marker, and the watchdog). `TERMBRIDGE_CONTAINMENT=off` turns it off (for
 * comparisons), `TERMBRIDGE_CONTAINMENT=marker` uses the marker even where
 * cgroups could be written (for tests).
 */
export function containment(): Containment {
  if (current !== undefined) return current;
  const chosen = process.env.TERMBRIDGE_CONTAINMENT;
  current = chosen === "off"
    ? off("TERMBRIDGE_CONTAINMENT=off")
    : chosen === "marker"
    ? startMarker("TERMBRIDGE_CONTAINMENT=marker")
    : startContainment();
  return current;
}
