/**
 * Files a line may write before it runs a program, where that changes what
 * the program is: names are looked up on PATH when the line is checked, so a
 * line that first puts a file into a writable directory on PATH (`ln -s ...
 * ~/bin/ls; ls`, `printf ... > ~/bin/ls`) runs something else by that name;
 * a program run by path that the line also names as a file (`printf ... >
 * ./x; ./x`) may be rewritten first.
 * @module
 */

import { accessSync, constants, realpathSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { Analysed, Analysis } from "./analysis_types.ts";
import { globsOverlap, wordAsGlob } from "./glob_names.ts";
import type { SyntaxNode } from "./parser.ts";
import { absolute, realPath } from "./paths.ts";
import { isBuiltin } from "./resolve.ts";
import { type Word, wordOf } from "./words.ts";

/** The words a parsed line writes to by redirection (`> f`, `>> f`, `&> f`, `>| f`, `<> f`). */
export function redirectTargets(root: SyntaxNode, home: string): Word[] {
  const targets: Word[] = [];
  const visit = (node: SyntaxNode) => {
    if (node.type === "file_redirect") {
      const destination = node.childForFieldName("destination");
      if (destination !== null) {
        const operator = node.text.slice(0, destination.startIndex - node.startIndex);
        if (operator.includes(">")) targets.push(wordOf(destination, home));
      }
    }
    for (const child of node.namedChildren) if (child !== null) visit(child);
  };
  visit(root);
  return targets;
}

const TTL_MS = 1000;
const cache = new Map<string, { at: number; dirs: Set<string> }>();

/** The directories on PATH the user may write to, as written (made absolute) and as real paths. */
export function writablePathDirs(path: string, cwd: string, home = ""): Set<string> {
  const key = `${path}\0${cwd}\0${home}`;
  const now = Date.now();
  const known = cache.get(key);
  if (known !== undefined && now - known.at < TTL_MS) return known.dirs;
  const dirs = new Set<string>();
  for (const entry of path.split(":")) {
    const places = [resolve(cwd, entry === "" ? "." : entry)];
    // bash expands a leading `~` in an entry as it searches (`PATH="~/bin:$PATH"`).
    if (home !== "" && /^~(\/|$)/.test(entry)) places.push(home + entry.slice(1));
    for (const dir of places) {
      try {
        accessSync(dir, constants.W_OK);
        dirs.add(dir);
        dirs.add(realpathSync(dir));
      } catch {
        // Not there or not writable: nothing can be put in it.
      }
    }
  }
  if (cache.size > 100) cache.clear();
  cache.set(key, { at: now, dirs });
  return dirs;
}

/** What a whole line writes and runs, for `writeUnknowns`. */
export interface LineWrites {
  /** Every command the line runs. */
  commands: Analysed[];
  /** The files it writes to by redirection. */
  redirected: Word[];
  /** The PATHs the line gives its wrappers' programs (`env PATH=DIR`). */
  givenPaths: Iterable<string>;
}

/**
 * After the whole line: a file it may put into a writable directory on PATH
 * (names were looked up before it runs), or a program it runs by path that
 * it also names as a file (`printf ... > ./x; ./x`), is unknown.
 */
export function writeUnknowns(
  line: LineWrites,
  context: { cwd: string; path: string; home: string },
): Analysis["unknowns"] {
  const unknowns: Analysis["unknowns"] = [];
  const { cwd, home } = context;
  const programs = new Set(line.commands.map((c) => c.words[0]));
  const files = [
    ...line.redirected,
    ...line.commands.flatMap((c) => c.words.slice(1)).filter((w) => !programs.has(w)),
  ];
  const dirs = new Set(writablePathDirs(context.path, cwd, home));
  for (const path of line.givenPaths) {
    for (const dir of writablePathDirs(path, cwd, home)) dirs.add(dir);
  }
  const names = new Set(
    [...programs].filter((w) => !w.dynamic && !w.text.includes("/")).map((w) => w.text),
  );
  const into = files.find((word) => mayWriteInto(word, dirs, names, context));
  if (into !== undefined) {
    unknowns.push({
      reason:
        `the line may put "${into.text}" into a directory on PATH, so a name it runs may be a new file`,
      via: [],
    });
  } else if (line.commands.length > 1 && dirs.has(resolve(cwd))) {
    // In a directory on PATH (`.` in PATH, or ~/bin), any command may create a name (`tar x`).
    const name = [...names].find((n) => !isBuiltin(n));
    if (name !== undefined) {
      unknowns.push({
        reason:
          `the line runs in "${cwd}", a directory on PATH, where its commands may put a file named "${name}" first`,
        via: [],
      });
    }
  }
  // Where the kernel opens each file the line names (`lnk/../x` is beside lnk's target).
  let opened: Set<string> | undefined;
  for (const command of line.commands) {
    const first = command.words[0].text;
    if (!first.includes("/")) continue;
    const path = resolve(cwd, first);
    opened ??= new Set(
      files.filter((word) => !word.dynamic).flatMap((word) => {
        const eq = word.text.indexOf("=");
        const texts = eq >= 0 ? [word.text, word.text.slice(eq + 1)] : [word.text];
        return texts.filter((text) => text !== "").map((text) => realPath(absolute(cwd, text)));
      }),
    );
    const real = command.resolved ?? realPath(absolute(cwd, first));
    if (files.some((word) => namesFile(word, path, cwd)) || opened.has(real)) {
      unknowns.push({
        reason:
          `the line names "${first}" as a file as well as running it, so it may be rewritten first`,
        via: command.via,
      });
    }
  }
  return unknowns;
}

/**
 * Whether `word` (a file argument or a redirection's target) may be one of
 * `dirs`, or a file in one of them named as one of `names` (the names the
 * line runs, looked up before it runs). A word that is a single expansion
 * (`$f`) is not judged: its value is not known.
 */
export function mayWriteInto(
  word: Word,
  dirs: Set<string>,
  names: Set<string>,
  context: { cwd: string; home: string },
): boolean {
  // `env PATH=/usr/bin ls`: directories to search, not a file written.
  if (dirs.size === 0 || word.text.startsWith("PATH=")) return false;
  const cwd = context.cwd;
  // `of=~/bin/ls`, `--output=~/bin/ls`: the value is a file too (bash expands `~` after `=`).
  const texts = [word.text];
  const eq = word.text.indexOf("=");
  if (eq >= 0) texts.push(word.text.slice(eq + 1).replace(/^~(?=\/|$)/, context.home));
  // `-C/usr/local/bin`, `-o/home/u/bin/ls`: a short option's attached value.
  else if (/^-[^-]/.test(word.text) && word.text.includes("/")) {
    texts.push(word.dynamic ? word.text.slice(2) : word.text.slice(word.text.indexOf("/")));
  }
  return texts.some((text) => {
    if (text === "" || /\s/.test(text)) return false;
    if (!word.dynamic) {
      const path = pathOf(cwd, text);
      if (dirs.has(path)) return true;
      if (!names.has(basename(path))) return false;
      const parent = dirname(path);
      if (dirs.has(parent)) return true;
      try {
        return dirs.has(realpathSync(parent));
      } catch {
        return false; // The directory is not there: the file cannot be put in it.
      }
    }
    const pattern = wordAsGlob(text);
    const full = pattern.startsWith("/") || pattern.startsWith("*")
      ? pattern
      : `${escapeGlob(cwd)}/${pattern}`;
    const parent = full.slice(0, full.lastIndexOf("/")) || "/";
    if (pattern === "*") return false; // `$f`: its value is not known here.
    if ([...dirs].some((dir) => globsOverlap(full, escapeGlob(dir)))) return true;
    // `$D/ls`: the directory is the expansion's value, not known here.
    if (parent === "*") return false;
    const base = full.slice(full.lastIndexOf("/") + 1);
    return [...dirs].some((dir) =>
      globsOverlap(parent, escapeGlob(dir)) &&
      [...names].some((name) => globsOverlap(base, escapeGlob(name)))
    );
  });
}

/**
 * `text` made absolute against `cwd` (itself absolute and normal): joined
 * when it is a plain name (most words), resolved otherwise.
 */
export function pathOf(cwd: string, text: string): string {
  if (text.includes("/") || text === "." || text === ".." || !cwd.startsWith("/")) {
    return resolve(cwd, text);
  }
  return cwd === "/" ? `/${text}` : cwd.endsWith("/") ? resolve(cwd, text) : `${cwd}/${text}`;
}

/** Whether the word names the file at `path` (resolved against `cwd`). */
export function namesFile(word: Word, path: string, cwd: string): boolean {
  if (word.dynamic) return false;
  const eq = word.text.indexOf("=");
  return pathOf(cwd, word.text) === path ||
    (eq >= 0 && word.text.length > eq + 1 && pathOf(cwd, word.text.slice(eq + 1)) === path);
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
