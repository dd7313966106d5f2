/**
 * What a repository's own `termbridge.jsonc` may set: only what tightens
 * (more deny/ask rules, narrower read/write globs, lower limits, a stricter
 * sandbox), unless the user's config trusts its directory.
 * @module
 */

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { LIMIT_DEFAULTS, PATH_DEFAULTS, SANDBOX_DEFAULTS } from "./schema.ts";

/** `~` and `~/...` as the user's home directory. */
export function expandHome(path: string, home: string): string {
  return path === "~" ? home : path.startsWith("~/") ? home + path.slice(1) : path;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path; // A directory that does not exist cannot be a symlink either.
  }
}

/** Whether `dir` is one of the `trust` directories or below one. */
export function isTrusted(dir: string, trust: string[], home: string): boolean {
  const here = real(resolve(dir));
  return trust.some((entry) => {
    const trusted = real(resolve(expandHome(entry, home)));
    return here === trusted || here.startsWith(trusted.endsWith("/") ? trusted : `${trusted}/`);
  });
}

const DECISION_RANK: Record<string, number> = { allow: 0, ask: 1, deny: 2 };
const SANDBOX_RANK: Record<string, number> = { off: 0, "workspace-write": 1, "read-only": 2 };

/** Whether every path `glob` matches is also matched by `wider` (conservatively). */
function within(glob: string, wider: string): boolean {
  if (glob === wider) return true;
  if (glob.split("/").includes("..") || !wider.endsWith("/**")) return false;
  // Everything absolute is under "/**", the working directory too.
  if (wider === "/**") {
    return glob.startsWith("/") || glob.startsWith("${cwd}/") || glob === "${cwd}";
  }
  const base = wider.slice(0, -3);
  return glob === base || glob.startsWith(`${base}/`);
}

/** A limit where 0 means none: lower is tighter, and 0 is the loosest. */
function lowerLimit(value: number, current: number): boolean {
  return value > 0 && (current === 0 || value <= current);
}

/**
 * Whether a repository's `value` for the key `name` only tightens what is in
 * force (`current`, or the default when undefined).
 */
export function tightens(name: string, value: unknown, current: unknown, home: string): boolean {
  const [section, key] = name.split(".");
  switch (section) {
    case "cols":
    case "rows":
    case "scrollback":
    case "idleTimeout":
    case "shellStartTimeout":
    case "webAskTimeout":
    case "mcpResultLimit":
      return true; // Display and housekeeping: nothing runs, nothing widens.
    case "readOnly":
      return value === true;
    case "maxSessions":
      return (value as number) <= ((current as number | undefined) ?? 16);
    case "outputLimit":
    case "maxReadBytes":
      return (value as number) <= ((current as number | undefined) ?? 16 * 1024 * 1024);
    case "limits":
      return lowerLimit(
        value as number,
        (current as number | undefined) ?? LIMIT_DEFAULTS[key as keyof typeof LIMIT_DEFAULTS],
      );
    case "sandbox":
      if (key === "agentWrite") {
        // Fewer of the paths in force, never others.
        const allowed = (current as string[] | undefined) ?? SANDBOX_DEFAULTS.agentWrite;
        return (value as string[]).every((path) =>
          allowed.some((wider) => expandHome(wider, home) === expandHome(path, home))
        );
      }
      return key === "mode"
        ? SANDBOX_RANK[value as string] >=
          SANDBOX_RANK[(current as string | undefined) ?? SANDBOX_DEFAULTS.mode]
        : value === false || current === true;
    case "policy":
      if (key === "deny" || key === "ask") return true;
      if (key === "allow") return (value as string[]).length === 0;
      if (key === "default") {
        return DECISION_RANK[value as string] >= DECISION_RANK[(current as string) ?? "allow"];
      }
      return (value as string[]).every((glob) =>
        ((current as string[] | undefined) ?? PATH_DEFAULTS[key as "read" | "write"]).some(
          (wider) => within(expandHome(glob, home), expandHome(wider, home)),
        )
      );
    default:
      return false; // shell, env, record, cwd, audit.path: they run code or choose paths.
  }
}
