/**
 * The command and file policy: rules compiled once, then every check of a
 * line, an argv or a path. Deny beats ask beats allow beats the default, and a
 * line gets the strictest verdict of all the programs it runs.
 * @module
 */

import { DEFAULT_POLICY_RULES } from "./defaults.ts";
import { PolicyError } from "./errors.ts";
import { analyseArgv, analyseLine } from "./analyse.ts";
import type { Analysed, Analysis } from "./analysis_types.ts";
import { loadShellParser } from "./parser.ts";
import { checkPath } from "./paths.ts";
import { onlyReads } from "./read_only.ts";
import { type CompiledRule, compileRule, matchRule, RuleIndex } from "./rules.ts";
import { readingStateUnknowns } from "./shell_options.ts";
import {
  decided,
  FolderCache,
  type Judge,
  type Judged,
  judgeValues,
  namedInArguments,
  where,
} from "./named_arguments.ts";
import type {
  CommandPolicy,
  CommandVerdict,
  Decision,
  PathVerdict,
  PolicyContext,
  PolicyRules,
  SimpleCommand,
} from "./types.ts";

const RANK: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };
const DECISIONS = new Set(["allow", "ask", "deny"]);
const SHIPPED_ASK: ReadonlySet<string> = new Set(DEFAULT_POLICY_RULES.ask);

/**
 * Builds a policy from the `policy` section of the configuration.
 * @throws {PolicyError} for a rule that cannot be read or a `default` that is not allow, ask or deny
 * @example
 * ```ts
 * const policy = createPolicy({ deny: ["rm -rf"] });
 * const verdict = await policy.checkLine("sudo rm -rf /tmp/x", { cwd: "/", env: {} });
 * verdict.decision; // "deny"
 * ```
 */
export function createPolicy(rules: PolicyRules): CommandPolicy {
  const fallback = rules.default ?? "allow";
  if (!DECISIONS.has(fallback)) {
    throw new PolicyError(
      `Cannot use policy.default ${JSON.stringify(fallback)}: expected "allow", "ask" or "deny"`,
    );
  }
  const compiled: CompiledRule[] = [];
  for (const list of ["deny", "ask", "allow"] as const) {
    for (const pattern of rules[list] ?? []) compiled.push(compileRule(list, pattern));
  }
  const index = new RuleIndex(compiled);
  // The user's deny and ask rules, matched against words inside other commands' arguments.
  const named = new RuleIndex(
    compiled.filter((rule) =>
      rule.list === "deny" || (rule.list === "ask" && !SHIPPED_ASK.has(rule.pattern))
    ),
  );
  // Lines that cannot be read are asked about when the user restricts anything.
  // The shipped rules guard against accidents, not adversaries (that is the
  // sandbox's job): alone they leave `cd sub && ./gradlew` or `make && ./a.out`
  // to run, and ask only about dangerous shapes such as the fork bomb.
  const restrictive = compiled.filter((rule) => rule.list !== "allow");
  const unknowns: Judge["unknowns"] = fallback !== "allow" ||
      restrictive.some((rule) => !SHIPPED_ASK.has(rule.pattern))
    ? "all"
    : restrictive.length > 0
    ? "shapes"
    : "none";
  const folders = new FolderCache();
  const judge = (analysis: Analysis, context: PolicyContext) =>
    verdictOf(analysis, {
      rules: index,
      named,
      fallback,
      unknowns,
      home: context.env.HOME ?? "",
      context,
      folders,
    });
  return {
    async checkLine(line, context) {
      const parser = await loadShellParser();
      const analysis = analyseLine(parser, line, analysisContext(context));
      analysis.unknowns.push(...readingStateUnknowns(line, context.shellState));
      return judge(analysis, context);
    },
    async checkArgv(argv, context) {
      const parser = await loadShellParser();
      return judge(analyseArgv(parser, argv, analysisContext(context)), context);
    },
    checkRead: (path, context) => checkBounded("read", path, rules.read, rules.readWithin, context),
    checkWrite: (path, context) =>
      checkBounded("write", path, rules.write, rules.writeWithin, context),
  };
}

function analysisContext(context: PolicyContext) {
  return {
    cwd: context.cwd,
    path: context.env.PATH ?? "/usr/bin:/bin",
    home: context.env.HOME ?? "",
    aliases: context.aliases,
    globalAliases: context.globalAliases,
    suffixAliases: context.suffixAliases,
    env: context.env,
    shellState: context.shellState,
    shell: context.shellState?.shell,
  };
}

function verdictOf(analysis: Analysis, judge: Judge): CommandVerdict {
  judge.variables = analysis.variables;
  const commands: SimpleCommand[] = [];
  let worst: Judged | null = null;
  for (const found of analysis.commands) {
    const judged = judgeCommand(found, judge);
    const command: SimpleCommand = {
      words: found.words.map((w) => w.text),
      via: found.via,
      decision: judged.decision,
      rule: judged.rule,
    };
    if (found.resolved !== undefined) command.resolved = found.resolved;
    commands.push(command);
    if (worst === null || RANK[judged.decision] > RANK[worst.decision]) worst = judged;
  }
  if (judge.unknowns !== "none") {
    for (const unknown of analysis.unknowns) {
      if (judge.unknowns === "shapes" && unknown.shape !== true) continue;
      const decision: Decision = judge.fallback === "deny" ? "deny" : "ask";
      if (worst === null || RANK[decision] > RANK[worst.decision]) {
        worst = {
          decision,
          rule: { list: "unknown", pattern: "" },
          reason: `${unknown.reason}${where(unknown.via)}`,
        };
      }
    }
  }
  const values = judgeValues(analysis, judge);
  if (values !== null && (worst === null || RANK[values.decision] > RANK[worst.decision])) {
    worst = values;
  }
  worst ??= {
    decision: "allow",
    rule: { list: "default", pattern: "" },
    reason: analysis.unknowns.length > 0
      ? "the policy allows everything"
      : "the line runs no command",
  };
  return { ...worst, commands };
}

function judgeCommand(found: Analysed, judge: Judge): Judged {
  const shown = `"${found.words.map((w) => w.text).join(" ")}"${where(found.via)}`;
  let ask: CompiledRule | null = null;
  let maybe: CompiledRule | null = null;
  let allow: CompiledRule | null = null;
  for (const rule of judge.rules.candidates(found.program.names)) {
    const match = matchRule(rule, found.program, found.words, {
      home: judge.home,
      open: found.open,
    });
    if (match === "no") continue;
    if (match === "maybe") {
      // A word known only at run time could make a deny or ask rule match: ask.
      if (rule.list !== "allow") maybe ??= rule;
    } else if (rule.list === "deny") {
      return decided("deny", rule, `${shown} matches deny rule "${rule.pattern}"`);
    } else if (rule.list === "ask") {
      ask ??= rule;
    } else {
      allow ??= rule;
    }
  }
  if (ask !== null) return decided("ask", ask, `${shown} matches ask rule "${ask.pattern}"`);
  if (maybe !== null) {
    return decided(
      "ask",
      maybe,
      `${shown} could match ${maybe.list} rule "${maybe.pattern}": some of its words are only known when it runs`,
    );
  }
  if (allow !== null) {
    return decided("allow", allow, `${shown} matches allow rule "${allow.pattern}"`);
  }
  const fallback: Judged = {
    decision: judge.fallback,
    rule: { list: "default", pattern: "" },
    reason: `${shown} matches no rule: the default is ${judge.fallback}`,
  };
  if (fallback.decision !== "allow" || judge.named.size === 0) return fallback;
  if (onlyReads(found.program.names, found.words)) return fallback;
  return namedInArguments(found, judge, shown) ?? fallback;
}

/** A path checked against `globs`, and also against `within` when a narrower list is bounded. */
function checkBounded(
  kind: "read" | "write",
  path: string,
  globs: string[] | undefined,
  within: string[] | undefined,
  context: PolicyContext,
): PathVerdict {
  const verdict = checkPath(kind, path, globs, context);
  if (verdict.decision === "deny" || within === undefined) return verdict;
  const bound = checkPath(kind, path, within, context);
  return bound.decision === "deny" ? bound : verdict;
}
