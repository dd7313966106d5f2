/**
 * What a shell tells termbridge through its integration marks (OSC 133 and
 * OSC 7): the prompts it showed, whether its line editor has the terminal,
 * the command it runs with where that command's output starts and ends, and
 * its working directory.
 * @module
 */

import { existsSync } from "node:fs";
import { parseShellMark } from "./shell_integration.ts";

/** What `command` says of a command typed in the terminal rather than sent by `exec`. */
export const TYPED = "(typed in the terminal)";

/** A command the shell was given, with its place in the terminal's text log. */
export interface RunningCommand {
  command: string;
  /** Prompts the shell had shown when the command was sent. */
  prompts: number;
  /** Text-log offset where the command's output starts (OSC 133;C), once known. */
  start?: number;
  /** Offset up to which output was already returned by a `running` result. */
  reported?: number;
  /** Offset where the output ends (OSC 133;D), once known. */
  end?: number;
  exitCode?: number | null;
}

/**
 * A line editor's redraw of the prompt's last line and the line typed after
 * it (bash redraws them after the typed-line check, and at a new prompt when
 * it reads the rest of Enter's keys there), as text-log offsets: where the
 * prompt ended (its last line's length), where the line typed after it
 * starts (the prompt's end, or the last redraw's), and the redraw's own
 * prompt end.
 */
export interface Redraw {
  promptEnd: number;
  typedFrom: number;
  at: number;
}

/** How many redraws a session remembers (a read that far behind shows the older ones twice). */
const MAX_REDRAWS = 256;

/** The state of an integrated shell, kept up to date by its marks. */
export class ShellState {
  /** The line editor has the terminal: typed text is not echoed twice. */
  atPrompt = false;
  /** Ctrl+C was pressed at the prompt and the shell has not drawn a new one yet. */
  interrupted = false;
  /**
   * Ctrl+C was pressed again before that new prompt: the shell may take it
   * only once it reads again, and then throw away the line typed at it.
   */
  interruptedAgain = false;
  /** Prompts shown so far. */
  prompts = 0;
  /**
   * The shell started a prompt (133;A, from its prompt hook) since the line
   * was last handed over. Only then does the end of a prompt (133;B) mean
   * that the line editor is back: the line editor also redraws the prompt's
   * last line, with its end mark, where no new prompt begins (bash after the
   * typed-line check that Enter runs, before it runs or continues the line).
   */
  #promptStarted = false;
  /** The command sent or typed, until a result collected its end. */
  running: RunningCommand | undefined;
  /** The working directory the shell last reported. */
  cwd: string;
  /** Where the last prompt the shell started ended (its 133;B), in the text log. */
  #promptEnd: number | undefined;
  /** Where the line typed at it starts: that prompt's end, or the last redraw's. */
  #typedFrom = 0;
  /** The last cwd mark's path as the shell sent it (every prompt sends one; it rarely changes). */
  #cwdMark: string | undefined;
  /** The line editor's redraws of the prompt's last line: the most recent ones only. */
  readonly redraws: Redraw[] = [];

  constructor(cwd: string) {
    this.cwd = cwd;
  }

  /**
   * Notes input that went to the shell. Enter (or a newline) hands the line
   * to the shell; Ctrl+C makes the line editor throw the line away and start
   * over, and the terminal drops what is typed meanwhile. Either way the line
   * editor is back only when the shell has drawn its prompt again.
   */
  sent(input: string): void {
    if (input.includes("\x03")) {
      if (this.interrupted && !this.atPrompt) this.interruptedAgain = true;
      if (this.atPrompt) this.interrupted = true;
    }
    if (/[\r\n]/.test(input)) this.interruptedAgain = false; // A line was handed over meanwhile.
    // deno-lint-ignore no-control-regex -- \x03 is Ctrl+C
    if (/[\r\n\x03]/.test(input)) this.atPrompt = this.#promptStarted = false;
  }

  /** Starts following a command sent to the shell. */
  begin(command: string): RunningCommand {
    this.running = { command, prompts: this.prompts };
    return this.running;
  }

  /**
   * Whether a command is over: its end mark arrived, or a new prompt came
   * without its start mark (a line the shell did not run: empty, a comment),
   * even when nobody was waiting any more to see it.
   */
  ended(running: RunningCommand): boolean {
    return running.end !== undefined ||
      running.start === undefined && this.prompts > running.prompts;
  }

  /**
   * The prompt is back and nothing runs: a command whose end mark arrived is
   * over, even before a result collected it.
   */
  get idle(): boolean {
    return this.atPrompt && (this.running === undefined || this.ended(this.running));
  }

  /** Takes an OSC string from the terminal, at its text-log offset; other strings are ignored. */
  mark(osc: string, offset: number): void {
    const mark = parseShellMark(osc);
    if (mark === undefined) return;
    switch (mark.kind) {
      case "prompt":
        this.prompts++;
        this.#promptStarted = true;
        break;
      case "prompt-end":
        // A redraw of the prompt the line was typed at: the shell has not taken the line yet.
        if (!this.#promptStarted) {
          if (this.#promptEnd !== undefined) {
            this.redraws.push({
              promptEnd: this.#promptEnd,
              typedFrom: this.#typedFrom,
              at: offset,
            });
            if (this.redraws.length > MAX_REDRAWS) this.redraws.shift();
            this.#typedFrom = offset;
          }
          break;
        }
        this.#promptEnd = this.#typedFrom = offset;
        // A prompt end after this one without a new prompt's start is a redraw of it: bash's
        // line editor redraws the prompt at once when Enter's last key (the check's disarm,
        // a `bind -x`) is read there.
        this.#promptStarted = false;
        // The line editor has the terminal now: typed text is not echoed twice.
        this.atPrompt = true;
        this.interrupted = false;
        // A command typed in the terminal has nobody to collect its result.
        if (this.running?.command === TYPED && this.running.end !== undefined) {
          this.running = undefined;
        }
        break;
      case "command-start":
        this.atPrompt = false;
        this.running ??= { command: TYPED, prompts: this.prompts };
        this.running.start ??= offset;
        break;
      case "command-end":
        if (this.running?.start !== undefined) {
          this.running.end = offset;
          this.running.exitCode = mark.exitCode;
        }
        break;
      case "cwd":
        // The same mark as the last prompt's: the same directory, without another stat.
        if (mark.path === this.#cwdMark) break;
        this.#cwdMark = mark.path;
        this.cwd = existsSync(mark.path) ? mark.path : safeDecode(mark.path);
        break;
    }
  }
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path; // Not percent-encoded after all.
  }
}
