/**
 * What every mode does first: read the configuration, open the audit log,
 * load the policy and make the guard, from the options every mode shares
 * (`--config`, `--audit`, `--no-audit`, `--policy off`, `--yes`, `--no`).
 * @module
 */

import { homedir } from "node:os";
import { join } from "node:path";
import { AuditLog, NO_AUDIT, ROTATE_KEEP } from "../audit/log.ts";
import {
  applyFlag,
  ConfigError,
  describeSource,
  loadConfig,
  type LoadedConfig,
  PATH_DEFAULTS,
  resolveAuditPath,
  userConfigPath,
} from "../config/config.ts";
import { isTrusted } from "../config/trust.ts";
import type { CommandPolicy, PolicyRules } from "../policy/types.ts";
import {
  containmentOptions,
  type Limits,
  type SandboxSettings,
  type TerminalBudget,
} from "../sandbox/mod.ts";
import { currentApprover, lastResortApprover } from "./client.ts";
import { Guard, refuseAsks } from "./guard.ts";
import { createPolicy, DEFAULT_POLICY_RULES, PolicyError } from "../policy/mod.ts";
import type { Approver, Mode } from "./types.ts";

/** The safety options of a mode's command line, parsed. */
export interface SafetyFlags {
  config?: string;
  audit?: string;
  noAudit?: boolean;
  /** `--policy off`: no shipped default rules. */
  policyOff?: boolean;
  /** `--yes` approves every "ask", `--no` refuses it. */
  answer?: "yes" | "no";
}

/** A mode's configuration, audit log, guard, limits and sandbox. */
export interface Safety {
  loaded: LoadedConfig;
  guard: Guard;
  /** `limits` in force: the configuration's over the defaults. */
  limits: Limits;
  /** The sandbox, or undefined when off. */
  sandbox: SandboxSettings | undefined;
  /** Places for running terminals and sessions, shared by the whole mode. */
  budget: TerminalBudget;
  /** The audit log's file, or null with `--no-audit`. */
  auditPath: string | null;
  /** Closes the audit log. */
  close(): void;
}

/** The policy rules in force: the shipped ones (unless `--policy off`) plus the configuration's. */
export function effectiveRules(loaded: LoadedConfig, policyOff: boolean): PolicyRules | null {
  const configured = loaded.config.policy ?? {};
  if (policyOff && Object.keys(configured).length === 0) return null;
  const base: PolicyRules = policyOff ? {} : DEFAULT_POLICY_RULES;
  return {
    default: configured.default ?? base.default ?? "allow",
    allow: [...(base.allow ?? []), ...(configured.allow ?? [])],
    ask: [...(base.ask ?? []), ...(configured.ask ?? [])],
    deny: [...(base.deny ?? []), ...(configured.deny ?? [])],
    read: configured.read ?? base.read ?? [...PATH_DEFAULTS.read],
    write: configured.write ?? base.write ?? [...PATH_DEFAULTS.write],
    ...(loaded.bounds?.["policy.read"] ? { readWithin: loaded.bounds["policy.read"] } : {}),
    ...(loaded.bounds?.["policy.write"] ? { writeWithin: loaded.bounds["policy.write"] } : {}),
  };
}

/**
 * The policy engine over `rules`.
 * @throws {ConfigError} naming the files of the policy when a rule cannot be read
 */
function policyOf(rules: PolicyRules, loaded: LoadedConfig): CommandPolicy {
  try {
    return createPolicy(rules);
  } catch (error) {
    if (!(error instanceof PolicyError)) throw error;
    const where = Object.entries(loaded.sources)
      .filter(([key]) => key.startsWith("policy."))
      .flatMap(([, sources]) => sources.map(describeSource));
    throw new ConfigError(
      `Invalid config${where.length ? ` (policy from ${where.join(", ")})` : ""}: ${error.message}`,
    );
  }
}

/** The approver of the flags: `--yes`, `--no`, else the mode's own, else refusal. */
function approverOf(
  answer: SafetyFlags["answer"],
  mode: Mode,
  interactive?: Approver,
): Approver {
  if (answer === "yes") return () => Promise.resolve({ approved: true, by: "--yes" });
  if (answer === "no") return () => Promise.resolve({ approved: false, by: "--no" });
  if (interactive !== undefined) return interactive;
  // The server's clients cannot pass --yes: the server itself must have been started with it.
  // A client that can be asked (an MCP client with elicitation) is asked about its own requests.
  if (mode === "server") {
    // Else the dashboard's page, when one is open (it refuses, saying why, when none answers).
    return (request, signal) =>
      (currentApprover() ?? lastResortApprover() ?? refuseAsksInServer)(request, signal);
  }
  return refuseAsks;
}

/** Refuses every "ask" in the session server, saying how to start one that approves. */
const refuseAsksInServer: Approver = () =>
  Promise.resolve({
    approved: false,
    by: "nobody to ask (start the server with --yes to approve: " +
      "termbridge kill-server; termbridge server --yes &)",
  });

/**
 * Reads the configuration and makes the mode's guard.
 * @throws {ConfigError} when a configuration file is invalid (every mode stops, exit 2)
 * @throws {Error} when the audit log cannot be opened (nothing runs unaudited)
 */
export function openSafety(
  mode: Mode,
  options: {
    flags: SafetyFlags;
    cwd: string;
    env: Record<string, string>;
    /** How this mode asks a person; without one, an "ask" is refused unless `--yes`. */
    approver?: Approver;
  },
): Safety {
  const { flags, env } = options;
  const loaded = loadConfig({ explicit: flags.config, cwd: options.cwd, env });
  applyFlag(loaded, "audit.path", flags.audit, "--audit");
  const auditPath = flags.noAudit
    ? null
    : resolveAuditPath(loaded.config.audit?.path, env, options.cwd);
  const audit = auditPath === null ? NO_AUDIT : new AuditLog(auditPath);
  const rules = effectiveRules(loaded, flags.policyOff === true);
  const policy: CommandPolicy | null = rules === null ? null : policyOf(rules, loaded);
  const protectedFiles = [
    userConfigPath(env),
    join(options.cwd, "termbridge.jsonc"),
    ...loaded.files.map((file) => file.path),
    ...(auditPath === null ? [] : [auditPath, ...rotatedFiles(auditPath)]),
  ];
  const guard = new Guard({
    mode,
    policy,
    audit,
    protectedFiles,
    // The audit log's rotated files are the log's, which `termbridge audit` reads too.
    protectedLogs: auditPath === null ? [] : [auditPath],
    // A trusted directory's termbridge.jsonc, wherever in its tree, is the next run's whole config.
    trustsDirectory: (dir) => isTrusted(dir, loaded.config.trust ?? [], env.HOME || homedir()),
    approver: approverOf(flags.answer, mode, options.approver),
  });
  const { limits, sandbox, budget } = containmentOptions(loaded.config, rules?.write);
  return {
    loaded,
    guard,
    limits,
    // Commands in the sandbox cannot rewrite them either, wherever the sandbox lets them write.
    sandbox: sandbox && { ...sandbox, readOnly: protectedFiles },
    budget,
    auditPath,
    close: () => audit instanceof AuditLog && audit.close(),
  };
}

/** The audit log's rotated files (`LOG.1` .. `LOG.N`). */
function rotatedFiles(auditPath: string): string[] {
  return Array.from({ length: ROTATE_KEEP }, (_, i) => `${auditPath}.${i + 1}`);
}

/** Sets the mode's interactive approver once it can ask, unless `--yes`/`--no` answer already. */
export function useApprover(safety: Safety, flags: SafetyFlags, approver: Approver): void {
  if (flags.answer === undefined) safety.guard.setApprover(approver);
}
