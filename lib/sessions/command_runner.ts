/**
 * Exec and input for a session: a command line checked by the policy, sent
 * to the shell (or to a program without shell integration), and waited for
 * until it ends or the time is up; input sent to the running program and
 * the output it caused; and the results both report.
 * @module
 */

import type { Guard } from "../safety/guard.ts";
import { isKeyName } from "../terminal/keys.ts";
import type { Terminal } from "../terminal/terminal.ts";
import { SessionBusyError } from "./errors.ts";
import { logSlice } from "./output_text.ts";
import type { ProgramInput } from "./program_input.ts";
import type { SentLineChecks } from "./sent_lines.ts";
import type { CommandResult } from "./session_types.ts";
import type { ShellState } from "./shell_state.ts";
import { idleFor, SETTLE_MS } from "./waits.ts";

/** The parts of a session that exec and input work with. */
export interface RunnerParts {
  readonly name: string;
  readonly terminal: Terminal;
  readonly shell: ShellState;
  readonly integration: "shell" | "none";
  readonly input: ProgramInput;
  readonly guard: Guard;
  readonly checks: SentLineChecks;
  /** The session's environment, for the policy's checks. */
  readonly env: Record<string, string>;
  /** Whether the shell checks the lines it runs (then its check records exec's line). */
  readonly shellChecksLines: boolean;
}

/** Runs one session's commands and sends its input (see Session.exec and Session.input). */
export class CommandRunner {
  readonly #parts: RunnerParts;

  constructor(parts: RunnerParts) {
    this.#parts = parts;
  }

  /**
   * Runs a command line and waits until it finishes or `timeoutMs` passes
   * (see Session.exec); an empty command collects more output of the running one.
   * @throws {SessionBusyError} when a command is running or the program exited
   * @throws the reason of `signal` once it is aborted
   */
  async exec(command: string, timeoutMs: number, signal?: AbortSignal): Promise<CommandResult> {
    const { name, terminal, shell, integration, input, checks } = this.#parts;
    signal?.throwIfAborted();
    if (command.trim() === "") {
      return shell.running ? await this.#collect(timeoutMs, signal) : this.#idleResult(command);
    }
    input.checkAlive(command);
    await this.#check("exec", command);
    if (shell.running && shell.ended(shell.running)) {
      shell.running = undefined; // Nobody collected it.
    }
    if (shell.running) {
      throw new SessionBusyError(
        `Cannot run ${JSON.stringify(command)} in session "${name}": ${
          JSON.stringify(shell.running.command)
        } is still running; send it input, a key such as C-c, or an empty command to collect its output`,
      );
    }
    if (integration === "none") {
      return await this.#execUntilSettled(command, timeoutMs, signal);
    }
    if (shell.interrupted) await this.#afterInterrupt(timeoutMs, signal);
    if (shell.interruptedAgain) {
      // Ctrl+C twice at the prompt: the second may still be pending in the shell, which would
      // throw away the line typed next. One more press settles both: wait for its prompt.
      shell.interruptedAgain = false;
      if (shell.atPrompt) {
        this.#parts.input.keys(["C-c"]);
        await this.#afterInterrupt(timeoutMs, signal);
      }
    }
    if (!shell.atPrompt) {
      // Text typed before the prompt is drawn would be echoed twice: wait for it.
      await terminal.waitFor(
        () => shell.atPrompt || terminal.exitStatus !== null || undefined,
        "the prompt",
        timeoutMs,
        signal,
      ).catch(() => {}); // Sent anyway: the shell may just have a prompt termbridge cannot see.
      signal?.throwIfAborted();
    }
    const running = shell.begin(command);
    input.send(command, "\r");
    // A line the shell does not run (empty, only a comment) brings the prompt back without a start.
    await terminal.waitFor(
      () =>
        running.start !== undefined || shell.ended(running) ||
        terminal.exitStatus !== null ||
        undefined,
      "the command to start",
      timeoutMs,
      signal,
    ).catch(() => {}); // Reported as `running` below.
    checks.recordUnchecked();
    if (running.start === undefined && shell.ended(running)) {
      shell.running = undefined;
      return this.#idleResult(command);
    }
    return await this.#collect(timeoutMs, signal);
  }

  /**
   * Sends input to the running program (a key name is pressed; other text is
   * typed, then Enter unless `enter` is false) and returns the output it
   * caused (see Session.input).
   * @throws the reason of `options.signal` once it is aborted (the input was sent)
   */
  async input(
    text: string,
    options: { enter?: boolean; timeoutMs: number; signal?: AbortSignal },
  ): Promise<CommandResult> {
    const { terminal, shell, input } = this.#parts;
    const { signal } = options;
    signal?.throwIfAborted();
    input.checkAlive(text);
    const key = text.length > 1 && isKeyName(text);
    if (!key && text.trim() !== "") await this.#check("input", text);
    const from = terminal.textLog.totalBytes;
    if (key) input.keys([text]);
    else input.send(text, options.enter === false ? "" : "\r");
    const running = shell.running;
    // Both waits end together: the first to settle aborts the other's listeners.
    const done = new AbortController();
    const waiting = signal ? AbortSignal.any([signal, done.signal]) : done.signal;
    await Promise.race([
      idleFor(terminal, SETTLE_MS, options.timeoutMs, false, waiting),
      terminal.waitFor(
        () =>
          running !== undefined && shell.ended(running) ||
          terminal.exitStatus !== null ||
          undefined,
        "the command to end",
        options.timeoutMs,
        waiting,
      ),
    ]).catch(() => {}); // A timeout just ends the wait.
    done.abort();
    signal?.throwIfAborted();
    if (running !== undefined && shell.ended(running)) {
      running.reported = from;
      return this.#collect(0);
    }
    return this.#result(
      text,
      logSlice(terminal.textLog, { from, to: undefined }),
      shell.running ? "running" : "completed",
      null,
    );
  }

  /** The guard's check of a line about to be sent (see SentLineChecks.check). */
  async #check(origin: "exec" | "input", line: string): Promise<void> {
    const { name, terminal, shell, integration, guard, checks, env } = this.#parts;
    // What reads the line: the shell at its prompt, or the program in the foreground (`python3`).
    const atShellPrompt = origin === "exec" && integration === "shell";
    const readBy = atShellPrompt ? undefined : terminal.foreground()?.programs;
    await checks.check({
      origin,
      line,
      cwd: shell.cwd,
      env,
      ...(readBy ? { readBy } : {}),
      // The shell's own check records an exec'd line it is about to run (once, not twice).
      recordedByShell: origin === "exec" && this.#parts.shellChecksLines,
    }, guard.actor({ session: name }));
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
    const { terminal, shell, input } = this.#parts;
    // Both waits end together: the first to settle aborts the other's listeners and timers.
    const done = new AbortController();
    const waiting = signal ? AbortSignal.any([signal, done.signal]) : done.signal;
    const prompt = () => shell.atPrompt || terminal.exitStatus !== null || undefined;
    const prompted = await Promise.race([
      terminal.waitFor(prompt, "the prompt after Ctrl+C", timeoutMs, waiting).then(() => true),
      idleFor(terminal, SETTLE_MS, timeoutMs, false, waiting).then(() => false),
    ]).catch(() => true); // Timed out or aborted: exec goes on as it would have.
    done.abort();
    if (prompted || prompt()) return;
    input.keys(["C-c"]);
    await terminal.waitFor(prompt, "the prompt after Ctrl+C", timeoutMs, signal)
      .catch(() => {}); // Sent anyway, as exec does when it sees no prompt.
  }

  /**
   * Waits for the running command to end (or the timeout) and reports its
   * output so far. Aborted, it reports nothing and marks nothing as reported.
   */
  async #collect(timeoutMs: number, signal?: AbortSignal): Promise<CommandResult> {
    const { name, terminal, shell } = this.#parts;
    const running = shell.running!;
    await terminal.waitFor(
      () => shell.ended(running) && shell.atPrompt || terminal.exitStatus !== null || undefined,
      "the command to finish",
      Math.max(timeoutMs, 1),
      signal,
    ).catch(() => {}); // Reported as `running`.
    signal?.throwIfAborted();
    const from = running.reported ?? running.start ?? terminal.textLog.totalBytes;
    if (!shell.ended(running) && terminal.exitStatus === null) {
      const slice = logSlice(terminal.textLog, { from, to: undefined });
      running.reported = terminal.textLog.totalBytes;
      return this.#result(running.command, slice, "running", null);
    }
    shell.running = undefined;
    const exitCode = running.exitCode ?? terminal.exitStatus?.exitCode ?? null;
    const result = this.#result(
      running.command,
      logSlice(terminal.textLog, { from, to: running.end }),
      "completed",
      exitCode,
    );
    const status = terminal.exitStatus;
    if (running.end === undefined && status !== null) {
      const how = status.signal ? `was killed by ${status.signal}` : `exited (code ${exitCode})`;
      result.shellExited =
        `the shell itself ${how}: the command line ended the shell of session "${name}" (its last screen stays readable until the session is closed)`;
    }
    return result;
  }

  /** Exec without shell integration: sends the line and waits for the screen to settle. */
  async #execUntilSettled(
    command: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<CommandResult> {
    const { terminal, input } = this.#parts;
    const from = terminal.textLog.totalBytes;
    input.send(command, "\r");
    const settled = await idleFor(terminal, SETTLE_MS, timeoutMs, true, signal).then(
      () => true,
      () => false,
    );
    signal?.throwIfAborted();
    const slice = logSlice(terminal.textLog, { from, to: undefined });
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
      cwd: this.#parts.shell.cwd,
      completion: this.#parts.integration === "shell" ? "shell-integration" : "screen-stable",
      truncated: slice.truncated,
    };
  }

  #idleResult(command: string): CommandResult {
    return this.#result(command, { text: "", truncated: false }, "completed", null);
  }
}
