/**
 * The command and file policy: rules compiled once, then every check of a
 * line, an argv or a path. Deny beats ask beats allow beats the default, and a
 * line gets the strictest verdict of all the programs it runs.
 * @module
 */

import { DEFAULT_POLICY_RULES } from "./defaults.ts";
import { PolicyError } from "./errors.ts";
import { analyseArgv, type Analysed, analyseLine, type Analysis } from "./analyse.ts";
import { loadShellParser } from "./parser.ts";
import { checkPath } from "./paths.ts";
import { type CompiledRule, compileRule, matchRule, RuleIndex } from "./rules.ts";
import { isBuiltin, programNames, realFile } from "./resolve.ts";
import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve as resolvePath } from "node:path";
import { isWrapper } from "./wrappers.ts";
import { globBasename, globsOverlap, substitutions, wordAsGlob } from "./glob_names.ts";
import { pathOf } from "./path_writes.ts";
import type {
  CommandPolicy,
  CommandVerdict,
  Decision,
  PathVerdict,
  PolicyContext,
  PolicyRules,
  RuleMatch,
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
      return judge(analyseLine(parser, line, analysisContext(context)), context);
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
  };
}

interface Judge {
  rules: RuleIndex;
  /** The user's deny and ask rules, for program names among another command's arguments. */
  named: RuleIndex;
  context: PolicyContext;
  fallback: Decision;
  /** Which lines that cannot be read are asked about: all, dangerous shapes only, or none. */
  unknowns: "all" | "shapes" | "none";
  home: string;
  /** The directories holding programs the named rules name, by PATH and cwd. */
  folders: FolderCache;
  /** The values the line gives its plain variables (set when a line is judged). */
  variables?: Map<string, (string | null)[]>;
}

interface Judged {
  decision: Decision;
  rule: RuleMatch;
  reason: string;
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
  return namedInArguments(found, judge, shown) ?? fallback;
}

/**
 * Values the line sets or feeds to commands (`t=/usr/bin/touch; valgrind
 * $t`), checked as arguments are: one that names a program a deny or ask rule
 * names is asked about, as an expansion may pass it to a program that runs it.
 */
function judgeValues(analysis: Analysis, judge: Judge): Judged | null {
  if (analysis.values.length === 0 || judge.fallback !== "allow" || judge.named.size === 0) {
    return null;
  }
  const found: Analysed = {
    words: [{ text: "", dynamic: false }, ...analysis.values],
    via: [],
    program: { names: [], paths: [], real: null },
    open: false,
  };
  return namedInArguments(found, judge, "A value the line sets or reads");
}

/**
 * The general rule for programs that run their arguments (`setpriv`, a loader,
 * a wrapper nobody listed): a word among a command's arguments that a deny or
 * ask rule names, with the words after it, is asked about. Wrappers termbridge
 * knows are looked through instead, so what they run is judged exactly.
 */
function namedInArguments(found: Analysed, judge: Judge, shown: string): Judged | null {
  if (found.program.names.some(isWrapper)) return null;
  const words = found.words;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word.dynamic) {
      const spelled = spelledInArguments(i, found, judge, shown);
      if (spelled !== null) return spelled;
      continue;
    }
    for (const text of argumentTexts(word.text, judge.named)) {
      const named = namedText(text, i, found, judge, shown);
      if (named !== null) return named;
    }
  }
  return null;
}

/**
 * The texts in an argument that may name a program: the word, the value of
 * `-c core.pager=touch` or `--exec=touch`, and a short option's attached value
 * (`-x/usr/bin/touch`, `-xtouch` when a rule names `touch`).
 */
function argumentTexts(text: string, named: RuleIndex): string[] {
  if (text.includes("=")) return [text.slice(text.indexOf("=") + 1)];
  if (!text.startsWith("-") || text.startsWith("--")) return [text];
  if (text.includes("/")) return [text.slice(text.indexOf("/"))];
  const texts: string[] = [];
  for (let at = 2; at < text.length; at++) {
    if (named.hasName(text.slice(at))) texts.push(text.slice(at));
  }
  return texts;
}

/** `text` (an argument, or part of one, at `index`) if it names a program a deny or ask rule names. */
function namedText(
  text: string,
  index: number,
  found: Analysed,
  judge: Judge,
  shown: string,
): Judged | null {
  if (text === "" || text.startsWith("-") || /\s/.test(text)) return null;
  const folder = holdsNamed(found, text, judge);
  if (folder !== null) {
    return decided(
      "ask",
      folder,
      `${shown} has "${text}" among its arguments, the directory of a program ${folder.list} rule "${folder.pattern}" names: a program that runs what a directory holds would run it`,
    );
  }
  const name = text.slice(text.lastIndexOf("/") + 1) || text;
  if (!judge.named.mayName(name)) return null;
  const rules = judge.named.candidates([name]);
  if (rules.length === 0) return null;
  const program = programNames(text, {
    cwd: judge.context.cwd,
    path: judge.context.env.PATH ?? "/usr/bin:/bin",
  });
  const rest = [{ text, dynamic: false }, ...found.words.slice(index + 1)];
  for (const rule of rules) {
    if (matchRule(rule, program, rest, { home: judge.home, open: found.open }) === "no") continue;
    return decided(
      "ask",
      rule,
      `${shown} has "${text}" among its arguments, which ${rule.list} rule "${rule.pattern}" names: a program that runs its arguments would run it`,
    );
  }
  return null;
}

/**
 * The rule naming a program that the directory `text` holds (`run-parts
 * /usr/bin` runs touch), or null when `text` is no such directory.
 */
function holdsNamed(found: Analysed, text: string, judge: Judge): CompiledRule | null {
  // Builtins (`cd /usr/bin`) run nothing a directory holds.
  if (isBuiltin(found.words[0].text)) return null;
  const folders = namedFolders(judge);
  const path = pathOf(judge.context.cwd, text);
  let rule = folders.get(path);
  // A link to the directory under its name (`~/bin` -> /usr/bin) or `.` there; looked up only
  // then, as most words are files or not there at all (a failed lookup costs a thrown error).
  if (rule === undefined && (folderNames(folders).has(basename(path)) || path === "/")) {
    try {
      rule = folders.get(realpathSync(path));
    } catch {
      // Not there: it holds nothing yet.
    }
  }
  return rule ?? null;
}

const names = new WeakMap<Map<string, CompiledRule>, Set<string>>();

/** The last components of `folders` (`bin` for /usr/bin). */
function folderNames(folders: Map<string, CompiledRule>): Set<string> {
  let known = names.get(folders);
  if (known === undefined) {
    known = new Set([...folders.keys()].map((folder) => basename(folder)));
    names.set(folders, known);
  }
  return known;
}

/** The directories holding the programs the user's deny and ask rules name (on PATH, or by path). */
function namedFolders(judge: Judge): Map<string, CompiledRule> {
  const cwd = judge.context.cwd;
  const path = judge.context.env.PATH ?? "/usr/bin:/bin";
  const key = `${path}\0${cwd}\0${judge.home}`;
  const now = Date.now();
  const known = judge.folders.get(key);
  if (known !== undefined && now - known.at < FOLDERS_TTL_MS) return known.folders;
  const folders = new Map<string, CompiledRule>();
  const add = (folder: string, rule: CompiledRule) => {
    if (!folders.has(folder)) folders.set(folder, rule);
  };
  for (const rule of judge.named.all) {
    const first = rule.words[0];
    if (first.path || first.tilde) {
      const spelled = (first.tilde ? judge.home : "") + first.text;
      if (!/[*?[]/.test(dirname(spelled))) add(resolvePath(cwd, dirname(spelled)), rule);
      const real = realFile(resolvePath(cwd, spelled), { cwd, path });
      if (real !== null) add(dirname(real), rule);
      continue;
    }
    if (first.exact === null) continue;
    for (const dir of path.split(":")) {
      const folder = resolvePath(cwd, dir);
      const real = realFile(join(folder, first.exact), { cwd, path });
      if (real === null) continue;
      add(folder, rule);
      add(dirname(real), rule);
    }
  }
  if (judge.folders.size > 100) judge.folders.clear();
  judge.folders.set(key, { at: now, folders });
  return folders;
}

/** How long the directories of named programs are kept (files on PATH rarely move). */
const FOLDERS_TTL_MS = 1000;

/** Directories of named programs, by PATH, cwd and home, with when they were found. */
class FolderCache extends Map<string, { at: number; folders: Map<string, CompiledRule> }> {}

/**
 * A word known only at run time among a command's arguments that could spell
 * a program a deny or ask rule names: a glob whose last component could be
 * its name (`/usr/bin/tou?h`, `t*`), a path-like word with an expansion that
 * could be (`/usr/bin/${t}ch`), or a substitution whose code names it
 * (`"$(command -v touch)"`). Copied or run by a program nobody listed, it
 * would be that program; asked about. `*.txt` or `$HOME/notes` spell none.
 */
function spelledInArguments(
  index: number,
  found: Analysed,
  judge: Judge,
  shown: string,
): Judged | null {
  const word = found.words[index];
  // `--exec=$x`, `-c core.pager=/usr/bin/t*`, `-x/usr/bin/tou?h`: the value may name a program too.
  const text = word.text.includes("=")
    ? word.text.slice(word.text.indexOf("=") + 1)
    : /^-[^-]/.test(word.text) && word.text.includes("/")
    ? word.text.slice(2)
    : word.text;
  if (text === "" || text.startsWith("-")) return null;
  const pattern = word.glob === true ? text : wordAsGlob(text);
  const named = substitutions(text).flatMap((code) => code.split(/[^\w.+-]+/))
    .filter((name) => name !== "" && judge.named.mayName(name));
  // `t=tou; u=ch; valgrind $t$u`: expansions of values the line (or the environment) gives.
  const known = word.glob === true ? [] : expandKnown(text, judge);
  for (const value of known) {
    for (const piece of value.split(/[ \t\n]+/)) {
      const hit = namedText(piece, index, found, judge, shown);
      if (hit !== null) return hit;
    }
  }
  if (known.length > 0) return null;
  // `$(echo tou)ch`, `${x}ch`: text beside an unknown part can still rule names out, or in.
  const spellable = word.glob === true || pattern.includes("/") || /[^*]/.test(pattern);
  if (!spellable && named.length === 0) return null;
  // A glob is relative to the cwd and its `*` never spans a `/`; an expansion may hold a whole path.
  const full =
    (pattern.startsWith("/") || (word.glob !== true && pattern.startsWith("*"))
      ? ""
      : `${escapeGlob(judge.context.cwd)}/`) +
    pattern.replace(/(.)\/+$/, "$1");
  const pathLike = word.glob === true || pattern.includes("/");
  if (pathLike && !isBuiltin(found.words[0].text)) {
    for (const [folder, rule] of namedFolders(judge)) {
      if (!globsOverlap(full, escapeGlob(folder))) {
        continue;
      }
      return decided(
        "ask",
        rule,
        `${shown} has "${word.text}" among its arguments, which could be the directory of a program ${rule.list} rule "${rule.pattern}" names: a program that runs what a directory holds would run it`,
      );
    }
  }
  const name = globBasename(pattern);
  // A path is compared as a path (`build/*` cannot be /usr/bin/touch); a bare word by name, when
  // it has a letter of its own (`tou?h`, `${x}ch`: `ls *` is not taken for `ls touch`).
  const byName = spellable && !pattern.includes("/") && /[^*?[\]]/.test(name);
  const folders = pathLike ? [...namedFolders(judge).keys()].map(escapeGlob) : [];
  for (const rule of judge.named.all) {
    const first = rule.words[0];
    const spelled = (first.tilde ? judge.home : "") + first.text;
    const base = spelled.slice(spelled.lastIndexOf("/") + 1);
    const ruleGlob = first.exact !== null ? escapeGlob(base) : base;
    const paths = first.path || first.tilde
      ? [first.exact !== null ? escapeGlob(spelled) : spelled]
      : folders.map((folder) => `${folder}/${ruleGlob}`);
    const spells = named.some((n) => n === base || globsOverlap(escapeGlob(n), ruleGlob)) ||
      (byName && globsOverlap(name, ruleGlob)) ||
      (spellable && pathLike && paths.some((path) => globsOverlap(full, path)));
    if (!spells) continue;
    const program = { names: [spelled], paths: [spelled], real: null };
    const rest = [{ text: pattern, dynamic: true }, ...found.words.slice(index + 1)];
    if (matchRule(rule, program, rest, { home: judge.home, open: found.open }) === "no") continue;
    return decided(
      "ask",
      rule,
      `${shown} has "${word.text}" among its arguments, which could name what ${rule.list} rule "${rule.pattern}" names: a program that runs or copies its arguments would run it`,
    );
  }
  return null;
}

/** Most texts a word's expansions are tried as. */
const MAX_EXPANSIONS = 16;

/**
 * The texts a word of plain expansions (`$t$u`, `${t}ch`) may become with the
 * values the line gives its variables, or the environment's; none when any
 * part is not known (another expansion, a substitution, a value set at run time).
 */
function expandKnown(text: string, judge: Judge): string[] {
  let texts = [""];
  const parts = text.split(/(\$\{\w+\}|\$\w+)/);
  if (parts.length === 1) return []; // No plain expansion (`${x:=v}` and the like).
  for (const [i, part] of parts.entries()) {
    if (i % 2 === 0) {
      if (/[$`\\]/.test(part)) return [];
      texts = texts.map((t) => t + part);
      continue;
    }
    const name = part.replace(/^\$\{?|\}$/g, "");
    const env = judge.context.env[name];
    const values = judge.variables?.get(name) ?? (env === undefined ? [] : [env]);
    if (values.length === 0 || values.some((v) => v === null)) return [];
    texts = texts.flatMap((t) => values.map((v) => t + v));
    if (texts.length > MAX_EXPANSIONS) return [];
  }
  return texts;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

function decided(decision: Decision, rule: CompiledRule, reason: string): Judged {
  return { decision, rule: { list: rule.list, pattern: rule.pattern }, reason };
}

function where(via: string[]): string {
  return via.length === 0 ? "" : ` (inside ${via.join(" > ")})`;
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
