/**
 * Interactive bash sessions for the latency and memory sections.
 * @module
 */

import { runtime } from "../lib/runtime/mod.ts";
import { Terminal } from "../lib/terminal/terminal.ts";

/** The prompt as the screen shows it (trailing space trimmed). */
export const PROMPT = "tb$";

/** Argv of an interactive bash without the user's start-up files. */
export const BASH = ["bash", "--norc", "--noprofile", "-i"];

/** An environment for a predictable interactive bash. */
export function bashEnv(): Record<string, string> {
  return { ...runtime.env(), PS1: `${PROMPT} `, PROMPT_COMMAND: "", HISTFILE: "/dev/null" };
}

/**
 * The last visible line of `terminal`, or "". `lines()` keeps trailing spaces
 * the program wrote (bash's prompt ends in one), so they are trimmed here.
 */
function lastLine(terminal: Terminal): string {
  return terminal.lines({ scope: "visible" }).at(-1)?.trimEnd() ?? "";
}

/** Waits until the last visible line is a bare prompt. */
export function waitForPrompt(terminal: Terminal, timeoutMs = 10_000): Promise<true> {
  return terminal.waitFor(
    () => lastLine(terminal) === PROMPT || undefined,
    "the prompt",
    timeoutMs,
  );
}

/** Waits until a visible line is exactly `line`. */
export function waitForLine(terminal: Terminal, line: string, timeoutMs = 10_000): Promise<true> {
  return terminal.waitFor(
    () => terminal.lines({ scope: "visible" }).includes(line) || undefined,
    JSON.stringify(line),
    timeoutMs,
  );
}

/** Starts an interactive bash and waits for its first prompt. */
export async function openBash(timeoutMs = 10_000): Promise<Terminal> {
  const terminal = Terminal.spawn({ argv: BASH, env: bashEnv(), cols: 120, rows: 40 });
  try {
    await waitForPrompt(terminal, timeoutMs);
    return terminal;
  } catch (error) {
    await terminal.dispose();
    throw error;
  }
}

/** Disposes every terminal at once; never throws. */
export async function disposeAll(terminals: Iterable<Terminal>): Promise<void> {
  await Promise.allSettled([...terminals].map((terminal) => terminal.dispose()));
}
