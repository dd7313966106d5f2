/**
 * Shared helpers of the tests: terminals that are always disposed.
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
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

/**
 * Argv that runs a TypeScript file with the runtime running the tests:
 * `deno run -A FILE` under Deno, `bun FILE` under Bun (the project's own
 * binaries in node_modules/.bin, by absolute path).
 */
export function scriptArgv(path: string): string[] {
  const bin = (name: string) => new URL(`../node_modules/.bin/${name}`, import.meta.url).pathname;
  return runtime.name === "deno" ? [bin("deno"), "run", "-A", path] : [bin("bun"), path];
}

/** Argv that runs termbridge from source (main.ts) with the runtime running the tests. */
export function termbridgeArgv(): string[] {
  return scriptArgv(new URL("../main.ts", import.meta.url).pathname);
}

/**
 * Polls `check` every `intervalMs` until it returns true, for conditions
 * nothing signals (a process gone from /proc).
 * @throws {Error} naming `what` when it is still false after `timeoutMs`
 */
export async function waitUntil(
  check: () => boolean,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 20,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Whether `program` is an executable file in a directory of PATH (no process started: nothing for Deno's sanitizer to count). */
export function onPath(program: string): boolean {
  return (runtime.env().PATH ?? "").split(":").some((dir) =>
    dir !== "" && existsSync(`${dir}/${program}`)
  );
}
