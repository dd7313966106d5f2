/**
 * How a command is wrapped to run: containment (a cgroup per terminal and a
 * watchdog, so that no process outlives termbridge), the bubblewrap sandbox,
 * resource limits, and the limits on terminals and time.
 * @module
 */

export { type AgentEnclosure, type AgentSettings, encloseAgent } from "./agent.ts";
export { sandboxPrefix, SandboxUnavailableError, writeRoots } from "./bubblewrap.ts";
export { type Containment, containment } from "./containment.ts";
export { commandSecondsHit, idleHit, LimitError, TerminalBudget } from "./limits.ts";
export { resourceLimitHit, rlimitPrefix, SHELL_XCPU_STATUS } from "./rlimits.ts";
export type * from "./types.ts";
export { agentSettings, type ContainmentOptions, containmentOptions } from "./options.ts";
