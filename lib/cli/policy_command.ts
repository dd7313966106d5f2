/**
 * `termbridge policy check`: what the policy says about a command line (or an
 * argv, or a path), with the rule that decided and every simple command found,
 * so people can test their rules. Exit 0 allow, 1 deny, 3 ask.
 * @module
 */

import { ConfigError, loadConfig } from "../config/config.ts";
import { createPolicy, POLICY_OFF, PolicyError } from "../policy/mod.ts";
import type { CommandVerdict, Decision, PathVerdict, PolicyContext } from "../policy/types.ts";
import { effectiveRules } from "../safety/setup.ts";
import { runtime } from "../runtime/mod.ts";
import { directoryOption, parseModeArgs } from "./args.ts";
import { UsageError } from "./usage.ts";

/** The help text of `termbridge policy`. */
export const POLICY_HELP = `Usage: termbridge policy check [OPTIONS] 'COMMAND LINE'
       termbridge policy check [OPTIONS] --argv -- PROGRAM [ARGS...]
       termbridge policy check [OPTIONS] --read PATH | --write PATH

Checks a command line against the command policy, as every mode would before
running it, and prints the verdict, the rule that decided it and each simple
command the line would run (wrappers, sh -c strings and substitutions looked
through). The line is read as bash reads it: termbridge runs command lines
with bash -c. Options in rules match as sets ("rm -rf" also matches
"rm -r -f x" and "rm --recursive --force x"). Nothing is run.

Options:
  --argv            check PROGRAM and ARGS as given (as terminal/create with args)
  --read PATH       check reading PATH against policy.read instead
  --write PATH      check writing PATH against policy.write instead
  --config FILE     the configuration file (default: ./termbridge.jsonc over
                    $XDG_CONFIG_HOME/termbridge/termbridge.jsonc)
  --policy off      leave out the shipped default rules
  --cwd DIR         check as if run in DIR (default: the current directory)
  --json            print the verdict as one JSON object
  -h, --help        show this help

Exit status: 0 allow, 1 deny, 3 ask, 2 bad command line or configuration.
`;

const EXIT: Record<Decision, number> = { allow: 0, deny: 1, ask: 3 };

/** Runs `termbridge policy ARGS`; returns the exit code. */
export async function policyMain(args: string[]): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand === "-h" || subcommand === "--help") {
    await runtime.writeStdout(POLICY_HELP);
    return subcommand === undefined ? 2 : 0;
  }
  if (subcommand !== "check") {
    throw new UsageError(`Unknown policy command "${subcommand}": expected "check"`);
  }
  const { values, positionals } = parseModeArgs("policy check", rest, {
    argv: { type: "boolean" },
    read: { type: "string" },
    write: { type: "string" },
    config: { type: "string" },
    policy: { type: "string" },
    cwd: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  }, true);
  if (values.help) {
    await runtime.writeStdout(POLICY_HELP);
    return 0;
  }
  if (values.policy !== undefined && values.policy !== "off") {
    throw new UsageError(`Cannot use --policy ${JSON.stringify(values.policy)}: expected "off"`);
  }
  const env = runtime.env();
  const cwd = directoryOption("cwd", values.cwd) ?? runtime.cwd();
  const loaded = loadConfig({ explicit: values.config, cwd, env });
  for (const warning of loaded.warnings) {
    await runtime.writeStderr(`termbridge: warning: ${warning}\n`);
  }
  let policy;
  try {
    policy = createPolicy(effectiveRules(loaded, values.policy === "off") ?? POLICY_OFF);
  } catch (error) {
    // A rule the engine cannot read is a configuration error (exit 2), said with its files.
    if (!(error instanceof PolicyError)) throw error;
    const files = loaded.files.map((file) => `"${file.path}"`).join(", ") || "(no file)";
    throw new ConfigError(`${error.message} (policy from ${files})`);
  }
  const context: PolicyContext = { cwd, env };
  const path = values.read ?? values.write;
  if (path !== undefined) {
    if (positionals.length > 0) throw new UsageError("Cannot check a path and a command at once");
    const verdict = values.read !== undefined
      ? policy.checkRead(path, context)
      : policy.checkWrite(path, context);
    await runtime.writeStdout(values.json ? `${JSON.stringify(verdict)}\n` : describePath(verdict));
    return EXIT[verdict.decision];
  }
  if (positionals.length === 0) {
    throw new UsageError("Missing the command line to check: termbridge policy check 'LINE'");
  }
  if (!values.argv && positionals.length > 1) {
    throw new UsageError(
      `Expected one command line in quotes, got ${positionals.length} words (quote the line, or use --argv)`,
    );
  }
  const verdict = values.argv
    ? await policy.checkArgv(positionals, context)
    : await policy.checkLine(positionals[0], context);
  await runtime.writeStdout(values.json ? `${JSON.stringify(verdict)}\n` : describe(verdict));
  return EXIT[verdict.decision];
}

function ruleText(rule: CommandVerdict["rule"]): string {
  if (rule.list === "default") return "the default";
  if (rule.list === "unknown") return "no rule can decide (what runs is not known)";
  return `${rule.list} "${rule.pattern}"`;
}

/** A verdict for people. */
function describe(verdict: CommandVerdict): string {
  const lines = [
    `${verdict.decision}: ${verdict.reason}`,
    `rule: ${ruleText(verdict.rule)}`,
    `commands (${verdict.commands.length}):`,
  ];
  for (const command of verdict.commands) {
    const via = command.via.length > 0 ? `  [via ${command.via.join(" > ")}]` : "";
    const file = command.resolved !== undefined ? `  (${command.resolved})` : "";
    const rule = command.rule !== undefined ? `  <- ${ruleText(command.rule)}` : "";
    const words = command.words.map(quote).join(" ");
    lines.push(`  ${(command.decision ?? "").padEnd(5)} ${words}${via}${file}${rule}`);
  }
  return `${lines.join("\n")}\n`;
}

/** A word as it could be typed back. */
function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

function describePath(verdict: PathVerdict): string {
  return `${verdict.decision}: ${verdict.reason}\npath: ${verdict.path}\n`;
}
