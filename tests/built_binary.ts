/**
 * Whether the compiled binary is current, for the tests and benchmarks that
 * run it when it is and the sources otherwise.
 * @module
 */

import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The newest modification time of the `.ts` files under `dir`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Whether the compiled `binary` exists and is newer than every source file of
 * the repository at `root` (main.ts and lib/): an older one runs old code.
 */
export function isBinaryCurrent(root: string, binary: string): boolean {
  if (!existsSync(binary)) return false;
  const sources = Math.max(
    newestSource(join(root, "lib")),
    statSync(join(root, "main.ts")).mtimeMs,
  );
  return statSync(binary).mtimeMs >= sources;
}
