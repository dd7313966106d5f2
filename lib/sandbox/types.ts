/**
 * What the sandbox and the limits are given: the `sandbox` and `limits`
 * sections of `termbridge.jsonc`, as options of the terminal service and the
 * session manager.
 * @module
 */

/** `off`, `read-only` (only a private /tmp is writable) or `workspace-write`. */
export type SandboxMode = "off" | "read-only" | "workspace-write";

/** The `sandbox` section of the configuration. */
export interface SandboxSettings {
  mode: SandboxMode;
  /** `false` cuts the network (only a private loopback is left). Default: true. */
  network?: boolean;
  /**
   * What `workspace-write` makes writable besides the working directory: the
   * policy's `write` globs (a glob's directory part is what is bound).
   */
  write?: string[];
  /**
   * The workspace `workspace-write` makes writable: the working directory
   * termbridge (or its terminal service, or its session manager) was started
   * for. A command or session whose own working directory is elsewhere gets
   * it read-only. Absent: the program's working directory.
   */
  workspace?: string;
  /**
   * termbridge's own files (its configuration, the audit log) that stay
   * read-only inside the sandbox even where they sit in a writable
   * directory, as long as they exist when the sandbox starts.
   */
  readOnly?: string[];
}

/** The `limits` section of the configuration; 0 or absent means no limit. */
export interface Limits {
  /** Most terminals and sessions running at once. */
  terminals?: number;
  /** Wall-clock seconds a command may run before its process group is killed. */
  commandSeconds?: number;
  /** CPU seconds per command (RLIMIT_CPU). */
  cpuSeconds?: number;
  /** Address-space bytes per process (RLIMIT_AS). */
  memoryBytes?: number;
  /** Processes of the user while the command runs (RLIMIT_NPROC; root is exempt). */
  processes?: number;
}

/** The resource limits a command is started with (setrlimit). */
export type ResourceLimits = Pick<Limits, "cpuSeconds" | "memoryBytes" | "processes">;

/** A limit that was hit, in words, for the caller and the audit log. */
export interface LimitHit {
  /** The configuration key, e.g. `"limits.commandSeconds"`. */
  limit: string;
  /** What happened, e.g. `"killed: ran longer than limits.commandSeconds (600 s)"`. */
  message: string;
}
