/**
 * Where the prompts of an `acp` run come from: `--prompt` flags, an
 * interactive chat on a terminal, or one prompt per line of stdin.
 * @module
 */

import process from "node:process";
import { createInterface, type Interface } from "node:readline";
import type * as acp from "@agentclientprotocol/sdk";
import { runtime } from "../runtime/mod.ts";

/** Yields the lines of termbridge's stdin, without their line endings. */
export async function* stdinLines(): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of runtime.stdin()) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? "";
    yield* lines;
  }
  pending += decoder.decode();
  if (pending !== "") yield pending;
}

/**
 * An interactive chat on the terminal: line editing and history (readline),
 * Ctrl+C handling, and permission questions. Ctrl+C at the prompt clears the
 * line and says how to quit; a second one in a row quits; elsewhere it calls
 * the handler set with `onInterrupt`.
 */
export class ChatConsole {
  #rl!: Interface;
  /** The chat gave the terminal away for a while (`pause`): its readline is closed, not the chat. */
  #paused = false;
  #onInterrupt: () => void = () => {};
  #closed = false;
  /** A prompt is waiting for a line. */
  #asking = false;
  /** Ctrl+C was pressed at this prompt: another one, the line still empty, quits. */
  #armed = false;

  constructor() {
    this.#open();
  }

  #open(): void {
    // The lines typed before a pause stay in the history (readline keeps them newest first).
    const history = (this.#rl as { history?: string[] } | undefined)?.history;
    this.#rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: true,
      historySize: 500,
      ...(history === undefined ? {} : { history: [...history] }),
    });
    this.#rl.on("SIGINT", () => this.#asking ? this.#idleInterrupt() : this.#onInterrupt());
    this.#rl.on("close", () => this.#closed ||= !this.#paused);
  }

  /** Lets go of the terminal (for a program the person types into); `resume` takes it back. */
  pause(): void {
    if (this.#closed || this.#paused) return;
    this.#paused = true;
    this.#rl.close();
  }

  /** Takes the terminal back after `pause`. */
  resume(): void {
    if (this.#closed || !this.#paused) return;
    this.#paused = false;
    this.#open();
  }

  /** Sets what Ctrl+C does now. */
  onInterrupt(handler: () => void): void {
    this.#onInterrupt = handler;
  }

  /** Asks for the next prompt; undefined at end of input (Ctrl+D) or after Ctrl+C twice. */
  next(promptText = "› "): Promise<string | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    this.#asking = true;
    this.#armed = false;
    return new Promise<string | undefined>((resolve) => {
      const onClose = () => resolve(undefined);
      this.#rl.once("close", onClose);
      this.#rl.question(promptText, (answer) => {
        this.#rl.off("close", onClose);
        resolve(answer);
      });
    }).finally(() => this.#asking = false);
  }

  /**
   * Ctrl+C at the prompt: the first clears the line and says how to quit; a
   * second one in a row (the line still empty) quits.
   */
  #idleInterrupt(): void {
    if (this.#armed && this.#rl.line === "") {
      process.stdout.write("\n");
      this.close();
      return;
    }
    this.#armed = true;
    this.#rl.write(null, { ctrl: true, name: "e" }); // To the end of the line,
    this.#rl.write(null, { ctrl: true, name: "u" }); // then delete all of it.
    process.stdout.write("\n(Ctrl+C again to quit, or Ctrl+D)\n");
    this.#rl.prompt();
  }

  /** Lists the options of a permission request and asks for one; undefined if cancelled. */
  async choose(
    request: acp.RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<number | undefined> {
    const title = request.toolCall.title ?? request.toolCall.toolCallId;
    const list = request.options.map((o, i) => `  ${i + 1}) ${o.name} [${o.kind}]`).join("\n");
    process.stdout.write(`\nThe agent asks permission: ${title}\n${list}\n`);
    while (!signal.aborted && !this.#closed) {
      const answer = await this.#question(`Choose 1-${request.options.length}: `, signal);
      if (answer === undefined) return undefined;
      const index = Number(answer.trim()) - 1;
      if (Number.isInteger(index) && index >= 0 && index < request.options.length) return index;
      process.stdout.write(`Please type a number from 1 to ${request.options.length}.\n`);
    }
    return undefined;
  }

  /** Writes text to the person (a question's context). */
  say(text: string): void {
    process.stdout.write(text);
  }

  /** Asks one line; undefined when `signal` aborts or the chat closes. */
  question(text: string, signal: AbortSignal): Promise<string | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    return this.#question(text, signal);
  }

  close(): void {
    this.#rl.close();
  }

  #question(text: string, signal: AbortSignal): Promise<string | undefined> {
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#rl.off("close", onAbort);
        resolve(undefined);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#rl.once("close", onAbort); // Ctrl+D or the chat closed: nobody will answer.
      this.#rl.question(text, { signal }, (answer) => {
        signal.removeEventListener("abort", onAbort);
        this.#rl.off("close", onAbort);
        resolve(answer);
      });
    });
  }
}
