/**
 * The keys of `termbridge.jsonc`: their types, defaults and how each is
 * checked. Validation reports problems in words, located by key path; the
 * loader turns the path into a file, line and column.
 * @module
 */

import type { Decision, PolicyRules } from "../policy/types.ts";

/** `limits`: ceilings per command and per termbridge; 0 means no limit. */
export interface LimitsConfig {
  /** Most terminals and sessions open at once. */
  terminals?: number;
  /** Wall-clock seconds a command may run before its process group is killed. */
  commandSeconds?: number;
  /** CPU seconds per command (setrlimit RLIMIT_CPU). */
  cpuSeconds?: number;
  /** Address-space bytes per command (RLIMIT_AS). */
  memoryBytes?: number;
  /** Processes per command (RLIMIT_NPROC). */
  processes?: number;
  /** `acp`: address-space bytes per process of the agent's tree (RLIMIT_AS, inherited). */
  agentMemoryBytes?: number;
  /** `acp`: CPU seconds per process of the agent's tree (RLIMIT_CPU, inherited). */
  agentCpuSeconds?: number;
  /** `acp`: processes of the user while the agent runs (RLIMIT_NPROC, inherited; root is exempt). */
  agentProcesses?: number;
  /** `acp`: tasks (processes and threads) of the agent's whole tree at once (cgroup `pids.max`). */
  agentTreeTasks?: number;
  /** `acp`: memory in use by the agent's whole tree (cgroup `memory.max`). */
  agentTreeMemoryBytes?: number;
}

/** `audit`: where the JSONL audit log goes. */
export interface AuditConfig {
  /** The log file; `~` expands. Default `$XDG_STATE_HOME/termbridge/audit.jsonl`. */
  path?: string;
}

/** How commands are sandboxed: not at all, nothing writable, or the workspace writable. */
export type SandboxMode = "off" | "read-only" | "workspace-write";

/** `sandbox`: bubblewrap around every command. */
export interface SandboxConfig {
  mode?: SandboxMode;
  /** Whether sandboxed commands may use the network. */
  network?: boolean;
  /** `acp`: whether the sandboxed agent (and what it runs itself) may use the network. */
  agentNetwork?: boolean;
  /** `acp`: paths the sandboxed agent may write whatever the mode (its own state); `~` expands. */
  agentWrite?: string[];
}

/** The settings a configuration file may hold. */
export interface Config {
  /** Default program of new sessions, e.g. `["bash"]` or `["zsh", "-l"]`. */
  shell?: string[];
  cols?: number;
  rows?: number;
  scrollback?: number;
  /** Working directory of new sessions. */
  cwd?: string;
  /** Variables added to every session's environment. */
  env?: Record<string, string>;
  /** Most sessions open at once (MCP). */
  maxSessions?: number;
  /** Close sessions unused for this many seconds (MCP); 0 never. */
  idleTimeout?: number;
  /** Seconds a new session's shell may take to show its first prompt (default 10). */
  shellStartTimeout?: number;
  /** Seconds a policy question put to the web dashboard waits for an answer (default 120). */
  webAskTimeout?: number;
  /** Offer no tools that send input (MCP). */
  readOnly?: boolean;
  /** Directory to record every session into, as asciicast files (MCP). */
  record?: string;
  /** Hard ceiling of kept output per terminal, in bytes. */
  outputLimit?: number;
  /** Largest answer of `fs/read_text_file`, in bytes (a whole file above it is refused). */
  maxReadBytes?: number;
  /** Most bytes of text one MCP tool result carries (command output keeps its tail). */
  mcpResultLimit?: number;
  /** The command and file policy (see `lib/policy/types.ts`). */
  policy?: PolicyRules;
  limits?: LimitsConfig;
  audit?: AuditConfig;
  sandbox?: SandboxConfig;
  /** Directories whose own `termbridge.jsonc` may widen access (user config only). */
  trust?: string[];
}

/** Limits when no file sets them. */
export const LIMIT_DEFAULTS: Readonly<Required<LimitsConfig>> = {
  terminals: 32,
  commandSeconds: 600,
  cpuSeconds: 0,
  memoryBytes: 0,
  processes: 0,
  agentMemoryBytes: 0,
  agentCpuSeconds: 0,
  agentProcesses: 0,
  agentTreeTasks: 0,
  agentTreeMemoryBytes: 0,
};

/** The sandbox when no file sets it. */
export const SANDBOX_DEFAULTS: Readonly<Required<SandboxConfig>> = {
  mode: "off",
  network: false,
  agentNetwork: true,
  agentWrite: ["~/.claude", "~/.claude.json", "~/.codex", "~/.cache", "~/.npm"],
};

/** The fs/* path globs when no file sets them; `${cwd}` is the session's working directory. */
export const PATH_DEFAULTS: Readonly<{ read: readonly string[]; write: readonly string[] }> = {
  read: ["/**"],
  write: ["${cwd}/**", "/tmp/**"],
};

/** The policy's `default` when no file sets it. */
export const DEFAULT_DECISION: Decision = "allow";

/** Checks one value; returns what was expected, in words, or null when it is right. */
type Check = (value: unknown) => string | null;

const wholeNumber = (min: number): Check => (v) =>
  Number.isInteger(v) && (v as number) >= min ? null : `a whole number >= ${min}`;
const string: Check = (v) => typeof v === "string" ? null : "a string";
const absolutePath: Check = (v) =>
  typeof v === "string" && (v.startsWith("/") || v === "~" || v.startsWith("~/"))
    ? null
    : "an absolute path (or one starting with ~/)";
const boolean: Check = (v) => typeof v === "boolean" ? null : "true or false";
const oneOf = (...choices: string[]): Check => (v) =>
  choices.includes(v as string) ? null : `one of ${choices.map((c) => `"${c}"`).join(", ")}`;
const strings = (nonEmpty: boolean): Check => (v) =>
  Array.isArray(v) && v.every((s) => typeof s === "string" && s !== "") &&
    (!nonEmpty || v.length > 0)
    ? null
    : nonEmpty
    ? "a non-empty list of non-empty strings"
    : "a list of non-empty strings";
const absolutePaths: Check = (v) =>
  (v as string[]).every((path) => absolutePath(path) === null)
    ? null
    : "a list of absolute paths (or ones starting with ~/)";
const stringMap: Check = (v) =>
  typeof v === "object" && v !== null && !Array.isArray(v) &&
    Object.values(v).every((s) => typeof s === "string")
    ? null
    : "an object of string values";

/** Every key, and for sections every key within. */
export const SCHEMA: Record<string, Check | Record<string, Check>> = {
  shell: strings(true),
  cols: wholeNumber(2),
  rows: wholeNumber(1),
  scrollback: wholeNumber(0),
  cwd: absolutePath,
  env: stringMap,
  maxSessions: wholeNumber(1),
  idleTimeout: (v) => typeof v === "number" && v >= 0 ? null : "a number of seconds >= 0",
  shellStartTimeout: (v) => typeof v === "number" && v > 0 ? null : "a number of seconds > 0",
  webAskTimeout: (v) => typeof v === "number" && v > 0 ? null : "a number of seconds > 0",
  readOnly: boolean,
  record: absolutePath,
  outputLimit: wholeNumber(0),
  maxReadBytes: wholeNumber(1),
  mcpResultLimit: wholeNumber(1024),
  policy: {
    default: oneOf("allow", "ask", "deny"),
    allow: strings(false),
    ask: strings(false),
    deny: strings(false),
    read: strings(false),
    write: strings(false),
  },
  limits: {
    terminals: wholeNumber(0),
    commandSeconds: wholeNumber(0),
    cpuSeconds: wholeNumber(0),
    memoryBytes: wholeNumber(0),
    processes: wholeNumber(0),
    agentMemoryBytes: wholeNumber(0),
    agentCpuSeconds: wholeNumber(0),
    agentProcesses: wholeNumber(0),
    agentTreeTasks: wholeNumber(0),
    agentTreeMemoryBytes: wholeNumber(0),
  },
  audit: { path: string },
  sandbox: {
    mode: oneOf("off", "read-only", "workspace-write"),
    network: boolean,
    agentNetwork: boolean,
    agentWrite: (v) => strings(false)(v) ?? absolutePaths(v),
  },
  trust: strings(false),
};

/** A problem found in a configuration value: where (key path) and what, in words. */
export interface SchemaProblem {
  path: string[];
  /** Whether the key itself is wrong (unknown) rather than its value. */
  atKey: boolean;
  message: string;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function checkObject(
  value: Record<string, unknown>,
  schema: Record<string, Check | Record<string, Check>>,
  prefix: string[],
): SchemaProblem | null {
  for (const [key, setting] of Object.entries(value)) {
    const path = [...prefix, key];
    const check = schema[key];
    const name = path.join(".");
    if (check === undefined) {
      const known = Object.keys(schema).join(", ");
      return { path, atKey: true, message: `unknown key "${name}" (known here: ${known})` };
    }
    if (typeof check === "function") {
      const expected = check(setting);
      if (expected !== null) {
        return {
          path,
          atKey: false,
          message: `"${name}" must be ${expected}, not ${describe(setting)}`,
        };
      }
      continue;
    }
    if (typeof setting !== "object" || setting === null || Array.isArray(setting)) {
      return {
        path,
        atKey: false,
        message: `"${name}" must be an object with keys ${Object.keys(check).join(", ")}, not ${
          describe(setting)
        }`,
      };
    }
    const problem = checkObject(setting as Record<string, unknown>, check, path);
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * Checks a parsed configuration against the schema.
 * @returns the first problem found, or null when the value is a valid `Config`
 */
export function validateConfig(value: unknown): SchemaProblem | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { path: [], atKey: false, message: "the file must hold one object of settings" };
  }
  return checkObject(value as Record<string, unknown>, SCHEMA, []);
}
