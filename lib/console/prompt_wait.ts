/**
 * `wait prompt` in the console: the prompt is back, and the command the
 * console ran before (if it timed out then) has its result collected, so that
 * `expect-exit` and `expect-output` see how it ended.
 * @module
 */

import type { CommandResult, Session } from "../sessions/session.ts";
import type { WaitResult } from "../sessions/waits.ts";
import { WaitTimeoutError } from "../terminal/errors.ts";

/**
 * Waits until the shell's prompt is back: after a prompt newer than the last
 * Enter the console pressed, with the command the shell ran finished.
 * @throws {WaitTimeoutError} with the screen, after `timeoutMs`
 * @throws the reason of `signal` once it is aborted
 */
export async function waitForPrompt(
  session: Session,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<WaitResult & { collected?: CommandResult }> {
  const started = performance.now();
  const left = () => Math.max(1, timeoutMs - (performance.now() - started));
  const terminal = session.terminal;
  let collected: CommandResult | undefined;
  if (session.running !== null) {
    // A command `exec` started and left running: collect how it ended.
    collected = await session.exec("", left(), signal);
    if (collected.status === "running") {
      throw new WaitTimeoutError("the prompt", timeoutMs, terminal.screenText());
    }
  } else {
    await session.wait({ prompt: true }, left(), signal);
  }
  return {
    elapsedMs: Math.round(performance.now() - started),
    screen: terminal.screenText({ scope: "visible" }),
    ...(collected === undefined ? {} : { collected }),
  };
}
