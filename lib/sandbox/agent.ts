/**
 * The agent of `termbridge acp` held like a terminal: its whole process tree
 * in a cgroup of its own (or marked, where no cgroup can be written), which
 * the watchdog kills when termbridge ends however it ends; with
 * `sandbox.mode` set, inside the bubblewrap sandbox, so that the commands it
 * runs itself write only where the sandbox lets them; under the agent
 * limits, which every process it starts inherits; and under the agent tree
 * limits, on its cgroup as a whole.
 * @module
 */

import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { ExitStatus } from "../runtime/mod.ts";
import {
  ownSandbox,
  sandboxedChild,
  sandboxedStatus,
  sandboxFailure,
  type SandboxPlace,
  writeRoots,
} from "./bubblewrap.ts";
import { type Containment, containment } from "./containment.ts";
import { rlimitPrefix } from "./rlimits.ts";
import { joinPrefix, type LimitedTree, limitTree, type TreeLimits } from "./tree_limits.ts";
import type { ResourceLimits, SandboxSettings } from "./types.ts";

/** Where and how the agent runs: from {@linkcode agentSettings} in options.ts. */
export interface AgentSettings {
  /** The sandbox the agent runs in (its network is `sandbox.agentNetwork`), or undefined when off. */
  sandbox: SandboxSettings | undefined;
  /** Paths the agent may write whatever the sandbox mode (its state), absolute. */
  writable: string[];
  /** The agent limits, as setrlimit limits every process of the tree inherits. */
  limits: ResourceLimits;
  /** The agent tree limits, on its cgroup as a whole (0: none). */
  tree: TreeLimits;
}

/** Where the agent starts. */
export interface AgentPlacement {
  /** The session's working directory: the workspace the sandbox makes writable. */
  workspace: string;
  /** The agent's own working directory. */
  wd: string;
  env: Record<string, string>;
  /** The agent's program, shown inside the sandbox even under its private /tmp. */
  program: string;
}

/** The agent's place: the argv that puts it there, and how to end everything in it. */
export interface AgentEnclosure {
  /** Argv put before the agent's program; each part execs the next. */
  readonly prefix: string[];
  /** What holds the agent, in words (for the header): containment, sandbox, limits. */
  readonly description: string;
  /**
   * Whether the agent starts in a session of its own: in the sandbox, with
   * no controlling terminal, so that nothing it runs can type into the
   * person's terminal (TIOCSTI) and answer termbridge's questions itself.
   */
  readonly ownSession: boolean;
  /**
   * With a sandbox: a private directory (0700) on the host that the agent
   * can reach inside it, for what termbridge serves it (the MCP tools'
   * socket); removed by `end()`. Undefined without a sandbox.
   */
  readonly runtimeDir: string | undefined;
  /**
   * The agent's own pid, from the pid of the process started with `prefix`
   * (in the sandbox, bwrap's: the agent is its child); null once it is gone.
   */
  agentPid(started: number): number | null;
  /** The agent's own exit status, from the status of the process started with `prefix`. */
  status(status: ExitStatus): ExitStatus;
  /**
   * For an agent that ended before answering anything: what in its place
   * stopped it (the sandbox cannot be had here, in words), or null.
   */
  failure(): Promise<string | null>;
  /** SIGKILLs every process left in the agent's tree at once. */
  kill(): void;
  /** Kills what is left of the tree and removes its cgroup. */
  end(): Promise<void>;
}

function display(path: string): string {
  const home = homedir();
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** The sandbox, limits and containment in force for the agent, in words. */
function describe(
  kind: string,
  settings: AgentSettings,
  placement: AgentPlacement,
  writable: string[],
): string {
  const held = kind === "off" ? "not contained" : `contained (${kind})`;
  const { sandbox } = settings;
  let boxed = "no sandbox (sandbox.mode off)";
  if (sandbox !== undefined) {
    const writes = [...writeRoots(sandbox, placement.workspace) ?? [], ...writable];
    const tmp = writes.includes("/tmp") ? "" : " and a private /tmp";
    boxed = `sandbox ${sandbox.mode}, network ${sandbox.network === false ? "off" : "on"}, ` +
      `writes ${writes.map(display).join(", ") || "nothing"}${tmp}`;
  }
  const { cpuSeconds = 0, memoryBytes = 0, processes = 0 } = settings.limits;
  const limits = [
    memoryBytes > 0 ? `${memoryBytes} bytes of address space` : "",
    cpuSeconds > 0 ? `${cpuSeconds} CPU seconds` : "",
    processes > 0 ? `${processes} processes of the user` : "",
  ].filter(Boolean);
  const limited = limits.length === 0 ? "" : `; limits per process: ${limits.join(", ")}`;
  return `${held}; ${boxed}${limited}`;
}

/**
 * Prepares the agent's place: a cgroup (or marker) for its tree, a sandbox of
 * its own (bwrap as its parent: see {@linkcode ownSandbox}), and its limits.
 * @throws {SandboxUnavailableError} when a sandbox is asked for and bubblewrap is not installed
 */
export function encloseAgent(settings: AgentSettings, placement: AgentPlacement): AgentEnclosure {
  const writable = settings.writable.map((path) => resolve(path)).filter((path) =>
    existsSync(path)
  );
  const runtimeDir = settings.sandbox === undefined
    ? undefined
    : mkdtempSync(join(tmpdir(), "termbridge-agent-")); // 0700
  const place: SandboxPlace = {
    workspace: placement.workspace,
    wd: placement.wd,
    env: placement.env,
    shown: placement.program.startsWith("/tmp/") ? [placement.program] : [],
    writable: runtimeDir === undefined ? writable : [...writable, runtimeDir],
  };
  let sandbox: string[] | null;
  try {
    sandbox = ownSandbox(settings.sandbox, place);
  } catch (error) {
    if (runtimeDir !== undefined) rmSync(runtimeDir, { recursive: true, force: true });
    throw error;
  }
  const state = containment();
  const tree = state.create("agent");
  const limited = treeLimits(tree === null ? null : state, tree?.path, settings.tree);
  const description = describe(tree === null ? "off" : state.kind, settings, placement, writable);
  return {
    prefix: [
      ...tree?.prefix ?? [],
      ...joinPrefix(limited.joins),
      ...sandbox ?? [],
      ...rlimitPrefix(settings.limits),
    ],
    description: [description, limited.description].filter(Boolean).join("; "),
    ownSession: sandbox !== null,
    runtimeDir,
    agentPid: (started) => sandbox === null ? started : sandboxedChild(started),
    status: (status) => sandbox === null ? status : sandboxedStatus(status),
    failure: () => sandboxFailure(settings.sandbox, place),
    kill: () => void tree?.kill(),
    end: async () => {
      await tree?.remove();
      limited.remove();
      if (runtimeDir !== undefined) rmSync(runtimeDir, { recursive: true, force: true });
    },
  };
}

/** The tree limits on the agent's cgroup; none without cgroups (the marker holds no limit). */
function treeLimits(
  state: Containment | null,
  cgroup: string | undefined,
  limits: TreeLimits,
): LimitedTree {
  if (state?.kind === "cgroup" && cgroup !== undefined) {
    return limitTree(cgroup, basename(cgroup), limits);
  }
  const asked = limits.processes > 0 || limits.memoryBytes > 0;
  return {
    joins: [],
    description: asked
      ? `tree limits not set: they need termbridge's cgroups (containment is ${
        state?.kind ?? "off"
      })`
      : "",
    remove: () => {},
  };
}
