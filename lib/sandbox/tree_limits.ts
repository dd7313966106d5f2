/**
 * Ceilings for a whole process tree, not per process: the number of tasks
 * (`pids.max`) and the memory in use (`memory.max`), set on the tree's
 * cgroup. cgroup v2 gives them only where termbridge's own cgroup has the
 * controllers delegated (`cgroup.controllers` lists them; they are then
 * enabled below termbridge's cgroup directory); otherwise a writable cgroup
 * v1 hierarchy of the controller (`pids`, `memory`) is used, in a
 * directory `termbridge-PID/NAME` beside termbridge's own v1 cgroup, which
 * the process joins before it runs. Where neither is writable, the limit is
 * not set, and the description says so.
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
import { join } from "node:path";
import process from "node:process";

/** Tree-wide ceilings; 0 means none. */
export interface TreeLimits {
  /** Most tasks (processes and threads) in the tree at once. */
  processes: number;
  /** Most bytes of memory the tree uses at once (the kernel's OOM killer acts in the tree). */
  memoryBytes: number;
}

/** What {@linkcode limitTree} set. */
export interface LimitedTree {
  /** The `cgroup.procs` files of v1 hierarchies the tree's first process must join. */
  readonly joins: string[];
  /** The limits in words, those that could not be set too (empty when none were asked). */
  readonly description: string;
  /** Removes the v1 cgroups (once the tree is gone). */
  remove(): void;
}

interface Controller {
  name: "pids" | "memory";
  value: (limits: TreeLimits) => number;
  v2File: string;
  v1File: string;
  words: (value: number) => string;
}

const CONTROLLERS: Controller[] = [
  {
    name: "pids",
    value: (limits) => limits.processes,
    v2File: "pids.max",
    v1File: "pids.max",
    words: (value) => `${value} tasks`,
  },
  {
    name: "memory",
    value: (limits) => limits.memoryBytes,
    v2File: "memory.max",
    v1File: "memory.limit_in_bytes",
    words: (value) => `${value} bytes of memory`,
  },
];

/** Where each v1 controller's hierarchy has termbridge's own cgroup, by controller name. */
function ownV1Dirs(): Map<string, string> {
  const dirs = new Map<string, string>();
  let mounts: string;
  let membership: string;
  try {
    mounts = readFileSync("/proc/self/mountinfo", "utf8");
    membership = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return dirs;
  }
  for (const line of mounts.split("\n")) {
    const fields = line.split(" ");
    const dash = fields.indexOf("-");
    if (dash === -1 || fields[dash + 1] !== "cgroup" || fields[3] !== "/") continue;
    const options = (fields[dash + 3] ?? "").split(",");
    for (const { name } of CONTROLLERS) {
      if (!options.includes(name)) continue;
      const own = membership.split("\n").map((entry) => entry.split(":"))
        .find((entry) => entry[1]?.split(",").includes(name));
      if (own !== undefined) dirs.set(name, join(fields[4], own.slice(2).join(":")));
    }
  }
  return dirs;
}

/**
 * The v1 directories that hold this termbridge's tree cgroups, one per
 * controller, for the watchdog to remove when termbridge ends.
 */
export function v1Roots(): string[] {
  return [...ownV1Dirs().values()].map((dir) => join(dir, `termbridge-${process.pid}`));
}

/**
 * Lets the controllers termbridge's cgroup was given reach the cgroups below
 * `root` (a directory of termbridge's with no process of its own). Quietly
 * does nothing where they were not given.
 */
export function enableV2Controllers(root: string): void {
  let available: string[];
  try {
    available = readFileSync(join(root, "cgroup.controllers"), "utf8").trim().split(/\s+/);
  } catch {
    return;
  }
  for (const { name } of CONTROLLERS) {
    if (!available.includes(name)) continue;
    try {
      writeFileSync(join(root, "cgroup.subtree_control"), `+${name}`);
    } catch {
      // Not ours to enable: the v1 hierarchy, if any, is used instead.
    }
  }
}

/**
 * Sets `limits` on the tree in cgroup v2 directory `cgroup` (named `name`):
 * in it where its controllers are enabled, else in new v1 cgroups that the
 * tree's first process joins (see `joins`).
 */
export function limitTree(cgroup: string, name: string, limits: TreeLimits): LimitedTree {
  const joins: string[] = [];
  const made: string[] = [];
  const words: string[] = [];
  const missing: string[] = [];
  let v1: Map<string, string> | undefined;
  for (const controller of CONTROLLERS) {
    const value = controller.value(limits);
    if (value <= 0) continue;
    const v2 = join(cgroup, controller.v2File);
    if (existsSync(v2) && write(v2, String(value))) {
      words.push(controller.words(value));
      continue;
    }
    v1 ??= ownV1Dirs();
    const own = v1.get(controller.name);
    const dir = own === undefined ? undefined : join(own, `termbridge-${process.pid}`, name);
    if (dir !== undefined && makeV1(dir) && write(join(dir, controller.v1File), String(value))) {
      made.push(dir);
      joins.push(join(dir, "cgroup.procs"));
      words.push(`${controller.words(value)} (cgroup v1)`);
    } else {
      if (dir !== undefined) removeV1(dir);
      missing.push(`${controller.name} (no writable ${controller.name} cgroup)`);
    }
  }
  const description = [
    words.length === 0 ? "" : `tree limits: ${words.join(", ")}`,
    missing.length === 0 ? "" : `tree limits not set: ${missing.join(", ")}`,
  ].filter(Boolean).join("; ");
  return {
    joins,
    description,
    remove: () => made.forEach(removeV1),
  };
}

function write(file: string, value: string): boolean {
  try {
    writeFileSync(file, value);
    return true;
  } catch {
    return false;
  }
}

function makeV1(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

/** Removes a v1 tree cgroup, and termbridge's directory above it once that is empty. */
function removeV1(dir: string): void {
  for (const path of [dir, join(dir, "..")]) {
    try {
      if (readdirSync(path, { withFileTypes: true }).some((entry) => entry.isDirectory())) return;
      rmdirSync(path);
    } catch {
      return; // Gone already, or still holding a process (the watchdog removes it).
    }
  }
}

/** The argv prefix that moves the process into each of `joins` (cgroup.procs files), then execs the rest. */
export function joinPrefix(joins: string[]): string[] {
  if (joins.length === 0) return [];
  return [
    "/bin/sh",
    "-c",
    'while [ "$1" != -- ]; do echo "$$" >"$1" || exit 126; shift; done; shift; exec "$@"',
    "sh",
    ...joins,
    "--",
  ];
}

/**
 * The `termbridge-PID` directories in cgroup directory `own` whose termbridge
 * process is gone (its watchdog, killed along with it, could not remove them).
 */
export function abandonedCgroups(own: string): string[] {
  let names: string[];
  try {
    names = readdirSync(own);
  } catch {
    return [];
  }
  return names.filter((name) => {
    const pid = /^termbridge-(\d+)$/.exec(name)?.[1];
    return pid !== undefined && pid !== String(process.pid) && !existsSync(`/proc/${pid}`);
  }).map((name) => join(own, name));
}

/** Removes the v1 tree cgroups of termbridge processes that are gone. */
export function sweepAbandonedV1(): void {
  for (const own of ownV1Dirs().values()) {
    for (const dir of abandonedCgroups(own)) {
      try {
        for (const tree of readdirSync(dir)) {
          if (existsSync(join(dir, tree, "cgroup.procs"))) rmdirSync(join(dir, tree));
        }
        rmdirSync(dir);
      } catch {
        // Still holding a process: the next start tries again.
      }
    }
  }
}
