/**
 * A named interactive session: a shell (with shell integration when it is
 * bash or zsh) or any program in a terminal, with run-and-wait, input to the
 * running program, waits and recording. The class holds the session's parts
 * together; each job is done beside it: opening (session_open.ts), exec and
 * input (command_runner.ts), what is sent to the program (program_input.ts),
 * reading the output back (output_text.ts), recording (session_recording.ts).
 * @module
 */

import { basename } from "node:path";
import { runtime } from "../runtime/mod.ts";
import type { RuleMatch } from "../policy/types.ts";
import { Guard } from "../safety/guard.ts";
import { type Screenshot, Terminal, type TerminalOptions } from "../terminal/terminal.ts";
import { CommandRunner } from "./command_runner.ts";
import { limitCommandTime } from "./command_timer.ts";
import { plainOutput } from "./output_text.ts";
import { ProgramInput } from "./program_input.ts";
import { SentLineChecks } from "./sent_lines.ts";
import {
  auditLifetime,
  checkOpening,
  FIRST_PROMPT_MS,
  guardTypedLines,
  sandboxFor,
  waitUntilReady,
} from "./session_open.ts";
import { SessionRecording } from "./session_recording.ts";
import type { RecordTarget } from "./recorder.ts";
import type { CommandResult, SessionInfo, SessionOptions, WriteAccess } from "./session_types.ts";
import { type IntegratedShell, integrateShell } from "./shell_integration.ts";
import { ShellState, TYPED } from "./shell_state.ts";
import { TYPED_LINE_OSC, TypedLineChannel } from "./typed_lines.ts";
import { type WaitCondition, waitOn, type WaitResult } from "./waits.ts";

export type { CommandResult, Completion, SessionInfo, SessionOptions } from "./session_types.ts";
export { defaultShell, FIRST_PROMPT_MS } from "./session_open.ts";

/** What `Session.open` hands the constructor besides the options. */
interface SessionParts {
  /** The shell's integration, for bash and zsh. */
  shell: IntegratedShell | undefined;
  /** The sandbox's command prefix, if any. */
  sandbox: string[] | undefined;
  guard: Guard;
  /** The policy's bookkeeping of the lines the session sends, shared with the shell's line check. */
  checks: SentLineChecks;
  /** Where its recordings and pipes may be written. */
  writeAccess: WriteAccess;
  /** The recording's file it opens with, as the guard allowed it. */
  record?: RecordTarget;
}

/** A named terminal session. */
export class Session {
  readonly name: string;
  readonly program: string[];
  readonly terminal: Terminal;
  readonly integration: "shell" | "none";
  /** What the shell's integration marks said (for other programs, only the cwd it started in). */
  readonly #shell: ShellState;
  #lastOutputAt = performance.now();
  readonly #recording: SessionRecording;
  readonly #input: ProgramInput;
  readonly #runner: CommandRunner;
  /** Answers the shell's typed-line checks, when the session has them. */
  #lines: TypedLineChannel | undefined;
  #stopTimer: (() => void) | undefined;
  readonly #guard: Guard;
  readonly #checks: SentLineChecks;
  readonly #env: Record<string, string>;

  private constructor(options: SessionOptions & { program: string[] }, parts: SessionParts) {
    const { shell, sandbox } = parts;
    const env = { ...runtime.env(), ...options.env };
    this.#guard = parts.guard;
    this.#checks = parts.checks;
    this.#env = env;
    this.name = options.name;
    this.program = options.program;
    const cwd = options.cwd ?? runtime.cwd();
    this.#shell = new ShellState(cwd);
    this.integration = shell ? "shell" : "none";
    const spawn: TerminalOptions = {
      argv: shell?.argv ?? this.program,
      cwd,
      env: { ...env, ...shell?.env },
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      sandbox,
      limits: options.limits,
      // The typed-line requests carry a one-time token: for termbridge's eyes only.
      privateOsc: shell?.lineDir !== undefined ? TYPED_LINE_OSC : undefined,
    };
    this.terminal = Terminal.spawn(spawn);
    this.#recording = new SessionRecording({
      name: this.name,
      program: this.program,
      terminal: this.terminal,
      outputText: (from) => this.outputText(from),
      onRecord: options.onRecord,
      writeAccess: () => ({
        guard: this.#guard,
        actor: this.#guard.actor({ session: this.name }),
        ...parts.writeAccess,
      }),
    });
    this.#input = new ProgramInput({
      name: this.name,
      program: this.program,
      terminal: this.terminal,
      shell: this.#shell,
      recording: this.#recording,
      hookReads: () => this.#lines !== undefined && this.#shell.atPrompt,
      recordTyped: (line) => this.#recordTyped(line),
    });
    const seconds = options.limits?.commandSeconds ?? 0;
    if (seconds > 0 && this.integration === "shell") {
      this.#stopTimer = limitCommandTime(this.terminal, seconds, {
        graceMs: 2000,
        onHit: options.onLimit,
        // Sent by exec (an agent, a script), not typed: a person's vim is not timed.
        timed: () => {
          const running = this.#shell.running;
          return running !== undefined && running.end === undefined && running.command !== TYPED;
        },
      });
    }
    if (shell?.lineDir !== undefined && options.lineCheck !== undefined) {
      this.#lines = new TypedLineChannel(shell.lineDir, options.lineCheck);
    }
    this.#runner = new CommandRunner({
      name: this.name,
      terminal: this.terminal,
      shell: this.#shell,
      integration: this.integration,
      input: this.#input,
      guard: this.#guard,
      checks: this.#checks,
      env,
      shellChecksLines: this.#lines !== undefined,
    });
    this.terminal.onOsc((osc, offset) => {
      if (this.#lines?.handle(osc) === true) return;
      this.#shell.mark(osc, offset);
    });
    this.terminal.onChange(() => this.#lastOutputAt = performance.now());
    if (options.record) {
      this.#recording.record(options.record, {
        overwrite: options.recordOverwrite,
        input: options.recordInput,
        target: parts.record,
      });
    }
  }

  /**
   * Opens a session and waits until it is ready: a shell's first prompt, or
   * the screen settling for other programs.
   * @throws {SpawnError} when the program or the working directory is missing
   */
  static async open(options: SessionOptions): Promise<Session> {
    const opening = await checkOpening(options);
    const { program, guard } = opening;
    const checks = new SentLineChecks(guard);
    // Lines typed into the shell go through the same guard, unless there is no policy to apply.
    const opened: { session?: Session } = {};
    const lineCheck = options.lineCheck ??
      guardTypedLines(opening, { checks, lastClient: () => opened.session?.lastClient });
    const shell = integrateShell(program[0], program.slice(1), {
      checkLines: lineCheck !== undefined,
    });
    const sandbox = await sandboxFor(options.sandbox, { ...opening, shell });
    const session = new Session({ ...options, program, lineCheck }, {
      shell,
      sandbox,
      guard,
      checks,
      writeAccess: opening.writeAccess,
      ...(opening.record ? { record: opening.record } : {}),
    });
    opened.session = session;
    auditLifetime(opening, session.terminal);
    await waitUntilReady({
      terminal: session.terminal,
      atPrompt: session.integration === "shell" ? () => session.#shell.atPrompt : undefined,
      close: () => session.close(),
    }, {
      name: options.name,
      program: program[0],
      timeoutMs: options.startTimeoutMs ?? FIRST_PROMPT_MS,
    });
    return session;
  }

  /** The working directory the shell last reported (or the one it started in). */
  get cwd(): string {
    return this.#shell.cwd;
  }

  /**
   * The command running now, if termbridge knows of one: one the shell has
   * ended (its end mark came, or a new prompt) is not running any more, even
   * before anybody collected its result.
   */
  get running(): string | null {
    const running = this.#shell.running;
    return running === undefined || this.#shell.ended(running) ? null : running.command;
  }

  /**
   * Runs a command line and waits until it finishes or `timeoutMs` passes;
   * on timeout the command keeps running and the result says `running`. An
   * empty command collects more output of the running one.
   *
   * Aborting `signal` stops the waiting, not the command: what it printed
   * meanwhile is still there for the next collect.
   * @throws {SessionBusyError} when a command is running or the program exited
   * @throws the reason of `signal` once it is aborted
   */
  exec(command: string, timeoutMs: number, signal?: AbortSignal): Promise<CommandResult> {
    return this.#runner.exec(command, timeoutMs, signal);
  }

  /**
   * Sends input to the running program: a key name (`C-c`, `Enter`,
   * `ArrowUp`) is pressed; other text is typed, followed by Enter unless
   * `enter` is false. Waits until the output settles, the command ends, or
   * `timeoutMs` passes, and returns the output the input caused.
   * @throws the reason of `options.signal` once it is aborted (the input was sent)
   */
  input(
    text: string,
    options: { enter?: boolean; timeoutMs: number; signal?: AbortSignal },
  ): Promise<CommandResult> {
    return this.#runner.input(text, options);
  }

  /**
   * Writes text to the program exactly as given (newlines and tabs
   * included), as typed on a keyboard. With `paste`, the text is sent as a
   * terminal pastes: wrapped in bracketed-paste marks when the program turned
   * that mode on, so that several lines arrive as one block.
   */
  type(text: string, options: { paste?: boolean } = {}): void {
    this.#input.type(text, options);
  }

  /** Presses keys by name, in order. */
  keys(names: string[]): void {
    this.#input.keys(names);
  }

  /**
   * Records a line typed (type, key) into a program that no typed-line hook
   * records, as `input` records one sent to a program that is not a shell.
   */
  #recordTyped(line: string): void {
    if (!this.#guard.audit.enabled) return;
    const reader = this.terminal.foreground()?.programs.join(" ") ?? basename(this.program[0]);
    this.#guard.record(this.#guard.actor({ session: this.name }), {
      event: "command",
      origin: "input",
      line,
      cwd: this.#shell.cwd,
      decision: "allow",
      rule: null,
      reason: `typed to ${
        JSON.stringify(reader)
      } with type or key: audited as sent, not checked (input checks a line before sending it)`,
    });
  }

  /**
   * Waits for a condition on the screen or the program; see `WaitCondition`.
   * @throws the reason of `signal` once it is aborted
   */
  wait(condition: WaitCondition, timeoutMs: number, signal?: AbortSignal): Promise<WaitResult> {
    return waitOn(this.terminal, condition, timeoutMs, () => this.#shell.idle, signal);
  }

  /**
   * The program's output as plain text from text-log offset `from` (clamped
   * to what the log still holds), without the line editor's redraws of a
   * line already shown: bash draws the prompt and the typed line again after
   * its typed-line check, which a terminal overwrites in place but plain text
   * would show twice, glued together.
   */
  outputText(from: number): { text: string; end: number } {
    return plainOutput(this.terminal.textLog, this.#shell.redraws, from);
  }

  /** The visible screen with cursor, size, alternate-screen state and title. */
  screenshot(format: "plain" | "ansi" = "plain"): Screenshot {
    return this.terminal.screenshot(format);
  }

  /** Changes the size; the program receives SIGWINCH. */
  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
    this.#recording.resize(cols, rows);
  }

  /**
   * Starts recording to an asciicast file (replacing a recording in
   * progress), or stops with null. `path` must be absolute; an existing file
   * that is not a recording is replaced only with `overwrite`; `idleTimeLimit`
   * goes in the header, for players to shorten longer pauses. What is sent
   * to the program (passwords typed at a prompt included) is recorded only
   * with `input`, as asciinema does. The file is created 0600. The guard
   * checks the file as it checks `fs/write_text_file`'s (the `write` globs,
   * the sandbox's writable directories, termbridge's own files), and only a
   * regular file is written (a FIFO or a device is refused, never waited on).
   * @throws {PolicyDeniedError} when the guard refuses the file
   * @throws {FileError} for a file that cannot be written, or is not a recording (without `overwrite`)
   */
  record(
    path: string | null,
    options: {
      overwrite?: boolean;
      idleTimeLimit?: number;
      input?: boolean;
      /** `path` comes from the configuration (mcp's recordings directory), not a request. */
      configured?: boolean;
    } = {},
  ): void {
    this.#recording.record(path, options);
  }

  /**
   * Whether the guard would let a recording of this session write `path`
   * (the `write` globs and the sandbox's writable directories; nothing is
   * recorded or refused): e.g. before making a directory for one.
   */
  mayRecordTo(path: string): boolean {
    const { guard, ...access } = this.#recording.writeAccess();
    return guard.judgeWrite(path, access).decision === "allow";
  }

  /**
   * Appends the session's output from now on, as plain text, to the file at
   * absolute `path` (replacing a pipe in progress), or stops with null;
   * the file is checked as a recording's is.
   * @returns the file piped to before, if any
   */
  pipe(path: string | null): string | undefined {
    return this.#recording.pipe(path);
  }

  /** A row for `list`. */
  info(): SessionInfo {
    return {
      name: this.name,
      program: this.program,
      pid: this.terminal.pid,
      cols: this.terminal.cols,
      rows: this.terminal.rows,
      cwd: this.#shell.cwd,
      running: this.running,
      idleMs: Math.round(performance.now() - this.#lastOutputAt),
      integration: this.integration,
      exitStatus: this.terminal.exitStatus,
      recording: this.#recording.path,
    };
  }

  /** Ends the program (every process group of its terminal's session) and the recording. */
  async close(): Promise<void> {
    this.#stopTimer?.();
    if (this.#guard.audit.enabled) {
      this.#guard.record(this.#guard.actor({ session: this.name }), { event: "release" });
    }
    await this.terminal.dispose();
    this.#recording.close();
    this.#lines?.close();
  }

  /**
   * The server's client that last wrote to the program, to whom the lines its
   * shell runs are attributed; undefined outside the server.
   */
  get lastClient(): string | undefined {
    return this.#input.lastClient;
  }

  /** Says that client `label` writes to the program now (for writes that bypass the session). */
  noteClient(label: string): void {
    this.#input.noteClient(label);
  }

  /**
   * The rule whose "ask" was approved when `line` was sent, for the shell's
   * check of the same line; used once.
   */
  takeApproval(line: string): RuleMatch | undefined {
    return this.#checks.takeApproval(line);
  }

  /**
   * The check of a line typed into this session's shell, for the shell's own
   * hook (the policy engine wires it): never throws for a refusal.
   */
  checkTypedLine(line: string): Promise<{ allowed: boolean; message: string }> {
    return this.#guard.checkTypedLine(
      line,
      { cwd: this.#shell.cwd, env: this.#env },
      this.#guard.actor({ session: this.name }),
    );
  }
}
