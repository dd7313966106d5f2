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
import { globsOverlap, wordAsGlob } from "./glob_names.ts";
import type { SyntaxNode } from "./parser.ts";
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
