/**
 * `termbridge mcp` spoken to with raw JSON-RPC lines (no SDK), for what the
 * SDK client cannot show: every stdout line, several requests in one write,
 * a request in the same write as the end of input.
 * @module
 */

import { spawn } from "node:child_process";
import process from "node:process";
import { serverEnv, STEP_MS, termbridgeCommand } from "./_kit.ts";

/** Every stdout line of a raw `termbridge mcp`, and a way to wait for one. */
export class RawServer {
  readonly lines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  readonly #child;
  #stderr = "";
  #pending = "";
  #changed: (() => void) | undefined;

  constructor(args: string[] = []) {
    const { command, args: before } = termbridgeCommand();
    this.#child = spawn(command, [...before, "mcp", ...args], {
      env: { ...process.env, ...serverEnv() },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.#child.stdout.setEncoding("utf8");
    this.#child.stdout.on("data", (text: string) => {
      const parts = (this.#pending + text).split("\n");
      this.#pending = parts.pop() ?? "";
      this.lines.push(...parts);
      this.#changed?.();
    });
    this.#child.stderr.on("data", (chunk: Uint8Array) => this.#stderr += String(chunk));
    this.exited = new Promise((done) =>
      this.#child.once("close", (code, signal) => {
        if (this.#pending !== "") this.lines.push(this.#pending);
        this.#changed?.();
        done({ code, signal });
      })
    );
  }

  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** Sends `signal` to the server (not through the child's kill: Deno then reports it as the cause of the exit). */
  signal(signal: "SIGTERM" | "SIGHUP"): void {
    process.kill(this.pid, signal);
  }

  /** Stops reading the server's stdout and closes it: its next write fails (EPIPE). */
  closeStdout(): void {
    this.#child.stdout.destroy();
  }

  /** Writes messages (objects as JSON, strings as they are), one line each, in one write. */
  send(...messages: unknown[]): void {
    this.#child.stdin.write(
      messages.map((m) => `${typeof m === "string" ? m : JSON.stringify(m)}\n`).join(""),
    );
  }

  /** Ends stdin, after a last message when given (in the same write, as one read for the server). */
  endInput(message?: unknown): void {
    if (message === undefined || this.#child.stdin.writableEnded) this.#child.stdin.end();
    else this.#child.stdin.end(`${JSON.stringify(message)}\n`);
  }

  /** Ends stdin, waits up to `graceMs` for the exit, then kills; resolves with how it ended. */
  async stop(graceMs = STEP_MS): Promise<{ code: number | null; signal: string | null }> {
    this.endInput();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((done) => timer = setTimeout(() => done("late"), graceMs));
    const first = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (first === "late") this.#child.kill("SIGKILL");
    return await this.exited;
  }

  /** Waits for the response line with this id. */
  async response(id: number | null): Promise<Record<string, unknown>> {
    const find = () =>
      this.lines.map((line) => {
        try {
          return JSON.parse(line);
        } catch {
          return undefined; // Not JSON: the caller's check of every line reports it.
        }
      }).find((message) => message?.id === id && ("result" in message || "error" in message));
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      return await new Promise((resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`No response ${id}:\n${this.#stderr}`)), STEP_MS);
        const check = () => {
          const found = find();
          if (found !== undefined) resolve(found);
        };
        this.#changed = check;
        check();
      });
    } finally {
      clearTimeout(timer);
      this.#changed = undefined;
    }
  }
}

/** An initialize request (id 1). */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};

/** A tools/call request. */
export function call(id: number, name: string, args: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}
