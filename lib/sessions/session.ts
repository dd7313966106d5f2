/**
 * A named interactive session: a shell (with shell integration when it is
 * bash or zsh) or any program in a terminal, with run-and-wait, input to the
 * running program, waits and recording.
 * @module
 */

import { basename, dirname } from "node:path";
import { runtime } from "../runtime/mod.ts";
import type { RuleMatch } from "../policy/types.ts";
import { currentClient } from "../safety/client.ts";
import { Guard } from "../safety/guard.ts";
import { isKeyName } from "../terminal/keys.ts";
import { resolveProgram } from "../terminal/launch.ts";
import { type Screenshot, Terminal, type TerminalOptions } from "../terminal/terminal.ts";
import { SessionBusyError, SessionStartError } from "./errors.ts";
import { WaitTimeoutError } from "../terminal/errors.ts";
import { CastRecorder, checkRecordTarget } from "./recorder.ts";
import { OutputPipe } from "./output_pipe.ts";
import { type IntegratedShell, integrateShell, supportsLineChecks } from "./shell_integration.ts";
import type { CommandResult, SessionInfo, SessionOptions } from "./session_types.ts";
import { ShellState, TYPED } from "./shell_state.ts";
import { SentLineChecks } from "./sent_lines.ts";
import { type TypedLine, TypedLineChannel } from "./typed_lines.ts";
import { idleFor, settledFor, type WaitCondition, waitOn, type WaitResult } from "./waits.ts";
import { limitCommandTime } from "./command_timer.ts";
import { sandboxPrefix } from "../sandbox/mod.ts";

export type { CommandResult, Completion, SessionInfo, SessionOptions } from "./session_types.ts";

/** How long a fallback exec waits for the screen to settle. */
const SETTLE_MS = 400;
/** How long opening waits for a shell's first prompt by default (`shellStartTimeout`). */
export const FIRST_PROMPT_MS = 10_000;
/** How long a shell that showed no prompt in time gets after SIGHUP (and SIGTERM) to run its traps. */
const HANG_UP_GRACE_MS = 2000;

/** Returns the user's shell: `$SHELL`, else bash, else sh. */
export function defaultShell(env: Record<string, string>): string {
  for (const candidate of [env.SHELL, "bash", "sh"]) {
    if (!candidate) continue;
    try {
      return resolveProgram(candidate, env, "/");
    } catch {
      // Not installed here: try the next one.
    }
  }
  return "/bin/sh";
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
  #recorder: CastRecorder | undefined;
  /** Answers the shell's typed-line checks, when the session has them. */
  #lines: TypedLineChannel | undefined;
  #stopRecording: (() => void) | undefined;
  #stopTimer: (() => void) | undefined;
  readonly #guard: Guard;
  readonly #checks: SentLineChecks;
  readonly #env: Record<string, string>;
  readonly #onRecord: ((path: string) => void) | undefined;

  private constructor(
    options: SessionOptions & { program: string[] },
    shell: IntegratedShell | undefined,
    sandbox: string[] | undefined,
  ) {
    const env = { ...runtime.env(), ...options.env };
    this.#guard = options.guard ?? Guard.open();
    this.#checks = new SentLineChecks(this.#guard);
    this.#env = env;
    this.#onRecord = options.onRecord;
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
    };
    this.terminal = Terminal.spawn(spawn);
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
    this.terminal.onOsc((osc, offset) => {
      if (this.#lines?.handle(osc) !== true) this.#shell.mark(osc, offset);
    });
    this.terminal.onChange(() => this.#lastOutputAt = performance.now());
    if (options.record) {
      this.record(options.record, {
        overwrite: options.recordOverwrite,
        input: options.recordInput,
      });
    }
  }

  /**
   * Opens a session and waits until it is ready: a shell's first prompt, or
   * the screen settling for other programs.
   * @throws {SpawnError} when the program or the working directory is missing
   */
  static async open(options: SessionOptions): Promise<Session> {
    if (options.record) checkRecordTarget(options.record, options.recordOverwrite ?? false);
    const env = { ...runtime.env(), ...options.env };
    const cwd = options.cwd ?? runtime.cwd();
    const program = options.program ?? [defaultShell(env)];
    const guard = options.guard ?? Guard.open();
    const actor = guard.actor({ session: options.name });
    await guard.checkCommand(
      {
        origin: "open",
        argv: program,
        cwd,
        env,
        envNames: Object.keys(options.env ?? {}),
        linesChecked: supportsLineChecks(program[0]),
      },
      actor,
    );
    // Lines typed into the shell go through the same guard, unless there is no policy to apply.
    const opened: { session?: Session } = {};
    const lineCheck = options.lineCheck ??
      (guard.policy === null ? undefined : (typed: TypedLine) => {
        const session = opened.session;
        const preApproved = session?.takeApproval(typed.line);
        // A line exec sent is one event: sent by exec's client, seen by the shell; judged
        // once when the shell runs it with the inputs exec's check had.
        const exec = session === undefined ? { sent: false } : session.#checks.takeExecLine(typed);
        return guard.checkTypedLine(typed.line, {
          cwd: typed.cwd,
          // The environment exec's check had (the session's), with the shell's PATH.
          env: { ...env, PATH: typed.path },
          aliases: typed.aliases,
          preApproved,
          origin: exec.sent ? "exec" : "typed",
          ...(exec.judged === undefined ? {} : { judged: exec.judged }),
        }, { ...actor, ...clientOf(session) });
      });
    const shell = integrateShell(program[0], program.slice(1), {
      checkLines: lineCheck !== undefined,
    });
    const shown = shell ? [shell.directory] : [];
    // The shell writes the lines it asks about beside its answers, even in a read-only sandbox.
    const writable = shell?.lineDir !== undefined ? [dirname(shell.lineDir)] : [];
    const sandbox = await sandboxPrefix(options.sandbox, cwd, env, shown, writable) ?? undefined;
    const session = new Session({ ...options, program, lineCheck }, shell, sandbox);
    opened.session = session;
    if (guard.audit.enabled) {
      guard.record(actor, {
        event: "start",
        pid: session.terminal.pid,
        command: program.join(" "),
      });
      const started = performance.now();
      void session.terminal.wait().then((status) =>
        guard.record(actor, {
          event: "exit",
          exitCode: status.exitCode,
          signal: status.signal,
          durationMs: Math.round(performance.now() - started),
          outputBytes: session.terminal.textLog.totalBytes,
        })
      );
    }
    const startMs = options.startTimeoutMs ?? FIRST_PROMPT_MS;
    try {
      if (session.integration === "shell") {
        await session.terminal.waitFor(
          () => session.#shell.atPrompt || session.terminal.exitStatus !== null || undefined,
          "the shell's first prompt",
          startMs,
        );
      } else {
        // Ready once quiet and idle: a program may start slowly without a word (a pyenv shim).
        await settledFor(session.terminal, SETTLE_MS, startMs);
      }
    } catch (error) {
      if (error instanceof WaitTimeoutError && session.integration === "shell") {
        // Killed mid-rc a shell could leave locks behind (pyenv's rehash): hang it up instead.
        await session.terminal.hangUp(HANG_UP_GRACE_MS);
        await session.close();
        throw slowStart(options.name, program[0], startMs, error.screen);
      }
      await session.close();
      throw error;
    }
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
  async exec(command: string, timeoutMs: number, signal?: AbortSignal): Promise<CommandResult> {
    signal?.throwIfAborted();
    if (command.trim() === "") {
      return this.#shell.running
        ? await this.#collect(timeoutMs, signal)
        : this.#idleResult(command);
    }
    this.#checkAlive(command);
    await this.#check("exec", command);
    if (this.#shell.running && this.#shell.ended(this.#shell.running)) {
      this.#shell.running = undefined; // Nobody collected it.
    }
    if (this.#shell.running) {
      throw new SessionBusyError(
        `Cannot run ${JSON.stringify(command)} in session "${this.name}": ${
          JSON.stringify(this.#shell.running.command)
        } is still running; send it input, a key such as C-c, or an empty command to collect its output`,
      );
    }
    if (this.integration === "none") {
      return await this.#execUntilSettled(command, timeoutMs, signal);
    }
    if (this.#shell.interrupted) await this.#afterInterrupt(timeoutMs, signal);
    if (!this.#shell.atPrompt) {
      // Text typed before the prompt is drawn would be echoed twice: wait for it.
      await this.terminal.waitFor(
        () => this.#shell.atPrompt || this.terminal.exitStatus !== null || undefined,
        "the prompt",
        timeoutMs,
        signal,
      ).catch(() => {}); // Sent anyway: the shell may just have a prompt termbridge cannot see.
      signal?.throwIfAborted();
    }
    const running = this.#shell.begin(command);
    this.#send(command, "\r");
    // A line the shell does not run (empty, only a comment) brings the prompt back without a start.
    await this.terminal.waitFor(
      () =>
        running.start !== undefined || this.#shell.ended(running) ||
        this.terminal.exitStatus !== null ||
        undefined,
      "the command to start",
      timeoutMs,
      signal,
    ).catch(() => {}); // Reported as `running` below.
    this.#checks.recordUnchecked();
    if (running.start === undefined && this.#shell.ended(running)) {
      this.#shell.running = undefined;
      return this.#idleResult(command);
    }
    return await this.#collect(timeoutMs, signal);
  }

  /**
   * Sends input to the running program: a key name (`C-c`, `Enter`,
   * `ArrowUp`) is pressed; other text is typed, followed by Enter unless
   * `enter` is false. Waits until the output settles, the command ends, or
   * `timeoutMs` passes, and returns the output the input caused.
   * @throws the reason of `options.signal` once it is aborted (the input was sent)
   */
  async input(
    text: string,
    options: { enter?: boolean; timeoutMs: number; signal?: AbortSignal },
  ): Promise<CommandResult> {
    const { signal } = options;
    signal?.throwIfAborted();
    this.#checkAlive(text);
    const key = text.length > 1 && isKeyName(text);
    if (!key && text.trim() !== "") await this.#check("input", text);
    const from = this.terminal.textLog.totalBytes;
    if (key) this.keys([text]);
    else this.#send(text, options.enter === false ? "" : "\r");
    const running = this.#shell.running;
    // Both waits end together: the first to settle aborts the other's listeners.
    const done = new AbortController();
    const waiting = signal ? AbortSignal.any([signal, done.signal]) : done.signal;
    await Promise.race([
      idleFor(this.terminal, SETTLE_MS, options.timeoutMs, false, waiting),
      this.terminal.waitFor(
        () =>
          running !== undefined && this.#shell.ended(running) ||
          this.terminal.exitStatus !== null ||
          undefined,
        "the command to end",
        options.timeoutMs,
        waiting,
      ),
    ]).catch(() => {}); // A timeout just ends the wait.
    done.abort();
    signal?.throwIfAborted();
    if (running !== undefined && this.#shell.ended(running)) {
      running.reported = from;
      return this.#collect(0);
    }
    return this.#result(
      text,
      this.#slice(from, undefined),
      this.#shell.running ? "running" : "completed",
      null,
    );
  }

  /**
   * Writes text to the program exactly as given (newlines and tabs
   * included), as typed on a keyboard. With `paste`, the text is sent as a
   * terminal pastes: wrapped in bracketed-paste marks when the program turned
   * that mode on, so that several lines arrive as one block.
   */
  type(text: string, options: { paste?: boolean } = {}): void {
    this.#checkAlive(text);
    const bracketed = options.paste === true && this.terminal.modes().bracketedPaste;
    // A paste end mark inside the text would end the paste early: it cannot be pasted.
    this.terminal.write(
      bracketed ? `\x1b[200~${text.replaceAll("\x1b[201~", "")}\x1b[201~` : text,
    );
    this.#sent(text);
  }

  /** Presses keys by name, in order. */
  keys(names: string[]): void {
    this.#checkAlive(names.join(" "));
    this.#sent(this.terminal.sendKeys(...names));
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
    const log = this.terminal.textLog;
    const first = log.totalBytes - log.byteLength;
    const start = Math.max(from, first);
    const held = log.since(first);
    const bytes = held.subarray(start - first);
    const end = log.totalBytes;
    const kept: Uint8Array[] = [];
    let at = start;
    for (const redraw of this.#shell.redraws) {
      if (redraw.at < start) continue;
      const hidden = redrawnRange(held, first, redraw);
      if (hidden === undefined || hidden.to <= at) continue;
      if (hidden.from > at) kept.push(bytes.subarray(at - start, hidden.from - start));
      at = hidden.to;
    }
    kept.push(bytes.subarray(at - start));
    const decoder = new TextDecoder();
    return {
      text: kept.map((part) => decoder.decode(part, { stream: true })).join("") + decoder.decode(),
      end,
    };
  }

  /** The visible screen with cursor, size, alternate-screen state and title. */
  screenshot(format: "plain" | "ansi" = "plain"): Screenshot {
    return this.terminal.screenshot(format);
  }

  /** Changes the size; the program receives SIGWINCH. */
  resize(cols: number, rows: number): void {
    this.terminal.resize(cols, rows);
    this.#recorder?.resize(cols, rows);
  }

  /**
   * Starts recording to an asciicast file (replacing a recording in
   * progress), or stops with null. `path` must be absolute; an existing file
   * that is not a recording is replaced only with `overwrite`; `idleTimeLimit`
   * goes in the header, for players to shorten longer pauses. What is sent
   * to the program (passwords typed at a prompt included) is recorded only
   * with `input`, as asciinema does. The file is created 0600.
   */
  record(
    path: string | null,
    options: { overwrite?: boolean; idleTimeLimit?: number; input?: boolean } = {},
  ): void {
    if (path === null) {
      this.#stopRecording?.();
      this.#stopRecording = undefined;
      this.#recorder?.close();
      this.#recorder = undefined;
      this.#recordInput = false;
      return;
    }
    const recorder = new CastRecorder(path, {
      cols: this.terminal.cols,
      rows: this.terminal.rows,
      title: `termbridge session ${this.name}`,
      env: { SHELL: this.program[0], TERM: "xterm-256color" },
      idleTimeLimit: options.idleTimeLimit,
    }, options);
    this.record(null); // A refused file leaves the recording in progress alone.
    let offset = this.terminal.rawLog.totalBytes;
    this.#stopRecording = this.terminal.onChange(() => {
      recorder.output(this.terminal.rawLog.since(offset));
      offset = this.terminal.rawLog.totalBytes;
    });
    this.#recorder = recorder;
    this.#recordInput = options.input === true;
    this.#onRecord?.(path);
  }

  /** Whether the recording in progress takes input too. */
  #recordInput = false;

  #pipe: OutputPipe | undefined;

  /**
   * Appends the session's output from now on, as plain text, to the file at
   * absolute `path` (replacing a pipe in progress), or stops with null.
   * @returns the file piped to before, if any
   */
  pipe(path: string | null): string | undefined {
    const terminal = this.terminal;
    const next = path === null ? undefined : new OutputPipe(path, {
      outputText: (from) => this.outputText(from),
      get outputEnd() {
        return terminal.textLog.totalBytes;
      },
      onChange: (listener) => terminal.onChange(listener),
    });
    const before = this.#pipe?.path;
    this.#pipe?.close();
    this.#pipe = next;
    return before;
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
      recording: this.#recorder?.path ?? null,
    };
  }

  /** Ends the program (every process group of its terminal's session) and the recording. */
  async close(): Promise<void> {
    this.#stopTimer?.();
    if (this.#guard.audit.enabled) {
      this.#guard.record(this.#guard.actor({ session: this.name }), { event: "release" });
    }
    await this.terminal.dispose();
    this.record(null);
    this.pipe(null);
    this.#lines?.close();
  }

  /** The guard's check of a line about to be sent (see SentLineChecks.check). */
  async #check(origin: "exec" | "input", line: string): Promise<void> {
    // What reads the line: the shell at its prompt, or the program in the foreground (`python3`).
    const atShellPrompt = origin === "exec" && this.integration === "shell";
    const readBy = atShellPrompt ? undefined : this.terminal.foreground()?.programs;
    await this.#checks.check({
      origin,
      line,
      cwd: this.#shell.cwd,
      env: this.#env,
      ...(readBy ? { readBy } : {}),
      // The shell's own check records an exec'd line it is about to run (once, not twice).
      recordedByShell: origin === "exec" && this.#lines !== undefined,
    }, this.#guard.actor({ session: this.name }));
  }

  /** The server's client that last wrote to the program (see lib/safety/client.ts). */
  #lastClient: string | undefined;

  /**
   * The server's client that last wrote to the program, to whom the lines its
   * shell runs are attributed; undefined outside the server.
   */
  get lastClient(): string | undefined {
    return this.#lastClient;
  }

  /** Says that client `label` writes to the program now (for writes that bypass the session). */
  noteClient(label: string): void {
    this.#lastClient = label;
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

  #send(text: string, enter: string): void {
    if (text !== "") this.type(text, { paste: text.includes("\n") });
    if (enter !== "") {
      this.terminal.write(enter);
      this.#sent(enter);
    }
  }

  /**
   * Waits for the prompt bash draws after Ctrl+C at its prompt. When the
   * Ctrl+C came just as the prompt was drawn, before the line editor read,
   * bash only redraws the line and keeps the interrupt pending, and the next
   * key typed is lost to it ("bash: cho: command not found"): once the
   * screen has settled without a new prompt, press Ctrl+C again, which this
   * time brings one.
   */
  async #afterInterrupt(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    // Both waits end together: the first to settle aborts the other's listeners and timers.
    const done = new AbortController();
    const waiting = signal ? AbortSignal.any([signal, done.signal]) : done.signal;
    const prompt = () => this.#shell.atPrompt || this.terminal.exitStatus !== null || undefined;
    const prompted = await Promise.race([
      this.terminal.waitFor(prompt, "the prompt after Ctrl+C", timeoutMs, waiting).then(() => true),
      idleFor(this.terminal, SETTLE_MS, timeoutMs, false, waiting).then(() => false),
    ]).catch(() => true); // Timed out or aborted: exec goes on as it would have.
    done.abort();
    if (prompted || prompt()) return;
    this.keys(["C-c"]);
    await this.terminal.waitFor(prompt, "the prompt after Ctrl+C", timeoutMs, signal)
      .catch(() => {}); // Sent anyway, as exec does when it sees no prompt.
  }

  /** Notes input that went to the program: recorded, and told to the shell's state. */
  #sent(input: string): void {
    this.#lastClient = currentClient() ?? this.#lastClient;
    if (this.#recordInput) this.#recorder?.input(input);
    this.#shell.sent(input);
  }

  /**
   * Waits for the running command to end (or the timeout) and reports its
   * output so far. Aborted, it reports nothing and marks nothing as reported.
   */
  async #collect(timeoutMs: number, signal?: AbortSignal): Promise<CommandResult> {
    const running = this.#shell.running!;
    await this.terminal.waitFor(
      () =>
        this.#shell.ended(running) && this.#shell.atPrompt || this.terminal.exitStatus !== null ||
        undefined,
      "the command to finish",
      Math.max(timeoutMs, 1),
      signal,
    ).catch(() => {}); // Reported as `running`.
    signal?.throwIfAborted();
    const from = running.reported ?? running.start ?? this.terminal.textLog.totalBytes;
    if (!this.#shell.ended(running) && this.terminal.exitStatus === null) {
      const slice = this.#slice(from, undefined);
      running.reported = this.terminal.textLog.totalBytes;
      return this.#result(running.command, slice, "running", null);
    }
    this.#shell.running = undefined;
    const exitCode = running.exitCode ?? this.terminal.exitStatus?.exitCode ?? null;
    const result = this.#result(
      running.command,
      this.#slice(from, running.end),
      "completed",
      exitCode,
    );
    const status = this.terminal.exitStatus;
    if (running.end === undefined && status !== null) {
      const how = status.signal ? `was killed by ${status.signal}` : `exited (code ${exitCode})`;
      result.shellExited =
        `the shell itself ${how}: the command line ended the shell of session "${this.name}" (its last screen stays readable until the session is closed)`;
    }
    return result;
  }

  async #execUntilSettled(
    command: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<CommandResult> {
    const from = this.terminal.textLog.totalBytes;
    this.#send(command, "\r");
    const settled = await idleFor(this.terminal, SETTLE_MS, timeoutMs, true, signal).then(
      () => true,
      () => false,
    );
    signal?.throwIfAborted();
    const slice = this.#slice(from, undefined);
    const lines = slice.text.split("\n");
    if (lines[0]?.trimEnd().endsWith(command.split("\n")[0].trimEnd())) lines.shift(); // The echo.
    if (settled && lines.length > 0) lines.pop(); // The prompt line the program printed again.
    const output = lines.join("\n") + (lines.length > 0 ? "\n" : "");
    return this.#result(
      command,
      { text: output, truncated: slice.truncated },
      settled ? "completed" : "running",
      null,
    );
  }

  #slice(from: number, to: number | undefined): { text: string; truncated: boolean } {
    const log = this.terminal.textLog;
    const bytes = log.since(from);
    const firstKept = log.totalBytes - log.byteLength;
    const length = to === undefined ? bytes.length : Math.max(0, to - Math.max(from, firstKept));
    return {
      text: new TextDecoder().decode(bytes.subarray(0, length)),
      truncated: from < firstKept,
    };
  }

  #result(
    command: string,
    slice: { text: string; truncated: boolean },
    status: CommandResult["status"],
    exitCode: number | null,
  ): CommandResult {
    return {
      command,
      output: slice.text,
      exitCode,
      status,
      cwd: this.#shell.cwd,
      completion: this.integration === "shell" ? "shell-integration" : "screen-stable",
      truncated: slice.truncated,
    };
  }

  #idleResult(command: string): CommandResult {
    return this.#result(command, { text: "", truncated: false }, "completed", null);
  }

  #checkAlive(what: string): void {
    const status = this.terminal.exitStatus;
    if (status === null) return;
    const how = status.signal
      ? `was killed by ${status.signal}`
      : `exited with code ${status.exitCode}`;
    throw new SessionBusyError(
      `Cannot send ${JSON.stringify(what)} to session "${this.name}": ${
        basename(this.program[0])
      } ${how}; close it and open a new one`,
    );
  }
}

/**
 * The text-log range a redraw repeats, when it repeats the prompt's last line
 * and the line typed after it exactly; undefined otherwise (the line was
 * replaced, or the log no longer holds it). `held` is the log from `first`.
 */
function redrawnRange(
  held: Uint8Array,
  first: number,
  redraw: { promptEnd: number; at: number },
): { from: number; to: number } | undefined {
  const promptEnd = redraw.promptEnd - first;
  const at = redraw.at - first;
  if (promptEnd < 0 || at > held.length) return undefined;
  const lineStart = held.lastIndexOf(0x0a, promptEnd - 1) + 1;
  const prompt = promptEnd - lineStart;
  const redrawStart = at - prompt;
  const length = redrawStart - lineStart; // The prompt's last line and the line typed after it.
  if (redrawStart < promptEnd || at + (length - prompt) > held.length) return undefined;
  for (let i = 0; i < length; i++) {
    if (held[lineStart + i] !== held[redrawStart + i]) return undefined;
  }
  return { from: first + redrawStart, to: first + redrawStart + length };
}

/** The error of a shell that showed no prompt within `ms`: what to check, and how. */
function slowStart(name: string, program: string, ms: number, screen: string): SessionStartError {
  const shell = basename(program);
  const skip = shell === "zsh" ? `${shell} --no-rcs` : `${shell} --norc`;
  return new SessionStartError(
    `Cannot open session ${JSON.stringify(name)}: ${shell} showed no prompt within ${
      ms / 1000
    } s, so it was hung up: its start-up files (~/.${shell}rc and what they run) are the likely cause; ` +
      `time them with "${shell} -ic exit", open the session without them ("${skip}" as its program), ` +
      `or allow longer with --start-timeout SECONDS or the config key shellStartTimeout; ` +
      `the screen showed:\n${screen}`,
    screen,
  );
}

/** The client a typed line is attributed to: the session's last writer. */
function clientOf(session: Session | undefined): { client?: string } {
  const client = session?.lastClient;
  return client === undefined ? {} : { client };
}
