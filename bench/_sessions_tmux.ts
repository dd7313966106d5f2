/**
 * The baseline of `bench/sessions.ts`: how a tmux-based agent tool learns
 * that a command finished. It types the command with `send-keys`, then reads
 * the pane with `capture-pane` until the prompt is back on a new line.
 * @module
 */

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import process from "node:process";
import { runtime } from "../lib/runtime/mod.ts";

/** The prompt of the tmux shell, a marker no command output contains. */
export const TMUX_PROMPT = "tb-bench-prompt>";

/** Whether a `tmux` client can be run here. */
export function tmuxAvailable(): boolean {
  return spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
}

/** The lines of one capture, trailing blanks removed. */
function trimmedLines(text: string): string[] {
  const lines = text.split("\n").map((line) => line.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** How many prompts a capture shows, and whether the last line is a bare prompt. */
export function countPrompts(lines: string[]): { prompts: number; idle: boolean } {
  return {
    prompts: lines.filter((line) => line.startsWith(TMUX_PROMPT)).length,
    idle: lines.at(-1) === TMUX_PROMPT,
  };
}

/**
 * A tmux server of its own (`tmux -L <unique name>`, no user config) with one
 * 120x40 session running `bash --norc --noprofile` with the marker prompt.
 */
export class TmuxShell {
  /** The server's socket name (`-L`). */
  readonly socketName = `tb-sessions-bench-${runtime.name}-${process.pid}-${Date.now()}`;
  readonly #env: Record<string, string>;
  readonly #socketPath: string;

  /** @throws {Error} when tmux does not start */
  constructor() {
    // No TMUX variable: tmux refuses to nest inside another tmux.
    const { TMUX: _, ...env } = runtime.env();
    this.#env = env;
    this.#tmux([
      "new-session",
      "-d",
      "-s",
      "bench",
      "-x",
      "120",
      "-y",
      "40",
      "-e",
      "HISTFILE=/dev/null",
      "bash --norc --noprofile",
    ]);
    this.#socketPath = this.#tmux(["display-message", "-p", "#{socket_path}"]).trim();
    // bash sets its default PS1 over one from the environment: set it by typing.
    this.sendLine(`PS1='${TMUX_PROMPT} '; PROMPT_COMMAND=`);
  }

  /** The pane with its scrollback (`-S -`), so that scrolling loses no prompt. */
  capture(): string[] {
    return trimmedLines(this.#tmux(["capture-pane", "-p", "-S", "-", "-t", "bench"]));
  }

  /** Types `text` and presses Enter. */
  sendLine(text: string): void {
    this.#tmux(["send-keys", "-t", "bench", text, "Enter"]);
  }

  /** Presses keys by tmux name (`BSpace`, `C-c`; a plain character types itself). */
  keys(...names: string[]): void {
    this.#tmux(["send-keys", "-t", "bench", ...names]);
  }

  /** Forgets the scrollback, so that captures stay small. */
  clearHistory(): void {
    this.#tmux(["clear-history", "-t", "bench"]);
  }

  /**
   * Polls `capture()` with no pause until `done` accepts it.
   * @throws {Error} after `timeoutMs`, with the last lines seen
   */
  pollUntil(done: (lines: string[]) => boolean, what: string, timeoutMs = 10_000): number {
    const deadline = performance.now() + timeoutMs;
    for (let captures = 1;; captures++) {
      const lines = this.capture();
      if (done(lines)) return captures;
      if (performance.now() > deadline) {
        throw new Error(`Timed out waiting for ${what} in tmux: ${lines.slice(-3).join(" / ")}`);
      }
    }
  }

  /** Kills the server and the shell in it, and removes the socket tmux leaves behind. */
  dispose(): void {
    spawnSync("tmux", ["-L", this.socketName, "kill-server"], { env: this.#env, stdio: "ignore" });
    if (this.#socketPath !== "") rmSync(this.#socketPath, { force: true });
  }

  #tmux(args: string[]): string {
    const result = spawnSync("tmux", ["-L", this.socketName, "-f", "/dev/null", ...args], {
      env: this.#env,
      encoding: "utf8",
    });
    if (result.status !== 0) {
      throw new Error(`Cannot run tmux ${args[0]}: ${result.stderr || result.error || "failed"}`);
    }
    return result.stdout;
  }
}

/** What the tmux measurement found. */
export interface TmuxLatencies {
  /** Milliseconds from send-keys to the capture showing the new prompt. */
  latencies: number[];
  /** Milliseconds of each `capture-pane` call of the timed runs. */
  captureMs: number[];
  /** Captures needed per run. */
  captures: number[];
}

/**
 * Runs `true` `warmup + rounds` times in tmux, timing the last `rounds`: from
 * send-keys until a capture shows one more prompt than before and a bare
 * prompt on its last line.
 */
export function tmuxTrueLatencies(rounds: number, warmup: number): TmuxLatencies {
  const shell = new TmuxShell();
  try {
    shell.pollUntil((lines) => countPrompts(lines).idle, "the first prompt");
    const result: TmuxLatencies = { latencies: [], captureMs: [], captures: [] };
    for (let i = 0; i < warmup + rounds; i++) {
      shell.clearHistory();
      const before = countPrompts(shell.capture()).prompts;
      const start = performance.now();
      shell.sendLine("true");
      const captures = shell.pollUntil((lines) => {
        const seen = countPrompts(lines);
        return seen.idle && seen.prompts > before;
      }, `prompt ${before + 1}`);
      const ms = performance.now() - start;
      if (i < warmup) continue;
      result.latencies.push(ms);
      result.captures.push(captures);
    }
    for (let i = 0; i < 50; i++) {
      const start = performance.now();
      shell.capture();
      result.captureMs.push(performance.now() - start);
    }
    return result;
  } finally {
    shell.dispose();
  }
}

/**
 * The steps of the script of `bench/sessions.ts` the way a tmux-based tool
 * runs them: per round, send-keys `x`, capture-pane until the prompt line
 * shows exactly it, send-keys `BSpace`, capture-pane until the line is bare.
 * Milliseconds for the steps (the shell is started before).
 */
export function tmuxScriptMs(rounds: number): number {
  const shell = new TmuxShell();
  const lineIs = (expected: string) => (lines: string[]) => lines.at(-1) === expected;
  try {
    shell.pollUntil((lines) => countPrompts(lines).idle, "the first prompt");
    const start = performance.now();
    for (let i = 0; i < rounds; i++) {
      shell.keys("x");
      shell.pollUntil(lineIs(`${TMUX_PROMPT} x`), "x after the prompt");
      shell.keys("BSpace");
      shell.pollUntil(lineIs(TMUX_PROMPT), "the bare prompt");
    }
    return performance.now() - start;
  } finally {
    shell.dispose();
  }
}
