/**
 * Programs a deny or ask rule names, found among another command's
 * arguments or in the values a line sets: the general rule for programs that
 * run their arguments (`setpriv touch`, `valgrind /usr/bin/tou?h`,
 * `run-parts /usr/bin`), asked about because what they run is not known.
 * Wrappers termbridge knows are looked through instead (`wrappers.ts`): only
 * their own options' values are looked at here (`ltrace -F /usr/bin/touch`).
 * @module
 */

import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve as resolvePath } from "node:path";
import type { Analysed, Analysis } from "./analysis_types.ts";
import { globBasename, globsOverlap, substitutions, wordAsGlob } from "./glob_names.ts";
import { pathOf } from "./path_writes.ts";
import { isBuiltin, programNames, realFile } from "./resolve.ts";
import { linkedArgument, programsIn } from "./linked_arguments.ts";
import { type CompiledRule, matchRule, type RuleIndex } from "./rules.ts";
import type { Decision, PolicyContext, RuleMatch } from "./types.ts";
import { isWrapper, ownWordsEnd } from "./wrappers.ts";

/** What a line is judged with: the compiled rules, the context, how unknowns count. */
export interface Judge {
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

/** One verdict: the decision, the rule that gave it and why. */
export interface Judged {
  decision: Decision;
  rule: RuleMatch;
  reason: string;
}

/**
 * Values the line sets or feeds to commands (`t=/usr/bin/touch; valgrind
 * $t`), checked as arguments are: one that names a program a deny or ask rule
 * names is asked about, as an expansion may pass it to a program that runs it.
 */
export function judgeValues(analysis: Analysis, judge: Judge): Judged | null {
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
export function namedInArguments(found: Analysed, judge: Judge, shown: string): Judged | null {
  // A known wrapper: only its own options and their values (what it runs is judged as such).
  const wrapper = found.program.names.find(isWrapper);
  const words = found.words;
  const end = wrapper === undefined ? words.length : ownWordsEnd(words, wrapper);
  for (let i = 1; i < end; i++) {
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
  // A known wrapper's own option values (`env -C DIR`) are not run as directories.
  const wrapper = found.program.names.some(isWrapper);
  const folder = wrapper ? null : holdsNamed(found, text, judge);
  if (folder !== null) {
    return decided(
      "ask",
      folder,
      `${shown} has "${text}" among its arguments, the directory of a program ${folder.list} rule "${folder.pattern}" names: a program that runs what a directory holds would run it`,
    );
  }
  // A link (`./ls2` -> touch) or a directory holding one (`run-parts d`): by what it leads to.
  const linked = isBuiltin(found.words[0].text) ? null : linkedArgument(text, judge.context.cwd);
  if (linked?.kind === "dir" && !wrapper) {
    const held = holdsLinked(linked.path, text, judge, shown);
    if (held !== null) return held;
  }
  const name = text.slice(text.lastIndexOf("/") + 1) || text;
  const names = linked?.kind === "link" ? [name, basename(linked.real)] : [name];
  if (!names.some((n) => judge.named.mayName(n))) return null;
  const rules = judge.named.candidates(names);
  if (rules.length === 0) return null;
  // A link the working directory holds is that file, whatever PATH holds under its name.
  const program = programNames(
    linked?.kind === "link" && !text.includes("/") ? `./${text}` : text,
    {
      cwd: judge.context.cwd,
      path: judge.context.env.PATH ?? "/usr/bin:/bin",
    },
  );
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
 * A directory among the arguments holding a program a deny or ask rule names
 * under its name or through a link (`run-parts d`, d/ls2 -> touch): asked about.
 */
function holdsLinked(dir: string, text: string, judge: Judge, shown: string): Judged | null {
  for (const program of programsIn(dir, (name) => judge.named.mayName(name))) {
    const words = [{ text: program.paths[0], dynamic: false }];
    for (const rule of judge.named.candidates(program.names)) {
      if (matchRule(rule, program, words, { home: judge.home, open: true }) === "no") continue;
      return decided(
        "ask",
        rule,
        `${shown} has "${text}" among its arguments, a directory holding "${
          program.names.at(-1)
        }", which ${rule.list} rule "${rule.pattern}" names: a program that runs what a directory holds would run it`,
      );
    }
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
export class FolderCache extends Map<string, { at: number; folders: Map<string, CompiledRule> }> {}

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
  if (pathLike && !isBuiltin(found.words[0].text) && !found.program.names.some(isWrapper)) {
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

/** `text` with glob characters escaped, to compare as a literal path. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

/** A verdict given by `rule`. */
export function decided(decision: Decision, rule: CompiledRule, reason: string): Judged {
  return { decision, rule: { list: rule.list, pattern: rule.pattern }, reason };
}

/** Where a command stands in the line, for a reason: ` (inside env > bash -c)`. */
export function where(via: string[]): string {
  return via.length === 0 ? "" : ` (inside ${via.join(" > ")})`;
}
