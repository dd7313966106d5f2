/**
 * One program in a real pseudo-terminal, with a headless emulator for its
 * screen and append-only logs of its output.
 * @module
 */

import { basename } from "node:path";
import {
  type ExitStatus,
  type PtyProcess,
  runtime,
  TooManyOpenFilesError,
} from "../runtime/mod.ts";
import { Emulator, type TerminalModes } from "./emulator.ts";
import {
  OpenFilesExhaustedError,
  SpawnError,
  TerminalDisposedError,
  WaitTimeoutError,
} from "./errors.ts";
import { timerMs } from "../base/timing.ts";
import { keyToSequence } from "./keys.ts";
import { checkWorkingDirectory, resolveProgram } from "./launch.ts";
import { containment, type TerminalCgroup } from "../sandbox/containment.ts";
import { resourceLimitHit, rlimitPrefix } from "../sandbox/rlimits.ts";
import type { LimitHit, ResourceLimits } from "../sandbox/types.ts";
import { OutputLog } from "./output_log.ts";
import { linesToText, type ScreenScope } from "./screen.ts";
import {
  foregroundActivity,
  type ForegroundReader,
  foregroundReader,
  sessionProcessGroups,
} from "./process_groups.ts";
import { PlainTextStream } from "./text_stream.ts";
import { PrivateOscFilter } from "./private_osc.ts";
import { settleWithin } from "../base/timing.ts";

export type { MouseEncoding, TerminalModes } from "./emulator.ts";

/** Defaults of a new terminal. */
export const TERMINAL_DEFAULTS = {
  cols: 120,
  rows: 40,
  scrollback: 1000,
  /** Ceiling of the plain-text log, in bytes. */
  outputLimit: 16 * 1024 * 1024,
  /** Ceiling of the raw log (escape sequences included), in bytes. */
  rawLimit: 1024 * 1024,
  /** Time between SIGTERM and SIGKILL when killing. */
  killGraceMs: 2000,
} as const;

/** A terminal's emulated state at one point of its output (see `Terminal.snapshot`). */
export interface TerminalSnapshot {
  /** Text that rebuilds the state in an xterm.js of `cols` x `rows`. */
  data: string;
  /**
   * The raw log's `totalBytes` the state stands at: before the start of a
   * UTF-8 character the output so far ends in the middle of, so that the
   * bytes from here rebuild it whole.
   */
  offset: number;
  cols: number;
  rows: number;
}

/** How to start a terminal. */
export interface TerminalOptions {
  /** Program and arguments. */
  argv: string[];
  /** Working directory, absolute; defaults to termbridge's own. */
  cwd?: string;
  /** The complete environment; defaults to termbridge's. `TERM` is always `xterm-256color`. */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  scrollback?: number;
  /** Bytes of plain text kept; older text is dropped from the front. */
  outputLimit?: number;
  /** Bytes of raw output kept. */
  rawLimit?: number;
  /**
   * `"terminal"` (default): the program reads the terminal, as for a person.
   * `"null"`: it reads /dev/null and gets end of file at once, so nothing
   * waits for input that cannot come; its output is still the terminal's.
   */
  stdin?: "terminal" | "null";
  /**
   * `"eager"` (default) emulates the screen as output arrives; `"lazy"` only
   * keeps the logs and builds the screen from the raw log on first use, for
   * terminals nobody may ever look at.
   */
  screen?: "eager" | "lazy";
  /**
   * Argv that runs the program inside the sandbox (from `sandboxPrefix` in
   * lib/sandbox), put before the program; none by default.
   */
  sandbox?: string[];
  /** CPU seconds, address space and processes the program may use. */
  limits?: ResourceLimits;
  /**
   * An OSC number private to termbridge (its shell hooks' requests): such
   * strings are kept out of the raw log (so out of attached clients and
   * recordings) and off the screen, and still reported to `onOsc` listeners.
   */
  privateOsc?: number;
}

/** A picture of the screen. */
export interface Screenshot {
  content: string;
  cursor: { x: number; y: number };
  dimensions: { cols: number; rows: number };
  altScreen: boolean;
  title: string;
}

/** Options of a screen read. */
export interface ScreenOptions {
  /** `"all"` (default) includes the scrollback. */
  scope?: ScreenScope;
  /** Join lines the terminal soft-wrapped. */
  joinWrapped?: boolean;
}

const encoder = new TextEncoder();

/** A program running in a pseudo-terminal. */
export class Terminal {
  /** Program and arguments as started. */
  readonly argv: readonly string[];
  readonly #pty: PtyProcess;
  readonly #raw: OutputLog;
  /** Takes the private OSC strings out of what goes into `#raw`. */
  #private: PrivateOscFilter | undefined;
  readonly #text: OutputLog;
  readonly #plain = new PlainTextStream();
  readonly #listeners = new Set<() => void>();
  readonly #oscListeners = new Set<(osc: string, textOffset: number) => void>();
  readonly #resizeListeners = new Set<(cols: number, rows: number) => void>();
  readonly #exited: Promise<ExitStatus>;
  #emulator: Emulator | undefined;
  #size: { cols: number; rows: number; scrollback: number };
  #exitStatus: ExitStatus | null = null;
  #disposed = false;
  /** Whether the emulator failed on this program's output (said once, in the output). */
  #emulatorFailed = false;
  /** Every process the program starts, wherever it goes; null without containment. */
  readonly #cgroup: TerminalCgroup | null;
  #killedByUs = false;
  #limitHit: LimitHit | null = null;

  private constructor(options: TerminalOptions) {
    const cwd = options.cwd ?? runtime.cwd();
    checkWorkingDirectory(cwd);
    // The screen is xterm's: programs must not be told otherwise by an inherited TERM.
    const env = { ...(options.env ?? runtime.env()), TERM: "xterm-256color" };
    const [program, ...args] = options.argv;
    const path = resolveProgram(program ?? "", env, cwd);
    this.argv = [...options.argv];
    this.#size = {
      cols: options.cols ?? TERMINAL_DEFAULTS.cols,
      rows: options.rows ?? TERMINAL_DEFAULTS.rows,
      scrollback: options.scrollback ?? TERMINAL_DEFAULTS.scrollback,
    };
    this.#raw = new OutputLog(options.rawLimit ?? TERMINAL_DEFAULTS.rawLimit);
    if (options.privateOsc !== undefined) this.#private = new PrivateOscFilter(options.privateOsc);
    this.#text = new OutputLog(options.outputLimit ?? TERMINAL_DEFAULTS.outputLimit);
    if (options.screen !== "lazy") this.#emulator = new Emulator(this.#size);
    this.#cgroup = containment().create(basename(path));
    try {
      this.#pty = runtime.spawnPty({
        // Each wrapper execs the next: the pid, exit status and signal are the program's.
        argv: [
          ...this.#cgroup?.prefix ?? [],
          ...options.sandbox ?? [],
          ...rlimitPrefix(options.limits),
          path,
          ...args,
        ],
        cwd,
        env,
        cols: this.#size.cols,
        rows: this.#size.rows,
        stdin: options.stdin,
        onData: (bytes, more) => this.#receive(bytes, more),
      });
    } catch (error) {
      this.#emulator?.dispose();
      void this.#cgroup?.remove();
      if (error instanceof TooManyOpenFilesError) {
        throw new OpenFilesExhaustedError(
          `Cannot start ${JSON.stringify(program)}: ${error.message}`,
        );
      }
      // E2BIG (arguments too long), EAGAIN (no processes left)...: the request, not a bug.
      throw new SpawnError(`Cannot start ${JSON.stringify(program)}: ${(error as Error).message}`);
    }
    this.#exited = this.#pty.exited.then((status) => {
      const hit = resourceLimitHit(status, options.limits, this.#killedByUs);
      if (hit !== null && this.#limitHit === null) this.#report(hit);
      if (this.#private !== undefined) {
        const held = this.#private.end();
        this.#raw.append(held);
        this.#emulator?.write(held);
      }
      const rest = this.#plain.end();
      if (rest !== "") this.#text.appendText(rest);
      this.#exitStatus = status;
      this.#notify();
      return status;
    });
  }

  /**
   * Starts a program in a new pseudo-terminal.
   * @throws {SpawnError} when the program or the working directory is missing
   * @example
   * const terminal = Terminal.spawn({ argv: ["bash"] });
   * terminal.type("echo hi\r");
   */
  static spawn(options: TerminalOptions): Terminal {
    return new Terminal(options);
  }

  /** Process id, also the id of the terminal's process group. */
  get pid(): number {
    return this.#pty.pid;
  }

  /**
   * Who reads what is typed now: the terminal's foreground process group and
   * its programs (the shell at its prompt, `python3` while it runs); null
   * once the program has exited.
   */
  foreground(): ForegroundReader | null {
    return this.#exitStatus === null ? foregroundReader(this.pid) : null;
  }

  /**
   * What the foreground process group is doing (see `foregroundActivity`):
   * to tell a program waiting for input from one still starting or working
   * without output. Null once the program has exited.
   */
  activity(): { busy: boolean; look: string } | null {
    return this.#exitStatus === null ? foregroundActivity(this.pid) : null;
  }

  /** How the program ended, or null while it runs. */
  get exitStatus(): ExitStatus | null {
    return this.#exitStatus;
  }

  /** The limit the program hit (killed for it, or failed under it), or null. */
  get limitHit(): LimitHit | null {
    return this.#limitHit;
  }

  /**
   * Kills the process group because a limit was hit, and says so in the
   * output (`termbridge: killed: ...`) so that whoever reads it knows why.
   */
  async killForLimit(
    hit: LimitHit,
    graceMs: number = TERMINAL_DEFAULTS.killGraceMs,
  ): Promise<void> {
    if (this.#exitStatus !== null || this.#limitHit !== null) return;
    this.#report(hit);
    await this.kill("SIGTERM", graceMs); // The cgroup too: setsid children, double forks.
  }

  /**
   * Adds a line of termbridge's own to the output (`termbridge: MESSAGE`), as
   * if the program had printed it, so that whoever reads the output or the
   * screen learns what termbridge did (a limit it enforced).
   */
  announce(message: string): void {
    if (this.#disposed) return;
    const line = encoder.encode(`\r\ntermbridge: ${message}\r\n`);
    this.#raw.append(line);
    this.#plain.pushInto(line, this.#text);
    this.#emulator?.write(line);
    this.#notify();
  }

  /** Whether `dispose()` was called. */
  get disposed(): boolean {
    return this.#disposed;
  }

  get cols(): number {
    return this.#size.cols;
  }

  get rows(): number {
    return this.#size.rows;
  }

  /** Resolves when the program exited and all its output was received. */
  wait(): Promise<ExitStatus> {
    return this.#exited;
  }

  /**
   * Calls `listener` after each chunk of output is processed and at exit.
   * Returns a function that removes it.
   */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Calls `listener` after each change of size, with the new size. Returns a
   * function that removes it.
   */
  onResize(listener: (cols: number, rows: number) => void): () => void {
    this.#resizeListeners.add(listener);
    return () => this.#resizeListeners.delete(listener);
  }

  /**
   * Calls `listener` for every OSC string in the output (`"133;D;0"`), with its
   * position in the text log (an offset in `textLog.totalBytes` terms), before
   * the change listeners of the same chunk. Returns a function that removes it.
   */
  onOsc(listener: (osc: string, textOffset: number) => void): () => void {
    this.#oscListeners.add(listener);
    return () => this.#oscListeners.delete(listener);
  }

  /** Sends raw text to the program, as if typed, without any translation. */
  write(data: string | Uint8Array): void {
    this.#checkLive();
    this.#pty.write(typeof data === "string" ? encoder.encode(data) : data);
  }

  /**
   * Types text. Multi-line text is sent as a bracketed paste when the program
   * enabled bracketed paste mode, so that it is not run line by line.
   */
  type(text: string): void {
    const screen = this.#screen();
    const paste = text.includes("\n") && screen.bracketedPaste;
    this.write(paste ? `\x1b[200~${text}\x1b[201~` : text);
  }

  /**
   * Presses keys by name, in order: `Enter`, `C-c`, `Ctrl+C`, `ArrowUp`...
   * Arrows follow the program's cursor-key mode.
   * @returns the bytes sent, as a string
   * @throws {UnknownKeyError} naming the first unknown key, before any is sent
   */
  sendKeys(...names: string[]): string {
    this.#checkLive();
    const modes = { applicationCursorKeys: this.#screen().applicationCursorKeys };
    const sequence = names.map((name) => keyToSequence(name, modes)).join("");
    this.write(sequence);
    return sequence;
  }

  /** The input and display modes the program set, for a real terminal taking it over. */
  modes(): TerminalModes {
    return this.#screen().modes;
  }

  /** The output as plain text (control sequences removed, `\r\n` as `\n`). */
  output(): { text: string; truncated: boolean } {
    return { text: this.#text.text(), truncated: this.#text.truncated };
  }

  /** The raw output log. */
  get rawLog(): OutputLog {
    return this.#raw;
  }

  /** The plain-text output log. */
  get textLog(): OutputLog {
    return this.#text;
  }

  /** Lines on the screen, trailing blanks trimmed. */
  lines(options: ScreenOptions = {}): string[] {
    return this.#screen().lines(options.scope ?? "all", options.joinWrapped ?? false);
  }

  /** The screen as text, `"(empty terminal)"` when there is nothing. */
  screenText(options: ScreenOptions = {}): string {
    return linesToText(this.lines(options));
  }

  /**
   * The visible screen with cursor, size, alternate-screen state and title;
   * `"ansi"` keeps the colours and attributes as SGR sequences.
   */
  screenshot(format: "plain" | "ansi" = "plain"): Screenshot {
    const screen = this.#screen();
    return {
      content: format === "ansi" ? screen.ansiScreen() : linesToText(screen.lines("visible")),
      cursor: screen.cursor,
      dimensions: { cols: screen.cols, rows: screen.rows },
      altScreen: screen.altScreen,
      title: screen.title,
    };
  }

  /**
   * The emulated state as text that rebuilds it in another xterm.js of this
   * size (scrollback up to `scrollback` lines, screens, cursor, modes), and
   * the raw log's `totalBytes` it stands at: the output after `offset`
   * continues it exactly.
   */
  snapshot(scrollback: number): TerminalSnapshot {
    const screen = this.#screen();
    return {
      data: screen.serialize(scrollback),
      offset: this.#raw.totalBytes - screen.unfinishedBytes,
      cols: screen.cols,
      rows: screen.rows,
    };
  }

  /** Empties the emulated screen and scrollback; the program is not told. */
  clear(): void {
    this.#checkLive();
    this.#screen().clear();
  }

  /** Changes the size; the program receives SIGWINCH. */
  resize(cols: number, rows: number): void {
    this.#checkLive();
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 2 || rows < 1) {
      throw new RangeError(
        `Cannot resize to ${cols}x${rows}: expected whole numbers, at least 2x1`,
      );
    }
    this.#size = { ...this.#size, cols, rows };
    this.#emulator?.resize(cols, rows);
    if (this.#exitStatus === null) this.#pty.resize(cols, rows);
    for (const listener of this.#resizeListeners) listener(cols, rows);
  }

  /**
   * Sends a signal to every process group of the terminal's session (an
   * interactive shell puts each job in a group of its own); false when
   * nothing received it.
   */
  signal(signal: string): boolean {
    if (signal === "SIGKILL" || signal === "SIGTERM") this.#killedByUs = true;
    let delivered = false;
    for (const group of sessionProcessGroups(this.pid)) {
      delivered = runtime.kill(-group, signal) || delivered;
    }
    // Right after spawn on Deno the child may not lead its session yet.
    return delivered || runtime.kill(this.pid, signal);
  }

  /**
   * Kills the program: `signal` (SIGTERM) to every process group of its
   * session, then SIGKILL if it is still running after `graceMs`, and once
   * it is gone, the rest of its cgroup (or marker) at once: what left the
   * session (`setsid`, double forks) goes too. Output and exit status stay
   * readable.
   */
  async kill(
    signal = "SIGTERM",
    graceMs: number = TERMINAL_DEFAULTS.killGraceMs,
  ): Promise<ExitStatus> {
    if (this.#exitStatus === null) {
      this.signal(signal);
      if (signal !== "SIGKILL" && await settleWithin(this.#exited, graceMs) === undefined) {
        this.signal("SIGKILL");
      }
    }
    const status = await this.#exited;
    this.#cgroup?.kill();
    return status;
  }

  /**
   * Hangs the program up as closing a terminal window does, giving it time to
   * run its traps (a shell stopped in its start-up files removes its lock
   * files): SIGHUP, then SIGTERM after `graceMs`, then SIGKILL after
   * `graceMs` more, each to every process group of the terminal's session.
   */
  async hangUp(graceMs: number = TERMINAL_DEFAULTS.killGraceMs): Promise<ExitStatus> {
    if (this.#exitStatus !== null) return this.#exitStatus;
    this.#killedByUs = true;
    for (const signal of ["SIGHUP", "SIGTERM"]) {
      this.signal(signal);
      const status = await settleWithin(this.#exited, graceMs);
      if (status !== undefined) return status;
    }
    return await this.kill("SIGKILL");
  }

  /**
   * Waits until `check` returns a value other than undefined, testing after
   * every output chunk and at exit (never on a polling timer).
   * @throws {WaitTimeoutError} with the screen it saw
   * @throws the reason of `signal` once it is aborted
   */
  waitFor<T>(
    check: () => T | undefined,
    what: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const first = check();
    if (first !== undefined) return Promise.resolve(first);
    return new Promise<T>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        stop();
        signal?.removeEventListener("abort", onAbort);
        outcome();
      };
      const onAbort = () => settle(() => reject(signal!.reason));
      signal?.addEventListener("abort", onAbort, { once: true });
      const timer = setTimeout(() => {
        const screen = this.#disposed ? "" : this.screenText({ scope: "visible" });
        settle(() => reject(new WaitTimeoutError(what, timeoutMs, screen)));
      }, timerMs(timeoutMs));
      const stop = this.onChange(() => {
        try {
          const value = check();
          if (value !== undefined) settle(() => resolve(value));
        } catch (error) {
          settle(() => reject(error));
        }
      });
    });
  }

  /** Waits until the screen (scrollback included) contains `pattern`. */
  waitForText(pattern: string | RegExp, timeoutMs = 10_000): Promise<string> {
    const matches = (text: string) =>
      typeof pattern === "string" ? text.includes(pattern) : pattern.test(text);
    return this.waitFor(
      () => {
        const text = this.screenText();
        return matches(text) ? text : undefined;
      },
      `${typeof pattern === "string" ? JSON.stringify(pattern) : pattern}`,
      timeoutMs,
    );
  }

  /**
   * Kills the program if it runs (SIGHUP and SIGTERM to its group, SIGKILL
   * after 500 ms), releases the PTY and the emulator. Never leaves a process,
   * a pending read or a timer behind.
   */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#exitStatus === null) {
      // What closing a terminal window does: interactive shells ignore SIGTERM, not SIGHUP.
      this.signal("SIGHUP");
      await this.kill("SIGTERM", 500);
    }
    // Stragglers the leader left behind (background jobs) go too, and with
    // containment whatever left the session (setsid, double forks).
    this.signal("SIGKILL");
    this.#cgroup?.kill();
    await this.#pty.close();
    await this.#cgroup?.remove();
    this.#emulator?.dispose();
    this.#emulator = undefined;
    this.#listeners.clear();
    this.#oscListeners.clear();
    this.#resizeListeners.clear();
  }

  #receive(bytes: Uint8Array, more: boolean): void {
    // The private requests reach only the OSC listeners: not the raw log, not the screen.
    const shown = this.#private === undefined ? bytes : this.#private.strip(bytes);
    this.#raw.append(shown);
    const base = this.#text.totalBytes;
    // Straight into the log, as bytes: a flood makes no strings on the way (see pushInto).
    this.#plain.pushInto(bytes, this.#text);
    this.#emulator?.write(shown, more);
    const failure = this.#emulator?.takeFailure();
    if (failure !== undefined && !this.#emulatorFailed) {
      this.#emulatorFailed = true;
      this.announce(
        `the screen emulator (xterm.js) failed on this output (${failure}): the screen may miss part of it; the output logs have all of it`,
      );
    }
    for (const { osc, at } of this.#plain.takeOscMarks()) {
      for (const listener of this.#oscListeners) listener(osc, base + at);
    }
    this.#notify();
  }

  #report(hit: LimitHit): void {
    this.#limitHit = hit;
    this.announce(hit.message);
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  #screen(): Emulator {
    if (this.#disposed) throw new TerminalDisposedError();
    if (this.#emulator === undefined) {
      this.#emulator = new Emulator(this.#size);
      this.#emulator.write(this.#raw.bytes());
    }
    return this.#emulator;
  }

  #checkLive(): void {
    if (this.#disposed) throw new TerminalDisposedError();
  }
}
