/**
 * The directory the safety tests run termbridge in: a marker program on PATH
 * (`marker NAME` creates `ran-NAME`, so a test can tell whether a command
 * ran) and a `termbridge.jsonc`, with HOME and the XDG directories inside it.
 * @module
 */

import { chmodSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { serverEnv, tempDir } from "../mcp/_kit.ts";

/** A fresh workspace with `config` as its termbridge.jsonc; `bin` holds the marker. */
export function markerWorkspace(
  config: unknown,
  prefix: string,
): { dir: string; bin: string; env: Record<string, string> } {
  const dir = realpathSync(tempDir(prefix));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "marker"), `#!/bin/sh\ntouch "${dir}/ran-$1"\n`);
  chmodSync(join(bin, "marker"), 0o755);
  writeFileSync(join(dir, "termbridge.jsonc"), JSON.stringify(config));
  const env = {
    ...serverEnv(),
    PATH: `${bin}:${process.env.PATH}`,
    HOME: dir,
    XDG_STATE_HOME: join(dir, "state"),
    XDG_CONFIG_HOME: join(dir, "config"),
  };
  return { dir, bin, env };
}
