/**
 * A program started with pipes for the end-to-end tests (termbridge itself):
 * its stdout as lines to wait for, its stderr collected, its exit awaited.
 * Works the same under Deno and Bun (runtime.spawnPiped).
 * @module
 */

import { type ExitStatus, type PipedProcess, runtime } from "../../lib/runtime/mod.ts";

/** How a child ended, with everything it printed. */
export interface Finished {
  status: ExitStatus;
  stdout: string;
  stderr: string;
}

/** A running child process; always `dispose()` it (in `finally`). */
export class Child {
  readonly #process: PipedProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: string[] = [];
  readonly #listeners = new Set<() => void>();
  readonly #finished: Promise<Finished>;
  #stderr = "";
  #stdoutEnded = false;
  #status: ExitStatus | undefined;

  private constructor(argv: string[], options: { cwd?: string; env?: Record<string, string> }) {
    this.#process = runtime.spawnPiped({
      argv,
      cwd: options.cwd,
      env: { ...runtime.env(), ...options.env },
      stderr: "pipe",
    });
    this.#writer = this.#process.stdin.getWriter();
    const stdout = this.#readLines(this.#process.stdout);
    const stderr = this.#readText(this.#process.stderr!);
    this.#finished = Promise.all([this.#process.exited, stdout, stderr]).then(([status]) => {
      this.#status = status;
      this.#notify();
      return { status, stdout: this.stdout, stderr: this.#stderr };
    });
  }

  /** Starts `argv` with the environment of the tests plus `env`. */
  static start(
    argv: string[],
    options: { cwd?: string; env?: Record<string, string> } = {},
  ): Child {
    return new Child(argv, options);
  }

  get pid(): number {
    return this.#process.pid;
  }

  /** Complete stdout lines so far. */
  get lines(): readonly string[] {
    return this.#lines;
  }

  /** Stdout so far, complete lines only. */
  get stdout(): string {
    return this.#lines.map((line) => `${line}\n`).join("");
  }

  /** Stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Writes text to the child's stdin. */
  async write(text: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(text));
  }

  /** Closes the child's stdin (end of file for it); harmless if already closed. */
  async closeStdin(): Promise<void> {
    await this.#writer.close().catch(() => {}); // Closed already, or the child is gone.
  }

  /** Sends a signal to the child; false if it is gone. */
  signal(name: string): boolean {
    return runtime.kill(this.pid, name);
  }

  /**
   * Resolves with the first stdout line (seen so far or later) for which
   * `match` is true.
   * @throws {Error} naming `what`, with what was printed, on timeout or when stdout ends first
   */
  waitForLine(match: (line: string) => boolean, what: string, timeoutMs = 30_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const line = this.#lines.find(match);
        if (line !== undefined) {
          settle(() => resolve(line));
          return true;
        }
        if (this.#stdoutEnded) {
          settle(() => reject(this.#failure(`stdout ended before ${what}`)));
          return true;
        }
        return false;
      };
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(onChange);
        outcome();
      };
      const onChange = () => void check();
      const timer = setTimeout(
        () =>
          settle(() =>
            reject(this.#failure(`timed out after ${timeoutMs} ms waiting for ${what}`))
          ),
        timeoutMs,
      );
      this.#listeners.add(onChange);
      check();
    });
  }

  /**
   * Resolves once the child exited and its output ended.
   * @throws {Error} with what it printed if that takes longer than `timeoutMs`
   */
  async finished(timeoutMs = 60_000): Promise<Finished> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(this.#failure(`timed out after ${timeoutMs} ms waiting for the exit`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.#finished, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes stdin, kills the child if it is still running after a grace, waits for its end. */
  async dispose(): Promise<void> {
    await this.closeStdin();
    if (this.#status === undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, 5000));
      await Promise.race([this.#finished, grace]);
      clearTimeout(timer);
      if (this.#status === undefined) this.signal("SIGKILL");
    }
    await this.#finished;
  }

  #failure(message: string): Error {
    return new Error(`${message}\n--- stdout ---\n${this.stdout}\n--- stderr ---\n${this.#stderr}`);
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  async #readLines(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      pending += decoder.decode(chunk, { stream: true });
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      if (parts.length > 0) {
        this.#lines.push(...parts);
        this.#notify();
      }
    }
    pending += decoder.decode();
    if (pending !== "") this.#lines.push(pending);
    this.#stdoutEnded = true;
    this.#notify();
  }

  async #readText(stream: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) this.#stderr += decoder.decode(chunk, { stream: true });
    this.#stderr += decoder.decode();
  }
}
