/**
 * A private tmux server for the baselines, driven through the tmux client as
 * an agent without termbridge would drive it.
 * @module
 */

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { runtime } from "../lib/runtime/mod.ts";

/** Whether a `tmux` client can be run here. */
export function tmuxAvailable(): boolean {
  return spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
}

let servers = 0;

/**
 * A tmux server on its own socket (a file in the temp directory, removed
 * again by `dispose()`) with one session.
 */
export class TmuxServer {
  /** Path of the server's socket. */
  readonly socket: string;
  readonly #env: Record<string, string>;

  /**
   * Starts the server with one detached `cols` x `rows` session running
   * `command` (a shell command line).
   * @throws {Error} when tmux does not start
   */
  constructor(
    command: string,
    options: { cols: number; rows: number; env?: Record<string, string> },
  ) {
    const name = `tb-bench-${runtime.name}-${process.pid}-${Date.now()}-${servers++}`;
    this.socket = join(tmpdir(), name);
    // No TMUX variable: tmux refuses to nest; no user config: -f /dev/null.
    const { TMUX: _, ...env } = options.env ?? runtime.env();
    this.#env = env;
    this.run([
      "new-session",
      "-d",
      "-s",
      "bench",
      "-x",
      String(options.cols),
      "-y",
      String(options.rows),
      command,
    ]);
  }

  /**
   * Runs a tmux client command against this server and returns its stdout.
   * @throws {Error} when the client fails
   */
  run(args: string[]): string {
    const result = spawnSync("tmux", ["-S", this.socket, "-f", "/dev/null", ...args], {
      env: this.#env,
      encoding: "utf8",
    });
    if (result.status !== 0) {
      throw new Error(`Cannot run tmux ${args[0]}: ${result.stderr || result.error || "failed"}`);
    }
    return result.stdout;
  }

  /** The visible lines of the pane, trailing blank lines removed. */
  captureLines(): string[] {
    const lines = this.run(["capture-pane", "-p", "-t", "bench"]).split("\n").map((line) =>
      line.trimEnd()
    );
    while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    return lines;
  }

  /** Types `text` and presses Enter in the pane. */
  sendLine(text: string): void {
    this.run(["send-keys", "-t", "bench", text, "Enter"]);
  }

  /** Kills the server and every program in it, and removes its socket. */
  dispose(): void {
    spawnSync("tmux", ["-S", this.socket, "kill-server"], { env: this.#env, stdio: "ignore" });
    rmSync(this.socket, { force: true }); // tmux leaves the socket file behind.
  }
}

/**
 * Polls the pane until `check` accepts its lines, sleeping `intervalMs`
 * between captures (0: as fast as the client runs).
 * @throws {Error} after `timeoutMs`, with the last capture
 */
export async function pollPane(
  server: TmuxServer,
  check: (lines: string[]) => boolean,
  options: { intervalMs: number; timeoutMs: number; what: string },
): Promise<void> {
  const deadline = performance.now() + options.timeoutMs;
  for (;;) {
    const lines = server.captureLines();
    if (check(lines)) return;
    if (performance.now() > deadline) {
      throw new Error(
        `Timed out waiting for ${options.what} in tmux: ${lines.slice(-3).join(" / ")}`,
      );
    }
    if (options.intervalMs > 0) await new Promise((r) => setTimeout(r, options.intervalMs));
  }
}
