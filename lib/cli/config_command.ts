/**
 * `termbridge config`: the effective configuration, and for each value where
 * it came from (default, which file and line, or which flag).
 * @module
 */

import {
  applyFlag,
  DEFAULT_DECISION,
  defaultAuditPath,
  describeSource,
  getSetting,
  LIMIT_DEFAULTS,
  type LoadedConfig,
  PATH_DEFAULTS,
  resolveAuditPath,
  SANDBOX_DEFAULTS,
  SCHEMA,
} from "../config/config.ts";
import { runtime } from "../runtime/mod.ts";
import { DEFAULT_POLICY_RULES } from "../policy/mod.ts";
import type { PolicyRules } from "../policy/types.ts";
import { effectiveRules } from "../safety/setup.ts";
import { parseModeArgs } from "./args.ts";
import { SAFETY_OPTIONS, safetyFlags, startSafety } from "./safety_options.ts";

const HELP = `Usage: termbridge config [OPTIONS]

Prints the effective configuration: every key, its value, and where it came
from (default, FILE:LINE of the user's or the repository's termbridge.jsonc,
or a flag). The files are $XDG_CONFIG_HOME/termbridge/termbridge.jsonc (the
user's), then ./termbridge.jsonc (the repository's: it may only tighten unless
the user's "trust" lists its directory) or the --config FILE.

Options:
  --json                 print one JSON object instead
  --config FILE          read FILE instead of ./termbridge.jsonc (trusted)
  --audit FILE           as the modes' --audit
  --no-audit             as the modes' --no-audit
  --policy off           show the policy without the shipped default rules
  -h, --help             show this help
`;

/** Defaults of the keys that have one, by key path. */
function defaults(env: Record<string, string>): Record<string, unknown> {
  return {
    cols: 120,
    rows: 40,
    scrollback: 1000,
    maxSessions: 16,
    idleTimeout: 0,
    shellStartTimeout: 10,
    webAskTimeout: 120, // ASK_MS of lib/web/asks.ts, a layer above this one.
    readOnly: false,
    outputLimit: 16 * 1024 * 1024,
    // The defaults of lib/service/text_files.ts and lib/mcp/result_size.ts (layers above this one;
    // tests/server/commands_more.test.ts compares them).
    maxReadBytes: 16 * 1024 * 1024,
    mcpResultLimit: 100_000,
    "policy.default": DEFAULT_DECISION,
    "policy.allow": [],
    "policy.ask": [],
    "policy.deny": [],
    "policy.read": PATH_DEFAULTS.read,
    "policy.write": PATH_DEFAULTS.write,
    ...Object.fromEntries(Object.entries(LIMIT_DEFAULTS).map(([k, v]) => [`limits.${k}`, v])),
    ...Object.fromEntries(Object.entries(SANDBOX_DEFAULTS).map(([k, v]) => [`sandbox.${k}`, v])),
    "audit.path": defaultAuditPath(env),
    trust: [],
  };
}

/** One row: a key, its value, where it came from. */
interface Row {
  key: string;
  value: unknown;
  source: string;
}

/** Every key of the schema with its effective value and source. */
function configRows(loaded: LoadedConfig, env: Record<string, string>): Row[] {
  const fallback = defaults(env);
  const keys = Object.entries(SCHEMA).flatMap(([key, check]) =>
    typeof check === "function" ? [key] : Object.keys(check).map((inner) => `${key}.${inner}`)
  );
  return keys.map((key) => {
    const value = getSetting(loaded.config, key.split("."));
    const sources = loaded.sources[key];
    return {
      key,
      value: value ?? fallback[key] ?? null,
      source: sources === undefined ? "default" : sources.map(describeSource).join(", "),
    };
  });
}

/** Runs `termbridge config`. */
export async function configMain(args: string[]): Promise<number> {
  const { values } = parseModeArgs("config", args, {
    json: { type: "boolean" },
    ...SAFETY_OPTIONS,
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    await runtime.writeStdout(HELP);
    return 0;
  }
  const flags = safetyFlags("config", values);
  const safety = await startSafety("cli", { ...values, audit: undefined, "no-audit": true });
  safety.close();
  const { loaded } = safety;
  applyFlag(loaded, "audit.path", flags.audit, "--audit");
  const env = runtime.env();
  const rows = configRows(loaded, env);
  const audit = flags.noAudit
    ? null
    : resolveAuditPath(loaded.config.audit?.path, env, runtime.cwd());
  const policy = effectiveRules(loaded, flags.policyOff === true);
  if (values.json) {
    await runtime.writeStdout(
      JSON.stringify(
        {
          files: loaded.files,
          warnings: loaded.warnings,
          settings: Object.fromEntries(
            rows.map((r) => [r.key, { value: r.value, source: r.source }]),
          ),
          effectivePolicy: policy,
          audit,
        },
        null,
        2,
      ) + "\n",
    );
    return 0;
  }
  const files = loaded.files.map((f) => `${f.path} (${f.role})`).join(", ") || "none";
  const width = Math.max(...rows.map((r) => r.key.length)) + 2;
  const lines = rows.map((r) => {
    const value = r.value === null
      ? r.key === "shell" ? "($SHELL, else bash, else sh)" : "(none)"
      : JSON.stringify(r.value);
    return `${r.key.padEnd(width)}${value.padEnd(32)} ${r.source}`;
  });
  const rules = policy === null
    ? "none (--policy off and no rules configured)"
    : policySummary(policy, flags.policyOff === true);
  await runtime.writeStdout(
    `Files: ${files}\n\n${lines.join("\n")}\n\nPolicy in force (with the shipped rules${
      flags.policyOff ? " turned off" : ""
    }): ${rules}\nAudit log: ${audit ?? "none (--no-audit)"}\n`,
  );
  return 0;
}

/**
 * The policy in force as one readable line: the configured rules in full, the
 * shipped ones (hundreds of spellings of a few destructive commands) counted.
 */
function policySummary(policy: PolicyRules, policyOff: boolean): string {
  const list = (name: "allow" | "ask" | "deny") => {
    const shipped = new Set(policyOff ? [] : DEFAULT_POLICY_RULES[name] ?? []);
    const own = (policy[name] ?? []).filter((rule) => !shipped.has(rule));
    const count = (policy[name] ?? []).length - own.length;
    const ownText = own.length > 0 ? JSON.stringify(own) : count > 0 ? "" : "[]";
    const shippedText = count > 0 ? `the ${count} shipped rules` : "";
    return `${name} ${[ownText, shippedText].filter(Boolean).join(" + ")}`;
  };
  return `default ${policy.default}; ${list("allow")}; ${list("ask")}; ${list("deny")}` +
    (policyOff ? "" : ' ("termbridge config --json" lists every rule)');
}
