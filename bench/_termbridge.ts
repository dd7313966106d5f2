/**
 * Which termbridge a benchmark starts: the compiled binary, or this runtime
 * running main.ts, with a warning when the binary is older than the sources.
 * @module
 */

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { runtime } from "../lib/runtime/mod.ts";
import { isBinaryCurrent } from "../tests/built_binary.ts";

/** Which termbridge to start: the binary when it exists (`auto`), or one of them. */
export type Preference = "auto" | "binary" | "source";

/**
 * Reads a preference from an environment variable's value (`auto` when unset).
 * @throws {Error} naming the variable for any other value
 */
export function parsePreference(name: string, value: string | undefined): Preference {
  if (value === undefined || value === "") return "auto";
  if (value === "auto" || value === "binary" || value === "source") return value;
  throw new RangeError(`Cannot read ${name}: expected auto, binary or source, got "${value}"`);
}

/** How to start a termbridge mode, and what to call it in the report. */
export interface TermbridgeCommand {
  command: string;
  /** Arguments up to and including the mode's own. */
  args: string[];
  description: string;
  /** A warning for the report (a binary older than the sources), or undefined. */
  warning?: string;
}

/**
 * The command that runs `termbridge MODE...`: `binary` (default path
 * `ROOT/dist/termbridge`), `source` (this runtime running main.ts), or `auto`
 * (the binary when it exists).
 * @throws {Error} when `binary` is asked for and not built
 */
export function termbridgeCommand(
  root: string,
  mode: string[],
  prefer: Preference,
  binaryPath?: string,
): TermbridgeCommand {
  const binary = resolve(binaryPath ?? join(root, "dist", "termbridge"));
  const useBinary = prefer === "binary" || (prefer === "auto" && existsSync(binary));
  if (!useBinary) {
    const main = join(root, "main.ts");
    const args = runtime.name === "deno" ? ["run", "-A", main, ...mode] : [main, ...mode];
    return {
      command: process.execPath,
      args,
      description: `${runtime.name} main.ts ${mode.join(" ")} ` +
        `(from source, ${runtime.name} ${runtime.version})`,
    };
  }
  if (!existsSync(binary)) throw new Error(`Cannot start "${binary}": not built (run make build)`);
  const version = spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout?.trim();
  return {
    command: binary,
    args: mode,
    description: `${binary} ${mode.join(" ")} (compiled binary: ${version || "version unknown"})`,
    warning: isBinaryCurrent(root, binary)
      ? undefined
      : "the binary is older than the sources: run make build for current figures",
  };
}
