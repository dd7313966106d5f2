/**
 * termbridge's configuration: one JSONC file, `termbridge.jsonc` in the working
 * directory or given with `--config`, over a user-level one in the XDG config
 * directory. Every key is optional; command-line options win over both.
 *
 * A `termbridge.jsonc` found in the working directory belongs to the
 * repository, not the user: it may only tighten (see `./trust.ts`) unless the
 * user's file trusts that directory. Every value keeps where it came from.
 * @module
 */

import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError } from "./errors.ts";
import { type ConfigFile, readConfigFile } from "./file.ts";
import { type Config, PATH_DEFAULTS } from "./schema.ts";
import { expandHome, isTrusted, tightens } from "./trust.ts";

export { ConfigError } from "./errors.ts";
export { readConfigFile } from "./file.ts";
export * from "./schema.ts";

/** Where a value came from. */
export type Source =
  | { kind: "user" | "repository" | "explicit"; file: string; line?: number }
  | { kind: "flag"; flag: string };

/** The effective configuration, where each value came from, and what was ignored. */
export interface LoadedConfig {
  config: Config;
  /** Key path (`"shell"`, `"limits.terminals"`) to its sources, latest last; absent means default. */
  sources: Record<string, Source[]>;
  /** Messages for the user (at most one: the repository settings that were ignored). */
  warnings: string[];
  /** The files read, in order. */
  files: { path: string; role: "user" | "repository" | "explicit" }[];
  /**
   * `policy.read`/`policy.write` as they were before an untrusted repository's
   * config narrowed them: the narrower globs are checked within these too.
   */
  bounds?: { "policy.read"?: string[]; "policy.write"?: string[] };
}

/** Policy lists that add up across files instead of replacing each other. */
const APPENDED = new Set(["policy.allow", "policy.ask", "policy.deny"]);

/** Keys taken from the user's file only. */
const USER_ONLY = new Set(["trust"]);

/** Where the user's own configuration lives. */
export function userConfigPath(env: Record<string, string>): string {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(configHome, "termbridge", "termbridge.jsonc");
}

/** The default audit log: `$XDG_STATE_HOME/termbridge/audit.jsonl`. */
export function defaultAuditPath(env: Record<string, string>): string {
  const stateHome = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  return join(stateHome, "termbridge", "audit.jsonl");
}

/** The value at a key path of a config, if set. */
export function getSetting(config: Config, path: string[]): unknown {
  let value: unknown = config;
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  return value;
}

function setSetting(config: Config, path: string[], value: unknown): void {
  let target = config as Record<string, unknown>;
  for (const key of path.slice(0, -1)) {
    target = (target[key] ??= {}) as Record<string, unknown>;
  }
  target[path[path.length - 1]] = value;
}

/** Every leaf key path of a config (sections are walked one level down). */
function leaves(config: Config): string[][] {
  return Object.entries(config).flatMap(([key, value]) =>
    typeof value === "object" && value !== null && !Array.isArray(value) && key !== "env"
      ? Object.keys(value).map((inner) => [key, inner])
      : [[key]]
  );
}

/**
 * Loads the user-level file (`$XDG_CONFIG_HOME/termbridge/termbridge.jsonc`)
 * and over it `explicit` (from `--config`, which must exist) or else
 * `termbridge.jsonc` in `cwd` when present.
 * @throws {ConfigError} naming file, line and column when a file is invalid
 */
export function loadConfig(
  options: { explicit?: string; cwd: string; env: Record<string, string> },
): LoadedConfig {
  const loaded: LoadedConfig = { config: {}, sources: {}, warnings: [], files: [] };
  const userPath = userConfigPath(options.env);
  const home = options.env.HOME || homedir();
  if (existsSync(userPath)) merge(loaded, readConfigFile(userPath), "user", "", home);
  if (options.explicit !== undefined) {
    const path = resolve(options.cwd, expandHome(options.explicit, home));
    if (!existsSync(path)) throw new ConfigError(`Cannot read config "${path}": no such file`);
    merge(loaded, readConfigFile(path), "explicit", "", home);
  } else {
    const path = join(options.cwd, "termbridge.jsonc");
    if (existsSync(path) && path !== userPath) {
      const trusted = isTrusted(options.cwd, loaded.config.trust ?? [], home);
      const ignored = merge(
        loaded,
        readConfigFile(path),
        "repository",
        trusted ? "" : home,
        home,
      );
      if (ignored.length > 0) {
        loaded.warnings.push(
          `ignoring settings of the repository's config "${path}" that run code or widen access: ${
            ignored.join(", ")
          }. To use them, trust the directory in "${userPath}" ("trust": [${
            JSON.stringify(options.cwd)
          }]) or pass --config ${path}`,
        );
      }
    }
  }
  checkCwd(loaded);
  return loaded;
}

/** Keys holding a path where a leading `~` is the home directory. */
const HOME_PATHS = new Set(["cwd", "record"]);

/**
 * The configured `cwd` must be a directory now, as `--cwd` must: every mode
 * stops at start-up rather than failing each session it opens.
 * @throws {ConfigError} naming the file and line that set it
 */
function checkCwd(loaded: LoadedConfig): void {
  const cwd = loaded.config.cwd;
  if (cwd === undefined) return;
  let isDirectory = false;
  try {
    isDirectory = statSync(cwd).isDirectory();
  } catch {
    // Missing or unreadable: said below.
  }
  if (isDirectory) return;
  const source = loaded.sources.cwd?.at(-1);
  const where = source?.kind === "flag" || source === undefined
    ? {}
    : { file: source.file, line: source.line };
  throw new ConfigError(
    `Invalid config ${describeSource(source).replace(/ \(\w+\)$/, "")}: "cwd" must be an ` +
      `existing directory, not ${JSON.stringify(cwd)}`,
    where,
  );
}

/**
 * Merges one file into `loaded`; returns the key paths it ignored. With
 * `restrictedHome` (the user's home directory) set, the file may only tighten.
 */
function merge(
  loaded: LoadedConfig,
  file: ConfigFile,
  role: "user" | "repository" | "explicit",
  restrictedHome: string,
  home: string,
): string[] {
  loaded.files.push({ path: file.path, role });
  const ignored: string[] = [];
  for (const path of leaves(file.config)) {
    const name = path.join(".");
    const given = getSetting(file.config, path);
    const value = HOME_PATHS.has(name) && typeof given === "string"
      ? expandHome(given, home)
      : given;
    if (USER_ONLY.has(name) && role !== "user") {
      ignored.push(`${name} (user config only)`);
      continue;
    }
    const current = getSetting(loaded.config, path);
    if (restrictedHome !== "" && !tightens(name, value, current, restrictedHome)) {
      ignored.push(name);
      continue;
    }
    if (restrictedHome !== "" && (name === "policy.read" || name === "policy.write")) {
      const key = name === "policy.read" ? "read" : "write";
      loaded.bounds = {
        ...loaded.bounds,
        [name]: (current as string[] | undefined) ?? PATH_DEFAULTS[key],
      };
    }
    const merged = APPENDED.has(name) && Array.isArray(current)
      ? [...current, ...(value as string[])]
      : value;
    setSetting(loaded.config, path, merged);
    const source: Source = { kind: role, file: file.path, line: file.lineOf(path) };
    loaded.sources[name] = APPENDED.has(name) ? [...(loaded.sources[name] ?? []), source] : [
      source,
    ];
  }
  return ignored;
}

/** Records a command-line option's value over the files', with its flag as the source. */
export function applyFlag(loaded: LoadedConfig, path: string, value: unknown, flag: string): void {
  if (value === undefined) return;
  setSetting(loaded.config, path.split("."), value);
  loaded.sources[path] = [{ kind: "flag", flag }];
}

/** A source in words: `default`, `FILE:LINE (user)`, or `--flag`. */
export function describeSource(source: Source | undefined): string {
  if (source === undefined) return "default";
  if (source.kind === "flag") return source.flag;
  return `${source.file}${source.line === undefined ? "" : `:${source.line}`} (${source.kind})`;
}

/** The audit log's file: `configured` (`~` expands, relative to `cwd`) or the default. */
export function resolveAuditPath(
  configured: string | undefined,
  env: Record<string, string>,
  cwd: string,
): string {
  return resolve(cwd, expandHome(configured ?? defaultAuditPath(env), env.HOME || homedir()));
}
