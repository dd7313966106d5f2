/**
 * The files a session copies its terminal to: an asciicast recording (with
 * what is sent to the program too, when asked) and a plain-text pipe.
 * @module
 */

import type { Terminal } from "../terminal/terminal.ts";
import { OutputPipe } from "./output_pipe.ts";
import type { FileAccess } from "../service/text_files.ts";
import { CastRecorder, checkRecordTarget, type RecordTarget } from "./recorder.ts";

/** What a session's recording reads of the session. */
export interface RecordedSession {
  readonly name: string;
  readonly program: string[];
  readonly terminal: Terminal;
  /** The plain output from text-log offset `from` (Session.outputText), for the pipe. */
  outputText(from: number): { text: string; end: number };
  /** Told of each recording started (its file). */
  onRecord?: (path: string) => void;
  /** Who writes the recording's and the pipe's files, for the guard's write check. */
  writeAccess(): FileAccess;
}

/** A session's recording and pipe, each in progress or not. */
export class SessionRecording {
  readonly #session: RecordedSession;
  #recorder: CastRecorder | undefined;
  /** The recording's file as it was asked for (the recorder's is resolved). */
  #recordedPath = "";
  #stopRecording: (() => void) | undefined;
  /** Whether the recording in progress takes input too. */
  #recordInput = false;
  #pipe: OutputPipe | undefined;

  constructor(session: RecordedSession) {
    this.#session = session;
  }

  /** Who writes the recording's and the pipe's files, for the guard's write check. */
  writeAccess(): FileAccess {
    return this.#session.writeAccess();
  }

  /** The file of the recording in progress, or null. */
  get path(): string | null {
    return this.#recorder === undefined ? null : this.#recordedPath;
  }

  /**
   * Starts recording to `path` (replacing a recording in progress), or stops
   * with null; see Session.record. `target` is the file `checkRecordTarget`
   * already allowed for `path` (a session opened with a recording).
   * @throws {SessionUsageError} for a relative path
   * @throws {PolicyDeniedError} when the guard refuses to write the file
   * @throws {FileError} when the file cannot be written or is not a recording (without `overwrite`)
   */
  record(
    path: string | null,
    options: {
      overwrite?: boolean;
      idleTimeLimit?: number;
      input?: boolean;
      target?: RecordTarget;
      /** The file comes from the configuration (mcp's recordings directory), not a request. */
      configured?: boolean;
    } = {},
  ): void {
    if (path === null) {
      this.#stopRecording?.();
      this.#stopRecording = undefined;
      this.#recorder?.close();
      this.#recorder = undefined;
      this.#recordInput = false;
      return;
    }
    const { name, program, terminal } = this.#session;
    const target = options.target ??
      checkRecordTarget(
        path,
        options.overwrite ?? false,
        this.#session.writeAccess(),
        options.configured,
      );
    const recorder = new CastRecorder(target, {
      cols: terminal.cols,
      rows: terminal.rows,
      title: `termbridge session ${name}`,
      env: { SHELL: program[0], TERM: "xterm-256color" },
      idleTimeLimit: options.idleTimeLimit,
    });
    this.record(null); // A refused file leaves the recording in progress alone.
    let offset = terminal.rawLog.totalBytes;
    this.#stopRecording = terminal.onChange(() => {
      recorder.output(terminal.rawLog.since(offset));
      offset = terminal.rawLog.totalBytes;
    });
    this.#recorder = recorder;
    this.#recordedPath = path;
    this.#recordInput = options.input === true;
    this.#session.onRecord?.(path);
  }

  /**
   * Appends the output from now on, as plain text, to the file at absolute
   * `path` (replacing a pipe in progress), or stops with null.
   * @returns the file piped to before, if any
   */
  pipe(path: string | null): string | undefined {
    const session = this.#session;
    const terminal = session.terminal;
    const next = path === null ? undefined : new OutputPipe(path, {
      outputText: (from) => session.outputText(from),
      get outputEnd() {
        return terminal.textLog.totalBytes;
      },
      onChange: (listener) => terminal.onChange(listener),
    }, session.writeAccess());
    const before = this.#pipe?.path;
    this.#pipe?.close();
    this.#pipe = next;
    return before;
  }

  /** Notes input sent to the program: recorded when the recording takes input. */
  input(text: string): void {
    if (this.#recordInput) this.#recorder?.input(text);
  }

  /** Notes the terminal's new size. */
  resize(cols: number, rows: number): void {
    this.#recorder?.resize(cols, rows);
  }

  /** Stops the recording and the pipe. */
  close(): void {
    this.record(null);
    this.pipe(null);
  }
}
