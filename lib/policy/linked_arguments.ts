/**
 * Links among a command's arguments: `perf stat ./ls2 m` runs touch when
 * ls2 is a link to it, and `run-parts d` runs d/ls2. A word is looked up only
 * through its directory's listing (kept a second), so a word that names
 * nothing costs no failed stat (in Deno each builds a thrown error): only
 * words with a `/`, or names the working directory holds, are looked at.
 * @module
 */

import { readdirSync, realpathSync } from "node:fs";
import { basename, dirname } from "node:path";
import { pathOf } from "./path_writes.ts";

/** What a directory entry is. */
type Entry = "link" | "dir" | "other";

const TTL_MS = 1000;
/** Entries read from one directory at most (a larger one is read that far). */
const MAX_ENTRIES = 4096;
/** A directory's listing, with its programs' names and real files once asked for. */
interface Listing {
  at: number;
  entries: Map<string, Entry>;
  programs?: Program[];
}
const listings = new Map<string, Listing>();

/** The entries of `dir` (none when it cannot be read), kept a second. */
function entriesOf(dir: string): Map<string, Entry> {
  return listingOf(dir).entries;
}

function listingOf(dir: string): Listing {
  const now = Date.now();
  const known = listings.get(dir);
  if (known !== undefined && now - known.at < TTL_MS) return known;
  const entries = new Map<string, Entry>();
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entries.size >= MAX_ENTRIES) break;
      const kind = entry.isSymbolicLink() ? "link" : entry.isDirectory() ? "dir" : "other";
      entries.set(entry.name, kind);
    }
  } catch {
    // Not there or not readable: it holds nothing the line can name.
  }
  if (listings.size > 200) listings.clear();
  const listing = { at: now, entries };
  listings.set(dir, listing);
  return listing;
}

/** The real file of a link, or null when it leads nowhere. */
function realOf(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null; // A dangling link.
  }
}

/**
 * What an argument word names on disk, when it is a link or a directory:
 * the link's real file, or the directory's path. Null for anything else, and
 * for a word without `/` that the working directory does not hold.
 */
export function linkedArgument(
  text: string,
  cwd: string,
): { kind: "link"; real: string } | { kind: "dir"; path: string } | null {
  if (text === "" || (!text.includes("/") && !entriesOf(cwd).has(text))) return null;
  const path = pathOf(cwd, text).replace(/(.)\/+$/, "$1");
  const entry = path === "/" ? "dir" : entriesOf(dirname(path)).get(basename(path));
  if (entry === "dir") return { kind: "dir", path };
  if (entry !== "link") return null;
  const real = realOf(path);
  if (real === null) return null;
  // A link to a directory is the directory (its listing is read under its real path).
  return entriesOf(dirname(real)).get(basename(real)) === "dir" || real === "/"
    ? { kind: "dir", path: real }
    : { kind: "link", real };
}

/** A program a directory holds, with the names and paths it is known by. */
interface Program {
  names: string[];
  paths: string[];
  real: string | null;
}

/**
 * The programs a directory holds that a rule may name, each with the names
 * and paths it is known by (a link's real file's too); links are followed
 * once a second per directory.
 * @param mayName whether a rule may name a program called this (true for all when a rule names a path)
 */
export function programsIn(dir: string, mayName: (name: string) => boolean): Program[] {
  const listing = listingOf(dir);
  listing.programs ??= [...listing.entries].filter(([, kind]) => kind !== "dir").map(
    ([name, kind]) => {
      const path = dir === "/" ? `/${name}` : `${dir}/${name}`;
      const real = kind === "link" ? realOf(path) : path;
      const realName = real === null ? name : basename(real);
      return {
        names: realName === name ? [name] : [name, realName],
        paths: real === null || real === path ? [path] : [path, real],
        real,
      };
    },
  );
  return listing.programs.filter((program) => program.names.some(mayName));
}
