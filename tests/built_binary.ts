/**
 * Whether the compiled binary is current, for the tests and benchmarks that
 * run it when it is and the sources otherwise.
 * @module
 */

import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The newest modification time of the files under `dir` (any file: the Makefile's SOURCES). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Whether the compiled `binary` exists and is newer than every source file of
 * the repository at `root` (main.ts, lib/ and package.json): an older one runs old code.
 */
export function isBinaryCurrent(root: string, binary: string): boolean {
  if (!existsSync(binary)) return false;
  const sources = Math.max(
    newestSource(join(root, "lib")),
    statSync(join(root, "main.ts")).mtimeMs,
    statSync(join(root, "package.json")).mtimeMs,
  );
  return statSync(binary).mtimeMs >= sources;
}

/** `dist/termbridge` when it is built and current (`make build`), else undefined. */
export function currentBinary(): string | undefined {
  const binary = join(ROOT, "dist", "termbridge");
  return isBinaryCurrent(ROOT, binary) ? binary : undefined;
}

/** Why a test of the built binary is skipped. */
export const NO_BINARY = "dist/termbridge is missing or older than the sources; `make build` first";
