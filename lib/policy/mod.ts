/**
 * The command and file policy: `createPolicy(rules)` gives a `CommandPolicy`
 * that checks command lines, argv and paths. Consulted through the safety
 * guard (`lib/safety/`); front ends never call it directly.
 *
 * @example
 * ```ts
 * import { createPolicy, DEFAULT_POLICY_RULES } from "./lib/policy/mod.ts";
 * const policy = createPolicy(DEFAULT_POLICY_RULES);
 * const verdict = await policy.checkLine("sudo rm -rf /", { cwd: "/tmp", env: { HOME: "/root" } });
 * verdict.decision; // "ask"
 * ```
 * @module
 */

export { createPolicy } from "./engine.ts";
export { allowsEverything, DEFAULT_POLICY_RULES, POLICY_OFF } from "./defaults.ts";
export { loadShellParser } from "./parser.ts";
export type * from "./types.ts";
export { PolicyError } from "./errors.ts";
