/**
 * Shared set-up of the MCP tests: `termbridge mcp` started as a real process
 * and driven by the official MCP SDK client over stdio, always stopped
 * afterwards (end of stdin, as an MCP host does) with its exit status checked.
 * @module
 */

import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client";
// The SDK maps "./*" to "*.d.ts", which misses "stdio.d.ts" for "stdio.js": name it for Deno.
// @deno-types="../../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { runtime } from "../../lib/runtime/mod.ts";
import { isBinaryCurrent } from "../built_binary.ts";
import { termbridgeArgv } from "../helpers.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Longest wait of one step (a tool call, a poll, the exit). */
export const STEP_MS = 15_000;

/** How a server process ended. */
export interface ExitStatus {
  code: number | null;
  signal: string | null;
}

/** What a tool call answered, reduced to what the tests look at. */
export interface ToolText {
  /** The first text content. */
  text: string;
  isError: boolean;
  structured?: Record<string, unknown>;
}

let chosen: { command: string; args: string[] } | undefined;

/**
 * The termbridge under test: `$TERMBRIDGE_BIN` when set; else the compiled
 * `dist/termbridge` when it exists and is newer than every source file (an
 * older one would test old code, or lack the mcp mode); else this runtime
 * running main.ts.
 */
export function termbridgeCommand(): { command: string; args: string[] } {
  if (chosen !== undefined) return chosen;
  const override = runtime.env().TERMBRIDGE_BIN;
  const binary = join(ROOT, "dist", "termbridge");
  if (override) {
    chosen = { command: resolve(override), args: [] };
  } else if (isBinaryCurrent(ROOT, binary)) {
    chosen = { command: binary, args: [] };
  } else {
    const [command, ...args] = termbridgeArgv();
    chosen = { command, args };
  }
  return chosen;
}

/** Makes a temporary directory (its real path: /tmp may be a link). */
export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Removes a directory made by `tempDir`. */
export function removeDir(path: string): void {
  rmSync(path, { recursive: true, force: true });
}

/**
 * The environment of the server: bash without the user's start-up files and
 * history, no user-level config file.
 */
export function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    SHELL: "bash",
    TERMBRIDGE_NORC: "1",
    HISTFILE: "/dev/null",
    XDG_CONFIG_HOME: "/nonexistent/termbridge-mcp-tests",
    ...extra,
  };
}

/** How to start a server. */
export interface StartOptions {
  /** Arguments after `mcp`. */
  args?: string[];
  /** Variables over `serverEnv()`. */
  env?: Record<string, string>;
  /** Working directory of termbridge itself (default: the repository). */
  cwd?: string;
  /** What the client says it supports, e.g. `{ elicitation: {} }` (default: nothing). */
  capabilities?: Record<string, unknown>;
}

/** One `termbridge mcp` process and the SDK client connected to it; always `close()` it. */
export class McpProcess {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  /** Errors the client saw: a stdout line that is not a JSON-RPC message lands here. */
  readonly protocolErrors: Error[] = [];
  /** The server's own TMPDIR (its shells' start-up files go there), removed after the exit. */
  readonly tmpDir = tempDir("termbridge-mcp-tmp-");
  #child: ChildProcess | undefined;
  #exited: Promise<ExitStatus> = Promise.resolve({ code: null, signal: null });
  #stderr = "";

  private constructor(options: StartOptions) {
    const { command, args } = termbridgeCommand();
    this.transport = new StdioClientTransport({
      command,
      args: [...args, "mcp", ...options.args ?? []],
      env: serverEnv({ TMPDIR: this.tmpDir, ...options.env }),
      cwd: options.cwd ?? ROOT,
      stderr: "pipe",
    });
    this.transport.stderr?.on("data", (chunk: Uint8Array) => {
      this.#stderr += new TextDecoder().decode(chunk);
    });
    this.client = new Client({ name: "termbridge-tests", version: "1.0.0" }, {
      capabilities: options.capabilities ?? {},
    });
    this.client.onerror = (error) => this.protocolErrors.push(error);
  }

  /** Starts `termbridge mcp` and completes the MCP handshake. */
  static async start(options: StartOptions = {}): Promise<McpProcess> {
    const mcp = new McpProcess(options);
    try {
      await mcp.client.connect(mcp.transport, { timeout: STEP_MS });
    } catch (error) {
      await mcp.client.close();
      removeDir(mcp.tmpDir);
      throw new Error(`Cannot start termbridge mcp: ${error}\n--- stderr ---\n${mcp.stderr}`);
    }
    // The SDK keeps its child private; the tests need it to end it the way a host does and
    // read its exit status (close() would leave a 2 s timer behind, which Deno reports).
    const child = (mcp.transport as unknown as { _process?: ChildProcess })._process;
    if (child !== undefined) {
      mcp.#child = child;
      mcp.#exited = new Promise((done) =>
        child.once("close", (code, signal) => done({ code, signal }))
      );
    }
    return mcp;
  }

  /** The server's pid. */
  get pid(): number {
    return this.transport.pid ?? -1;
  }

  /** What the server wrote on stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Calls a tool and returns its first text, its error flag and its structured content. */
  async call(name: string, args: Record<string, unknown> = {}): Promise<ToolText> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: 70_000,
    });
    const content = result.content as { type: string; text?: string }[];
    const first = content[0];
    if (content.length !== 1 || first?.type !== "text" || typeof first.text !== "string") {
      throw new Error(`Tool ${name} answered ${JSON.stringify(result)}: expected one text`);
    }
    return {
      text: first.text,
      isError: result.isError === true,
      structured: result.structuredContent as Record<string, unknown> | undefined,
    };
  }

  /**
   * Calls a tool that must succeed and returns its text.
   * @throws {Error} with the tool's text when it answered an error
   */
  async ok(name: string, args: Record<string, unknown> = {}): Promise<string> {
    const result = await this.call(name, args);
    if (result.isError) throw new Error(`${name} ${JSON.stringify(args)} failed: ${result.text}`);
    return result.text;
  }

  /** Calls a tool that must succeed and answers JSON; returns it parsed. */
  // deno-lint-ignore no-explicit-any
  async json(name: string, args: Record<string, unknown> = {}): Promise<any> {
    return JSON.parse(await this.ok(name, args));
  }

  /**
   * Polls getContent until `match` holds, and returns that content.
   * @throws {Error} showing the last content, after `timeoutMs`
   */
  async contentUntil(
    match: (content: string) => boolean,
    what: string,
    options: { session?: string; visibleOnly?: boolean; timeoutMs?: number } = {},
  ): Promise<string> {
    const { timeoutMs = STEP_MS, ...args } = options;
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const content = await this.ok("getContent", args);
      if (match(content)) return content;
      if (performance.now() > deadline) {
        throw new Error(
          `Timed out after ${timeoutMs} ms waiting for ${what}; content:\n${content}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * Ends the server as an MCP host does (closes its stdin), waits for its
   * exit (SIGKILL after `STEP_MS`), then closes the client.
   */
  async close(): Promise<ExitStatus> {
    const child = this.#child;
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((done) => timer = setTimeout(done, STEP_MS));
      await Promise.race([this.#exited, late]);
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    const status = await this.#exited;
    await this.client.close();
    removeDir(this.tmpDir);
    return status;
  }
}

/**
 * Runs `body` with a fresh server; afterwards closes it and checks that it
 * exited 0 at end of stdin and wrote nothing but protocol on stdout.
 */
export async function withMcp(
  body: (mcp: McpProcess) => Promise<void>,
  options: StartOptions = {},
): Promise<void> {
  const mcp = await McpProcess.start(options);
  let status: ExitStatus;
  try {
    await body(mcp);
  } finally {
    status = await mcp.close();
  }
  const problems = [
    ...(status.code === 0 ? [] : [`exit ${JSON.stringify(status)}`]),
    ...mcp.protocolErrors.map((error) => `protocol error: ${error.message}`),
  ];
  if (problems.length > 0) {
    throw new Error(`termbridge mcp: ${problems.join("; ")}\n--- stderr ---\n${mcp.stderr}`);
  }
}

/** A process as /proc shows it. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** The command name (comm), e.g. `sleep`. */
  name: string;
}

/** Every process that descends from `pid` (children, grandchildren...), read from /proc. */
export function descendants(pid: number): ProcessEntry[] {
  const all: ProcessEntry[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      all.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        name: stat.slice(stat.indexOf("(") + 1, close),
      });
    } catch {
      // Gone between the listing and the read.
    }
  }
  const found: ProcessEntry[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const entry of all) {
      if (parents.has(entry.ppid) && !parents.has(entry.pid)) {
        parents.add(entry.pid);
        found.push(entry);
        grew = true;
      }
    }
  }
  return found;
}
