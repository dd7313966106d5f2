/**
 * File access rules: a path may be read (written) when it matches one of the
 * `read` (`write`) globs. Paths are made absolute against the working
 * directory and resolved the way the kernel would open them: each existing
 * component through its symlinks, `..` after that, so neither a link nor `..`
 * leads outside the globs. A file that does not exist yet is judged by where
 * its existing parent really is.
 * @module
 */

import { readlinkSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import picomatch from "picomatch";
import type { PathVerdict, PolicyContext } from "./types.ts";

/** A compiled glob list; each glob keeps the text it was written as. */
export interface PathRules {
  globs: string[];
}

/**
 * Checks `path` against `globs` (`undefined`: no globs configured, everything allowed).
 * @param kind "read" or "write", for the messages
 */
export function checkPath(
  kind: "read" | "write",
  path: string,
  globs: string[] | undefined,
  context: PolicyContext,
): PathVerdict {
  const home = context.env.HOME ?? "/";
  const real = realPath(absolute(context.cwd, expandTilde(path, home)));
  if (globs === undefined) {
    return { decision: "allow", path: real, rule: null, reason: `no ${kind} globs are configured` };
  }
  // A `..` left in `real` follows a directory that is not there: opening it fails as the
  // kernel's would; the globs judge where it would lead if that directory appeared.
  const judged = real.split("/").includes("..") ? resolve(real) : real;
  for (const glob of globs) {
    if (matcher(expandGlob(glob, context.cwd, home))(judged)) {
      return {
        decision: "allow",
        path: real,
        rule: glob,
        reason: `${JSON.stringify(real)} matches ${kind} glob "${glob}"`,
      };
    }
  }
  const listed = globs.length === 0 ? "(none)" : globs.map((g) => `"${g}"`).join(", ");
  return {
    decision: "deny",
    path: real,
    rule: null,
    reason: `${JSON.stringify(real)} matches none of the ${kind} globs: ${listed}`,
  };
}

const matchers = new Map<string, (path: string) => boolean>();

function matcher(glob: string): (path: string) => boolean {
  const known = matchers.get(glob);
  if (known !== undefined) return known;
  // "s": every character of a name is a name character, a newline too (picomatch's `.`).
  const match: (path: string) => boolean = picomatch(glob, { dot: true, flags: "s" });
  if (matchers.size > 500) matchers.clear();
  matchers.set(glob, match);
  return match;
}

function expandTilde(path: string, home: string): string {
  return path === "~" || path.startsWith("~/") ? home + path.slice(1) : path;
}

/** Characters that mean something in a glob, escaped when a directory name is put into one. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}()!+@\\]/g, "\\$&");
}

/** A glob with `~` and `${cwd}` expanded and its literal leading directories resolved like paths. */
export function expandGlob(glob: string, cwd: string, home: string): string {
  let text = glob.replaceAll("${cwd}", escapeGlob(cwd));
  if (text === "~" || text.startsWith("~/")) text = escapeGlob(home) + text.slice(1);
  if (!text.startsWith("/")) text = `${escapeGlob(cwd)}/${text}`;
  // Resolve the part before the first glob character, so `/tmp/**` works where /tmp is a link.
  const parts = text.split("/");
  const magic = parts.findIndex((part) => /[*?[\]{}()!+@\\]/.test(part));
  const literal = magic < 0 ? parts.length : magic;
  if (literal <= 1) return text;
  const prefix = realPath(parts.slice(0, literal).join("/") || "/");
  const rest = parts.slice(literal);
  return rest.length === 0
    ? escapeGlob(prefix)
    : `${escapeGlob(prefix).replace(/\/$/, "")}/${rest.join("/")}`;
}

/**
 * `path` made absolute against `cwd` without touching its `..`: `LINK/..` is
 * the link target's parent, which only {@linkcode realPath} can know
 * (`path.resolve` would drop `LINK/..` as text).
 */
export function absolute(cwd: string, path: string): string {
  return path.startsWith("/") ? path : `${cwd}/${path}`;
}

/**
 * `path` (absolute) as the kernel would open it: every existing component
 * through its symlinks, `..` applied to the real directory (after a
 * component that is not a directory, or one that does not exist, the rest
 * is kept as written, `..` included, so opening it fails as the kernel's
 * would); components that do not exist are appended as written.
 */
export function realPath(path: string, links = 0): string {
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  let current = "/";
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part === "..") {
      if (!isDirectory(current)) return unresolved(current, parts.slice(i));
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    try {
      current = realpathSync(next);
    } catch {
      // A link to something that does not exist yet: writing through it creates its target.
      const target = readLinkOrNull(next);
      if (target !== null && links < MAX_LINKS) {
        const rest = parts.slice(i + 1).join("/");
        const followed = target.startsWith("/") ? target : `${current}/${target}`;
        return realPath(rest === "" ? followed : `${followed}/${rest}`, links + 1);
      }
      // Not there (or not reachable): nothing below it can be a link yet.
      return unresolved(next, parts.slice(i + 1));
    }
  }
  return current;
}

/** `rest` appended to `base` as written; normalised only when it holds no `..`. */
function unresolved(base: string, rest: string[]): string {
  if (!rest.includes("..")) return resolve(base, ...rest);
  return [base.replace(/\/$/, ""), ...rest].join("/");
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Links followed in one path before giving up, as the kernel's ELOOP. */
const MAX_LINKS = 40;

function readLinkOrNull(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null; // Not a link (or not there at all).
  }
}
