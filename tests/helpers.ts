/**
 * Shared helpers of the tests: terminals that are always disposed.
 * @module
 */

import { readFileSync } from "node:fs";
import { runtime } from "../lib/runtime/mod.ts";
import { Terminal, type TerminalOptions } from "../lib/terminal/terminal.ts";

/** Runs `body` with a new terminal and disposes it afterwards, whatever happens. */
export async function withTerminal<T>(
  options: TerminalOptions,
  body: (terminal: Terminal) => Promise<T>,
): Promise<T> {
  const terminal = Terminal.spawn(options);
  try {
    return await body(terminal);
  } finally {
    await terminal.dispose();
  }
}

/** An environment for a predictable interactive bash. */
export function bashEnv(): Record<string, string> {
  return { ...runtime.env(), PS1: "tb$ ", PROMPT_COMMAND: "", HISTFILE: "/dev/null" };
}

/** Argv of an interactive bash without the user's start-up files. */
export const BASH = ["bash", "--norc", "--noprofile", "-i"];

/** Whether a process is alive: it exists and is not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false; // No such process.
  }
}
