/**
 * The options every mode shares for configuration, audit and policy, and
 * their lines in each mode's `--help`.
 * @module
 */

import { runtime } from "../runtime/mod.ts";
import { applyFlag } from "../config/config.ts";
import { openSafety, type Safety, type SafetyFlags } from "../safety/setup.ts";
import type { Approver, Mode } from "../safety/types.ts";
import { UsageError } from "./usage.ts";

export {
  ANSWER_OPTIONS,
  answerHelp,
  SAFETY_HELP,
  SAFETY_OPTIONS,
  SESSION_HELP,
  SESSION_OPTIONS,
  underShortOptions,
} from "./safety_option_specs.ts";

/**
 * Turns parsed option values into safety flags.
 * @throws {UsageError} for `--policy` other than `off`, or `--yes` with `--no`
 */
export function safetyFlags(
  mode: string,
  values: {
    config?: string;
    audit?: string;
    "no-audit"?: boolean;
    policy?: string;
    yes?: boolean;
    no?: boolean;
    "start-timeout"?: string;
  },
): SafetyFlags {
  if (values.policy !== undefined && values.policy !== "off") {
    throw new UsageError(
      `Cannot use --policy ${
        JSON.stringify(values.policy)
      } in "${mode}": the only value is "off" (rules go in termbridge.jsonc)`,
    );
  }
  if (values.yes && values.no) {
    throw new UsageError(`Cannot use --yes and --no together in "${mode}": choose one`);
  }
  if (values.audit !== undefined && values["no-audit"]) {
    throw new UsageError(`Cannot use --audit and --no-audit together in "${mode}": choose one`);
  }
  return {
    config: values.config,
    audit: values.audit,
    noAudit: values["no-audit"],
    policyOff: values.policy === "off",
    answer: values.yes ? "yes" : values.no ? "no" : undefined,
  };
}

/**
 * Opens a mode's configuration, audit log and guard from its parsed options,
 * and prints the configuration's warning (if any) to stderr.
 * @throws {ConfigError} when a configuration file is invalid
 * @throws {UsageError} for bad safety options
 */
export async function startSafety(
  mode: Mode,
  values: Parameters<typeof safetyFlags>[1],
  approver?: Approver,
): Promise<Safety & { flags: SafetyFlags }> {
  const flags = safetyFlags(mode, values);
  const safety = openSafety(mode, { flags, cwd: runtime.cwd(), env: runtime.env(), approver });
  const start = values["start-timeout"];
  if (start !== undefined) {
    const seconds = Number(start);
    if (start.trim() === "" || !Number.isFinite(seconds) || seconds <= 0) {
      safety.close();
      throw new UsageError(
        `Cannot use --start-timeout ${
          JSON.stringify(start)
        } in "${mode}": give a number of seconds above 0, e.g. --start-timeout 60`,
      );
    }
    applyFlag(safety.loaded, "shellStartTimeout", seconds, "--start-timeout");
  }
  for (const warning of safety.loaded.warnings) {
    await runtime.writeStderr(`termbridge: warning: ${warning}\n`);
  }
  return { ...safety, flags };
}

/**
 * The defaults of new sessions from the configuration, with the mode's
 * guard, limits, sandbox and terminal budget.
 */
export function sessionDefaults(safety: Safety, cwd?: string) {
  const { config } = safety.loaded;
  return {
    program: config.shell,
    cwd: cwd ?? config.cwd,
    env: config.env,
    cols: config.cols,
    rows: config.rows,
    scrollback: config.scrollback,
    startTimeoutMs: config.shellStartTimeout === undefined
      ? undefined
      : config.shellStartTimeout * 1000,
    guard: safety.guard,
    limits: safety.limits,
    sandbox: safety.sandbox,
    budget: safety.budget,
  };
}

/** What a mode's terminal service takes from its safety: guard, limits, sandbox, budget. */
export function serviceSafety(safety: Safety) {
  return {
    guard: safety.guard,
    limits: safety.limits,
    sandbox: safety.sandbox,
    budget: safety.budget,
  };
}
