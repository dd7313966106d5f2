/**
 * Shared set-up of the session tests: a session manager whose shells run
 * with a temporary, empty HOME (so that the user's own ~/.bashrc cannot
 * change prompts or hooks), always closed and cleaned up afterwards.
 * @module
 */

import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "../../lib/sessions/manager.ts";
import type { Session, SessionOptions } from "../../lib/sessions/session.ts";

/**
 * Longest wait of one step. Generous for two busy cores, yet under the 5 s
 * that `bun test` gives each test (bunfig's `timeout` is not applied to
 * node:test tests): a step that times out fails with the screen it saw
 * instead of being cut off by the runner.
 */
export const TIMEOUT_MS = 4_000;

/** What a test body receives. */
export interface Kit {
  manager: SessionManager;
  /** A fresh directory, used as HOME of every session; removed afterwards. */
  home: string;
  /** Opens a bash session (or `program`) in `home`. */
  open(name: string, options?: Partial<SessionOptions>): Promise<Session>;
}

/** Makes a temporary directory (its real path: /tmp may be a link) that `remove` deletes. */
export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/**
 * Runs `body` with a session manager whose sessions get an empty temporary
 * HOME and no history file; every session is closed and the directory
 * removed afterwards, whatever happens.
 */
export async function withSessions(
  body: (kit: Kit) => Promise<void>,
  options: { maxSessions?: number } = {},
): Promise<void> {
  const home = tempDir("termbridge-sessions-test-");
  const manager = new SessionManager({
    env: { HOME: home, HISTFILE: "/dev/null" },
    cwd: home,
    maxSessions: options.maxSessions,
  });
  const open = (name: string, extra: Partial<SessionOptions> = {}) =>
    manager.open({ program: ["bash"], ...extra, name });
  try {
    await body({ manager, home, open });
  } finally {
    await manager.closeAll();
    rmSync(home, { recursive: true, force: true });
  }
}
