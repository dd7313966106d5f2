/**
 * The REPL's history file: `$XDG_STATE_HOME/termbridge/history` (by default
 * `~/.local/state/termbridge/history`), one line per command, newest last.
 * @module
 */

import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Most lines kept (the file is cut back to this many when it grows to twice as many). */
export const HISTORY_SIZE = 1000;

/**
 * Where the history lives, following the XDG base directory spec.
 * @example historyPath({ HOME: "/home/ada" }) // "/home/ada/.local/state/termbridge/history"
 */
export function historyPath(env: Record<string, string>): string | undefined {
  const state = env.XDG_STATE_HOME?.startsWith("/")
    ? env.XDG_STATE_HOME
    : env.HOME
    ? join(env.HOME, ".local", "state")
    : undefined;
  return state === undefined ? undefined : join(state, "termbridge", "history");
}

/** A history file: read once, appended to line by line. */
export class HistoryFile {
  readonly path: string;
  #count = 0;

  constructor(path: string) {
    this.path = path;
  }

  /**
   * The remembered lines, newest first (as readline wants them); none when the
   * file does not exist yet.
   */
  load(): string[] {
    let text: string;
    try {
      text = readFileSync(this.path, "utf8");
    } catch {
      return []; // No history yet (or unreadable: start afresh rather than fail).
    }
    const lines = text.split("\n").filter((line) => line.trim() !== "");
    this.#count = lines.length;
    return lines.slice(-HISTORY_SIZE).reverse();
  }

  /**
   * Appends a line, creating the directories, and trims the file when it
   * has grown to twice the size kept.
   * @throws {Error} from the file system (the caller warns once and goes on)
   */
  append(line: string): void {
    if (line.trim() === "" || line.includes("\n")) return;
    // Private as bash's history is: the lines typed may hold secrets.
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    appendFileSync(this.path, line + "\n", { mode: 0o600 });
    if (++this.#count < 2 * HISTORY_SIZE) return;
    const kept = readFileSync(this.path, "utf8").split("\n").filter((l) => l.trim() !== "")
      .slice(-HISTORY_SIZE);
    writeFileSync(this.path, kept.join("\n") + "\n", { mode: 0o600 });
    this.#count = kept.length;
  }
}
