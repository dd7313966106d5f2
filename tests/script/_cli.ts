/**
 * Running termbridge itself (from source, with the runtime running the
 * tests) as a child process, for the end-to-end tests of `run`.
 * @module
 */

import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { isBinaryCurrent } from "../built_binary.ts";
import { termbridgeArgv } from "../helpers.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/**
 * Argv of the termbridge a user runs: `$TERMBRIDGE_BIN` when set, else the
 * compiled `dist/termbridge` when it is newer than every source file (`make
 * build`), else this runtime running main.ts (an older binary would test old
 * code).
 */
export function builtArgv(): string[] {
  const override = runtime.env().TERMBRIDGE_BIN;
  if (override) return [override];
  const binary = join(ROOT, "dist", "termbridge");
  return isBinaryCurrent(ROOT, binary) ? [binary] : termbridgeArgv();
}

/** How a run of termbridge ended. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** An environment whose shells read no start-up files of the person running the tests. */
export function testEnv(home: string): Record<string, string> {
  return {
    ...runtime.env(),
    HOME: home,
    XDG_STATE_HOME: join(home, ".state"),
    HISTFILE: "/dev/null",
    SHELL: "bash",
    NO_COLOR: "1",
  };
}

/**
 * Runs `termbridge ARGS` in `cwd`, feeding `stdin`, and collects what it
 * printed; with `built`, the compiled binary (see {@linkcode builtArgv}).
 */
export async function termbridge(
  args: string[],
  options: { cwd: string; stdin?: string; env?: Record<string, string>; built?: boolean },
): Promise<CliResult> {
  const child = runtime.spawnPiped({
    argv: [...(options.built ? builtArgv() : termbridgeArgv()), ...args],
    cwd: options.cwd,
    env: options.env ?? testEnv(options.cwd),
    stderr: "pipe",
  });
  const writer = child.stdin.getWriter();
  if (options.stdin !== undefined) await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr!).text(),
    child.exited,
  ]);
  return { code: status.exitCode, stdout, stderr };
}

/** Runs `body` in a fresh directory that is removed afterwards. */
export async function inTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "termbridge-script-test-")));
  try {
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
