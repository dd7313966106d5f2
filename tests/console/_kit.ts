/**
 * Set-up of the console tests: a console context over a real session
 * manager whose shells get an empty temporary HOME, always cleaned up.
 * @module
 */

import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StepResult } from "../../lib/console/command.ts";
import { ConsoleContext } from "../../lib/console/context.ts";
import { runCommand } from "../../lib/console/executor.ts";
import { SessionManager } from "../../lib/sessions/manager.ts";

/** Makes a temporary directory (its real path: /tmp may be a link). */
export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** What a test body gets. */
export interface ConsoleKit {
  ctx: ConsoleContext;
  /** A fresh directory: HOME and working directory of the sessions. */
  home: string;
  /** Runs a line that must not be blank. */
  run(line: string, signal?: AbortSignal): Promise<StepResult>;
  /** Runs a line that must succeed. */
  ok(line: string): Promise<StepResult>;
  /** Runs a line that must fail; returns its error message. */
  fails(line: string): Promise<string>;
}

/** Runs `body` with a console context; every session is closed afterwards. */
export async function withConsole(
  body: (kit: ConsoleKit) => Promise<void>,
  mode: "repl" | "script" = "script",
): Promise<void> {
  const home = tempDir("termbridge-console-test-");
  const sessions = new SessionManager({
    env: { HOME: home, HISTFILE: "/dev/null" },
    cwd: home,
    program: ["bash"],
  });
  const ctx = new ConsoleContext({ sessions, mode, cwd: home, timeouts: { wait: 15_000 } });
  const run = async (line: string, signal?: AbortSignal) => {
    const result = await runCommand(ctx, line, { signal });
    assert.ok(result !== null, `${JSON.stringify(line)} was read as blank`);
    return result;
  };
  const ok = async (line: string) => {
    const result = await run(line);
    assert.equal(result.error, undefined, `${line} failed`);
    assert.equal(result.ok, true);
    return result;
  };
  const fails = async (line: string) => {
    const result = await run(line);
    assert.equal(result.ok, false, `${line} succeeded: ${result.output}`);
    return result.error ?? "";
  };
  try {
    await body({ ctx, home, run, ok, fails });
  } finally {
    await sessions.closeAll();
    rmSync(home, { recursive: true, force: true });
  }
}
