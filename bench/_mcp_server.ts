/**
 * The `termbridge mcp` child of the MCP benchmark: which termbridge to start
 * (the compiled binary or the source), started through the official MCP SDK
 * client over stdio, and stopped the way a host does (end of stdin).
 * @module
 */

import type { ChildProcess } from "node:child_process";
import { spawnSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client";
// The SDK maps "./*" to "*.d.ts", which misses "stdio.d.ts" for "stdio.js": name it for Deno.
// @deno-types="../node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.d.ts"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { settleWithin } from "../lib/base/timing.ts";
import { type Preference, type TermbridgeCommand, termbridgeCommand } from "./_termbridge.ts";

/**
 * The `termbridge mcp` to benchmark: `binary` (default path
 * `ROOT/dist/termbridge`), `source` (this runtime running main.ts), or `auto`
 * (the binary when it exists).
 * @throws {Error} when `binary` is asked for and not built
 */
export function mcpCommand(
  root: string,
  prefer: Preference,
  binaryPath?: string,
): TermbridgeCommand {
  return termbridgeCommand(root, ["mcp"], prefer, binaryPath);
}

/** The environment of the server: bash without the user's start-up files or history. */
export function serverEnv(): Record<string, string> {
  return { SHELL: "bash", TERMBRIDGE_NORC: "1", HISTFILE: "/dev/null" };
}

/** A started server with its client and the times of its start-up. */
export interface McpServer {
  client: Client;
  pid: number;
  /** Milliseconds from the spawn until `connect` resolved (initialize answered). */
  initializeMs: number;
  /** Milliseconds from the spawn until tools/list answered. */
  toolsListMs: number;
  toolCount: number;
  /** What the server wrote to stderr. */
  stderr(): string;
  /** Closes its stdin and waits (then SIGKILL) for the exit; resolves with how it ended. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: string | null; byEof: boolean }>;
}

/** Spawns `termbridge mcp` in `root`, completes the handshake and lists the tools, timing both. */
export async function startMcp(root: string, command: TermbridgeCommand): Promise<McpServer> {
  let stderr = "";
  const transport = new StdioClientTransport({
    command: command.command,
    args: command.args,
    env: serverEnv(),
    cwd: root,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "termbridge-bench", version: "1.0.0" });
  const start = performance.now();
  await client.connect(transport);
  const initializeMs = performance.now() - start;
  const { tools } = await client.listTools();
  const toolsListMs = performance.now() - start;
  // The SDK keeps its child private; the benchmark needs it to end it by end of stdin and
  // read its exit status.
  const child = (transport as unknown as { _process?: ChildProcess })._process;
  const exited = new Promise<{ code: number | null; signal: string | null }>((done) => {
    if (child === undefined) done({ code: null, signal: null });
    else child.once("close", (code, signal) => done({ code, signal }));
  });
  return {
    client,
    pid: transport.pid ?? -1,
    initializeMs,
    toolsListMs,
    toolCount: tools.length,
    stderr: () => stderr,
    async stop(graceMs = 5000) {
      child?.stdin?.end();
      let status = await settleWithin(exited, graceMs);
      const byEof = status !== undefined;
      if (status === undefined) {
        child?.kill("SIGKILL");
        status = await exited;
      }
      await client.close();
      return { ...status, byEof };
    },
  };
}

/**
 * Milliseconds from spawning `command --version` until it exits: the start-up
 * floor of the process, without MCP.
 * @throws {Error} when it fails
 */
export function versionRun(command: TermbridgeCommand): number {
  const args = command.args.slice(0, -1); // Without "mcp".
  const start = performance.now();
  const result = spawnSync(command.command, [...args, "--version"], { encoding: "utf8" });
  const ms = performance.now() - start;
  if (result.status !== 0) {
    throw new Error(`Cannot run ${command.command} --version: ${result.stderr}`);
  }
  return ms;
}
