/**
 * What a session sends to its program: text typed or pasted, and keys
 * pressed. Each piece is noted where it matters: in the recording (when it
 * takes input), in the shell's state (Enter hands the line over), and as
 * the server's client that wrote last.
 * @module
 */

import { basename } from "node:path";
import { currentClient } from "../safety/client.ts";
import type { Terminal } from "../terminal/terminal.ts";
import { SessionBusyError } from "./errors.ts";
import type { SessionRecording } from "./session_recording.ts";
import type { ShellState } from "./shell_state.ts";
import { TypedInputAudit } from "./typed_input_audit.ts";

/** The parts of a session that its input goes to and is noted in. */
export interface InputTarget {
  readonly name: string;
  readonly program: string[];
  readonly terminal: Terminal;
  readonly shell: ShellState;
  readonly recording: SessionRecording;
  /** Whether the shell's typed-line hook reads what is typed now (it is at its prompt). */
  readonly hookReads: () => boolean;
  /** Records a line typed with `type` or `key` that no hook records (see typed_input_audit.ts). */
  readonly recordTyped: (line: string) => void;
}

/** Writes to one session's program. */
export class ProgramInput {
  readonly #target: InputTarget;
  readonly #typed: TypedInputAudit;
  /** The server's client that last wrote to the program (see lib/safety/client.ts). */
  #lastClient: string | undefined;

  constructor(target: InputTarget) {
    this.#target = target;
    this.#typed = new TypedInputAudit(target.recordTyped);
  }

  /** The server's client that last wrote to the program; undefined outside the server. */
  get lastClient(): string | undefined {
    return this.#lastClient;
  }

  /** Says that client `label` writes to the program now (for writes that bypass the session). */
  noteClient(label: string): void {
    this.#lastClient = label;
  }

  /**
   * Writes text exactly as given, as typed; with `paste`, wrapped in
   * bracketed-paste marks when the program turned that mode on (see Session.type).
   * @throws {SessionBusyError} when the program exited
   */
  type(text: string, options: { paste?: boolean } = {}): void {
    const hookReads = this.#target.hookReads();
    this.#write(text, options);
    this.#typed.typed(text, hookReads);
  }

  #write(text: string, options: { paste?: boolean }): void {
    this.checkAlive(text);
    const terminal = this.#target.terminal;
    const bracketed = options.paste === true && terminal.modes().bracketedPaste;
    // A paste end mark inside the text would end the paste early: it cannot be pasted.
    terminal.write(
      bracketed ? `\x1b[200~${text.replaceAll("\x1b[201~", "")}\x1b[201~` : text,
    );
    this.#sent(text);
  }

  /**
   * Presses keys by name, in order.
   * @throws {SessionBusyError} when the program exited
   */
  keys(names: string[]): void {
    this.checkAlive(names.join(" "));
    const hookReads = this.#target.hookReads();
    const sequence = this.#target.terminal.sendKeys(...names);
    this.#sent(sequence);
    this.#typed.typed(sequence, hookReads);
  }

  /**
   * Types `text` (pasted when it has several lines), then `enter` as it is
   * (nothing when empty).
   */
  send(text: string, enter: string): void {
    if (text !== "") this.#write(text, { paste: text.includes("\n") });
    if (enter !== "") {
      this.#target.terminal.write(enter);
      this.#sent(enter);
    }
    this.#typed.reset(); // Checked and recorded as a whole by exec or input.
  }

  /**
   * Throws when the program has exited: `what` was not sent.
   * @throws {SessionBusyError} naming how the program ended
   */
  checkAlive(what: string): void {
    const { name, program, terminal } = this.#target;
    const status = terminal.exitStatus;
    if (status === null) return;
    const how = status.signal
      ? `was killed by ${status.signal}`
      : `exited with code ${status.exitCode}`;
    throw new SessionBusyError(
      `Cannot send ${JSON.stringify(what)} to session "${name}": ${
        basename(program[0])
      } ${how}; close it and open a new one`,
    );
  }

  /** Notes input that went to the program: recorded, and told to the shell's state. */
  #sent(input: string): void {
    this.#lastClient = currentClient() ?? this.#lastClient;
    this.#target.recording.input(input);
    this.#target.shell.sent(input);
  }
}
