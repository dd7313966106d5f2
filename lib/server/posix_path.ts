/**
 * The few POSIX path operations the server's short-lived commands need, so
 * that they do not load node:path (a few ms of CPU at every start of the
 * compiled binary: bench/RESULTS.md, issue 16). Unlike node:path, a trailing
 * slash is never kept.
 * @module
 */

/** `path` with `.`, `..` and repeated slashes resolved ("." for an empty relative path). */
export function normalize(path: string): string {
  const absolute = path.startsWith("/");
  const kept: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") kept.push(part);
    else if (kept.length > 0 && kept.at(-1) !== "..") kept.pop();
    else if (!absolute) kept.push(".."); // Above the root there is nothing: "/.." is "/".
  }
  const joined = kept.join("/");
  return absolute ? `/${joined}` : joined === "" ? "." : joined;
}

/** The parts joined with "/" and normalized. */
export function join(...parts: string[]): string {
  return normalize(parts.filter((part) => part !== "").join("/"));
}

/** `path` made absolute against `cwd`, normalized. */
export function resolve(path: string, cwd: string): string {
  return normalize(path.startsWith("/") ? path : `${cwd}/${path}`);
}

/** The directory part of `path` ("/" for the root, "." for a bare name). */
export function dirname(path: string): string {
  const trimmed = path.replace(/(?<=.)\/+$/, "");
  const at = trimmed.lastIndexOf("/");
  if (at === -1) return ".";
  return trimmed.slice(0, at).replace(/(?<=.)\/+$/, "") || "/";
}

/** The last part of `path`. */
export function basename(path: string): string {
  const trimmed = path.replace(/(?<=.)\/+$/, "");
  return trimmed === "/" ? "" : trimmed.slice(trimmed.lastIndexOf("/") + 1);
}
