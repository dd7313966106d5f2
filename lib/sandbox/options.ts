/**
 * From the configuration's `limits`, `sandbox`, `policy.write` and
 * `idleTimeout` keys to the options of the terminal service and the session
 * manager, so that every mode applies them the same way.
 * @module
 */

import { type Config, LIMIT_DEFAULTS, PATH_DEFAULTS, SANDBOX_DEFAULTS } from "../config/schema.ts";
import { homedir } from "node:os";
import type { AgentSettings } from "./agent.ts";
import { TerminalBudget } from "./limits.ts";
import type { Limits, SandboxSettings } from "./types.ts";

/** The sandbox and limits options both `TerminalService` and `SessionManager` take. */
export interface ContainmentOptions {
  /** The sandbox, or undefined when `sandbox.mode` is off. */
  sandbox: SandboxSettings | undefined;
  limits: Limits;
  /** One budget of `limits.terminals` for the terminals and the sessions of the process. */
  budget: TerminalBudget;
  /** The session manager's idle timeout (`idleTimeout`, seconds; 0 never). */
  idleTimeoutSeconds: number;
}

/**
 * The options for a configuration, defaults filled in (a mode passes the
 * same object to its terminal service and its session manager).
 * @param write the policy's effective `write` globs, when they differ from the file's
 * @example
 * const core = containmentOptions(loaded.config);
 * new SessionManager({ cwd, ...core });
 */
export function containmentOptions(config: Config, write?: string[]): ContainmentOptions {
  const limits: Limits = { ...LIMIT_DEFAULTS, ...config.limits };
  const mode = config.sandbox?.mode ?? SANDBOX_DEFAULTS.mode;
  return {
    sandbox: mode === "off" ? undefined : {
      mode,
      network: config.sandbox?.network ?? SANDBOX_DEFAULTS.network,
      write: write ?? config.policy?.write ?? [...PATH_DEFAULTS.write],
    },
    limits,
    budget: new TerminalBudget(limits.terminals ?? 0),
    idleTimeoutSeconds: config.idleTimeout ?? 0,
  };
}

/**
 * The agent's settings (`acp`): the commands' sandbox with the agent's own
 * network (`sandbox.agentNetwork`), its state paths (`sandbox.agentWrite`,
 * plus `$CLAUDE_CONFIG_DIR` and `$CODEX_HOME` when set) and the agent limits.
 * @param sandbox the commands' sandbox, from {@linkcode containmentOptions}
 */
export function agentSettings(
  config: Config,
  sandbox: SandboxSettings | undefined,
  env: Record<string, string>,
): AgentSettings {
  const home = env.HOME || homedir();
  const write = config.sandbox?.agentWrite ?? SANDBOX_DEFAULTS.agentWrite;
  const own = [env.CLAUDE_CONFIG_DIR, env.CODEX_HOME].filter((path): path is string =>
    path !== undefined && path.startsWith("/")
  );
  const limits = { ...LIMIT_DEFAULTS, ...config.limits };
  return {
    sandbox: sandbox === undefined ? undefined : {
      ...sandbox,
      network: config.sandbox?.agentNetwork ?? SANDBOX_DEFAULTS.agentNetwork,
    },
    writable: [...new Set([...write.map((path) => path.replace(/^~(?=\/|$)/, home)), ...own])],
    limits: {
      memoryBytes: limits.agentMemoryBytes,
      cpuSeconds: limits.agentCpuSeconds,
      processes: limits.agentProcesses,
    },
    tree: { processes: limits.agentTreeTasks, memoryBytes: limits.agentTreeMemoryBytes },
  };
}
