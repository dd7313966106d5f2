/**
 * Terminal MCP's recordings (`startRecording`, `stopRecording`): a session
 * recorded to an asciicast v2 file under an id, stopped on request, after a
 * longest duration or after a quiet spell, and kept only on failure when
 * asked.
 * @module
 */

import { mkdirSync, statSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Session } from "../sessions/session.ts";

/**
 * Where recordings go unless told: `$XDG_STATE_HOME/termbridge/recordings`
 * (by default `~/.local/state/termbridge/recordings`).
 */
export function defaultRecordingsDir(env: Record<string, string>): string {
  const state = env.XDG_STATE_HOME?.startsWith("/")
    ? env.XDG_STATE_HOME
    : join(env.HOME || homedir(), ".local", "state");
  return join(state, "termbridge", "recordings");
}

/** How to record (Terminal MCP's parameters). */
export interface RecordingOptions {
  format?: "v2";
  /** `always` keeps the file; `on-failure` keeps it only when the program exited non-zero. */
  mode?: "always" | "on-failure";
  /** Directory of the file (default: the directory the recordings were made with). */
  outputDir?: string;
  /** Stop after this many seconds. */
  maxDuration?: number;
  /** Stop after this many seconds without output. */
  inactivityTimeout?: number;
  /** Longest pause when replayed, seconds (the header's `idle_time_limit`). */
  idleTimeLimit?: number;
}

/** What startRecording answers. */
export interface RecordingStarted {
  recordingId: string;
  path: string;
  format: "v2";
  mode: "always" | "on-failure";
}

/** What stopRecording answers. */
export interface RecordingStopped {
  recordingId: string;
  path: string;
  durationMs: number;
  bytesWritten: number;
  saved: boolean;
  mode: "always" | "on-failure";
}

interface Active {
  session: Session;
  started: RecordingStarted;
  startedAt: number;
  timer?: ReturnType<typeof setInterval>;
}

/** The recordings started through the MCP tools, by id. */
export class Recordings {
  readonly #dir: string;
  readonly #active = new Map<string, Active>();
  readonly #finished = new Map<string, RecordingStopped>();

  /** @param dir Default directory of the files. */
  constructor(dir: string) {
    this.#dir = dir;
  }

  /**
   * Starts recording `session` to a new file (a recording of it in progress
   * is replaced, as a session records to one file at a time).
   * @throws {Error} when the directory cannot be made
   * @throws {PolicyDeniedError} when the guard refuses the file (the `write` globs, the sandbox)
   */
  start(session: Session, options: RecordingOptions = {}): RecordingStarted {
    for (const [id, active] of this.#active) {
      if (active.session === session) this.stop(id);
    }
    const dir = resolve(options.outputDir ?? this.#dir);
    const recordingId = crypto.randomUUID().slice(0, 8);
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const path = join(dir, `${session.name}-${stamp}-${recordingId}.cast`);
    // The configured directory is the user's choice; a requested one is checked as a write
    // (globs, sandbox), and made only where the file may be written (else refused below, recorded).
    const configured = options.outputDir === undefined;
    if (configured || session.mayRecordTo(path)) mkdirSync(dir, { recursive: true });
    session.record(path, { idleTimeLimit: options.idleTimeLimit, configured });
    const started: RecordingStarted = {
      recordingId,
      path,
      format: "v2",
      mode: options.mode ?? "always",
    };
    const active: Active = { session, started, startedAt: performance.now() };
    const { maxDuration, inactivityTimeout } = options;
    if (maxDuration !== undefined || inactivityTimeout !== undefined) {
      active.timer = setInterval(() => {
        const seconds = (performance.now() - active.startedAt) / 1000;
        const quiet = session.info().idleMs / 1000;
        if (
          (maxDuration !== undefined && seconds >= maxDuration) ||
          (inactivityTimeout !== undefined && quiet >= inactivityTimeout)
        ) this.stop(recordingId);
      }, 250);
    }
    this.#active.set(recordingId, active);
    return started;
  }

  /**
   * Stops a recording and finishes its file.
   * @throws {Error} for an unknown id, or one already stopped
   */
  stop(recordingId: string): RecordingStopped {
    const active = this.#active.get(recordingId);
    if (active === undefined) {
      throw new Error(
        this.#finished.has(recordingId)
          ? `Recording already finalized: ${recordingId}`
          : `Recording not found: ${recordingId} (startRecording gives the id)`,
      );
    }
    this.#active.delete(recordingId);
    clearInterval(active.timer);
    const { session, started } = active;
    if (session.info().recording === started.path) session.record(null);
    const status = session.terminal.exitStatus;
    const failed = status !== null && status.exitCode !== 0;
    const saved = started.mode === "always" || failed;
    let bytesWritten = 0;
    try {
      bytesWritten = statSync(started.path).size;
      if (!saved) unlinkSync(started.path);
    } catch {
      // The file is gone already (removed by someone else): nothing was kept.
    }
    const stopped: RecordingStopped = {
      recordingId,
      path: started.path,
      durationMs: Math.round(performance.now() - active.startedAt),
      bytesWritten,
      saved,
      mode: started.mode,
    };
    this.#finished.set(recordingId, stopped);
    return stopped;
  }

  /** Stops every recording (termbridge is ending). */
  stopAll(): void {
    for (const id of [...this.#active.keys()]) this.stop(id);
  }
}
