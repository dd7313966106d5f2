/**
 * `termbridge serve` as a child process for the safety tests: requests sent
 * one per line, answers read by id.
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { STEP_MS, termbridgeCommand } from "../mcp/_kit.ts";

/** `termbridge serve` as a child: send requests, read answers by id. */
export class Serve {
  readonly child: ChildProcess;
  #buffer = "";
  #answers = new Map<number, Record<string, unknown>>();
  #waiters: (() => void)[] = [];
  #id = 0;
  stderr = "";

  constructor(args: string[], options: { cwd: string; env: Record<string, string> }) {
    const { command, args: pre } = termbridgeCommand();
    this.child = spawn(command, [...pre, "serve", ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stderr!.on("data", (chunk) => this.stderr += chunk);
    this.child.stdout!.on("data", (chunk) => {
      this.#buffer += chunk;
      const lines = this.#buffer.split("\n");
      this.#buffer = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line);
        this.#answers.set(message.id, message);
      }
      this.#waiters.splice(0).forEach((wake) => wake());
    });
  }

  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = ++this.#id;
    this.child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    const deadline = Date.now() + STEP_MS * 2;
    while (!this.#answers.has(id)) {
      if (Date.now() > deadline) throw new Error(`No answer to ${method}; stderr: ${this.stderr}`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, 500);
        this.#waiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
    return this.#answers.get(id)!;
  }

  async close(): Promise<void> {
    this.child.stdin!.end();
    if (this.child.exitCode === null && this.child.signalCode === null) {
      await new Promise((done) => this.child.once("exit", done));
    }
  }
}
