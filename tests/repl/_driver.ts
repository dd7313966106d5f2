/**
 * Drives `termbridge repl` through a real pseudo-terminal, as a person
 * would: type a line, wait for the prompt to come back, read what it printed.
 * @module
 */

import { Terminal } from "../../lib/terminal/terminal.ts";
import { builtArgv, testEnv } from "../script/_cli.ts";

/** Generous waits: the test machines are small and run both runtimes. */
export const TIMEOUT_MS = 15_000;

/**
 * A prompt (`tb› ` or `tb NAME› `) that ends the output, after a line break or
 * at its start. readline may draw it twice in place (the plain text has no
 * cursor moves), hence the repetition.
 */
const PROMPT_AT_END = /(?:^|\n)(?:tb(?: [A-Za-z0-9_.:-]+)?› )+$/;

/** A REPL running in a terminal of its own. */
export class ReplDriver {
  readonly terminal: Terminal;

  constructor(dir: string, options: { env?: Record<string, string>; args?: string[] } = {}) {
    this.terminal = Terminal.spawn({
      argv: [...builtArgv(), "repl", ...(options.args ?? [])],
      cwd: dir,
      env: options.env ?? testEnv(dir),
      cols: 100,
      rows: 40,
    });
  }

  /** The whole screen, scrollback included. */
  text(): string {
    return this.terminal.screenText({ joinWrapped: true });
  }

  /** A place in the REPL's output, for {@linkcode ReplDriver.untilPrompt}. */
  mark(): number {
    return this.terminal.textLog.totalBytes;
  }

  /** The plain text the REPL printed since `mark`. */
  since(mark: number): string {
    return new TextDecoder().decode(this.terminal.textLog.since(mark));
  }

  /**
   * Waits until the REPL's output since `mark` ends with a prompt; returns
   * that output. Reads the output log, not the screen, so that a flood
   * scrolling the screen's history away cannot hide the prompt.
   */
  async untilPrompt(mark: number, timeoutMs = TIMEOUT_MS): Promise<string> {
    return await this.terminal.waitFor(
      () => {
        const text = this.since(mark);
        return PROMPT_AT_END.test(text) ? text : undefined;
      },
      "the prompt",
      timeoutMs,
    );
  }

  /** Types a line and Enter, waits for the next prompt, returns what was printed in between. */
  async send(line: string, timeoutMs = TIMEOUT_MS): Promise<string> {
    const mark = this.mark();
    this.terminal.write(line + "\r");
    const lines = (await this.untilPrompt(mark, timeoutMs)).split("\n");
    return lines.slice(1, -1).join("\n"); // Without the echoed line and the new prompt.
  }

  /** Ends the REPL's terminal (and so the REPL) if it still runs. */
  async dispose(): Promise<void> {
    await this.terminal.dispose();
  }
}
