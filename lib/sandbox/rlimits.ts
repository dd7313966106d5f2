/**
 * Resource limits of a command (setrlimit through util-linux `prlimit`,
 * which sets them and execs the command: the pid stays the program's), and
 * how to tell, once it ended, which limit it hit.
 * @module
 */

import type { ExitStatus } from "../runtime/mod.ts";
import type { LimitHit, ResourceLimits } from "./types.ts";

/** Argv prefix that starts a command under `limits`; empty when none is set. */
export function rlimitPrefix(limits: ResourceLimits | undefined): string[] {
  const options: string[] = [];
  const { cpuSeconds = 0, memoryBytes = 0, processes = 0 } = limits ?? {};
  // Soft limit first: SIGXCPU, which says what happened; SIGKILL a second later.
  if (cpuSeconds > 0) options.push(`--cpu=${Math.ceil(cpuSeconds)}:${Math.ceil(cpuSeconds) + 1}`);
  if (memoryBytes > 0) options.push(`--as=${Math.floor(memoryBytes)}`);
  if (processes > 0) options.push(`--nproc=${Math.floor(processes)}`);
  return options.length === 0 ? [] : ["prlimit", ...options, "--"];
}

/** The exit status a shell gives for a command killed by SIGXCPU (128 + 24). */
export const SHELL_XCPU_STATUS = 152;

/**
 * The resource limit a command most likely hit, judged by how it ended; null
 * when it ended normally or no limit could explain it. Only the CPU limit
 * announces itself (SIGXCPU); running out of address space or processes makes
 * allocations and forks fail, which a program reports in its own way.
 */
export function resourceLimitHit(
  status: ExitStatus,
  limits: ResourceLimits | undefined,
  killedByTermbridge: boolean,
): LimitHit | null {
  const { cpuSeconds = 0, memoryBytes = 0, processes = 0 } = limits ?? {};
  if (status.exitCode === 0) return null;
  if (
    cpuSeconds > 0 && (status.signal === "SIGXCPU" ||
      (status.signal === "SIGKILL" && !killedByTermbridge) ||
      // A shell running a command line reports its command's SIGXCPU death as 128 + 24.
      status.exitCode === SHELL_XCPU_STATUS)
  ) {
    return {
      limit: "limits.cpuSeconds",
      message: `killed: used more than limits.cpuSeconds (${cpuSeconds} s) of CPU time`,
    };
  }
  // Refused allocations and forks are reported by the program itself; only a
  // death by a signal nobody sent (SIGSEGV, SIGABRT...) gets a note.
  if (status.signal === null || killedByTermbridge) return null;
  if (memoryBytes > 0) {
    return {
      limit: "limits.memoryBytes",
      message: `died (${status.signal}) while limits.memoryBytes (${memoryBytes} bytes of ` +
        "address space) was in force: allocations beyond it fail",
    };
  }
  if (processes > 0) {
    return {
      limit: "limits.processes",
      message: `died (${status.signal}) while limits.processes (${processes}) was in force: ` +
        "forks beyond it fail",
    };
  }
  return null;
}
