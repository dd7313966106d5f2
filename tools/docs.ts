/**
 * Writes termbridge's shell completions and man page, generated from the help
 * texts of a built binary, so that they match what that binary accepts.
 *
 *     node_modules/.bin/bun tools/docs.ts dist/termbridge dist/share
 *
 * Writes `termbridge.bash`, `_termbridge` (zsh), `termbridge.fish` and
 * `termbridge.1` into the output directory. `make docs` and `make install`
 * run it.
 * @module
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";
import { bashCompletion, fishCompletion, manPage, zshCompletion } from "../lib/cli/docs.ts";
import { type CliSpec, modeSpec, parseKeys, parseModes } from "../lib/cli/help_spec.ts";

/** What `binary ARGS` prints on stdout; throws with its stderr when it fails. */
function helpOf(binary: string, args: string[]): string {
  return execFileSync(binary, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Reads every help text of `binary`. */
export function readSpec(binary: string): CliSpec {
  const help = helpOf(binary, ["--help"]);
  const version = helpOf(binary, ["--version"]).split(/\s+/)[1] ?? "";
  const tagline = help.split("\n")[0].replace(/^termbridge [^:]*:\s*/, "");
  const modes = parseModes(help).map(({ name, summary }) =>
    modeSpec(name, summary, helpOf(binary, [name, "--help"]))
  );
  const keys = parseKeys(helpOf(binary, ["help", "keys"]));
  return { version, tagline, help, modes, keys };
}

/** The files written, by name. */
export function generate(spec: CliSpec): Record<string, string> {
  return {
    "termbridge.bash": bashCompletion(spec),
    "_termbridge": zshCompletion(spec),
    "termbridge.fish": fishCompletion(spec),
    "termbridge.1": manPage(spec),
  };
}

if (import.meta.main) {
  const [binary, out] = process.argv.slice(2);
  if (binary === undefined || out === undefined) {
    console.error("Usage: tools/docs.ts BINARY OUTDIR");
    process.exit(2);
  }
  const spec = readSpec(resolve(binary));
  mkdirSync(out, { recursive: true });
  for (const [name, text] of Object.entries(generate(spec))) writeFileSync(join(out, name), text);
  console.error(`docs: ${spec.modes.map((mode) => mode.name).join(", ")} -> ${out}`);
}
