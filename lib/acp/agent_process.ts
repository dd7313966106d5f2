/**
 * The agent as a subprocess speaking ACP on its stdio.
 * @module
 */

import { open } from "node:fs/promises";
import * as acp from "@agentclientprotocol/sdk";
import { type ExitStatus, type PipedProcess, runtime } from "../runtime/mod.ts";
import { SpawnError } from "../terminal/errors.ts";
import { resolveProgram } from "../terminal/launch.ts";
import { explainInvalidParams } from "./stdio.ts";
import { settleWithin } from "../terminal/timing.ts";

/** A running agent and the ACP stream over its stdio. */
export interface AgentProcess {
  readonly pid: number;
  readonly stream: acp.Stream;
  readonly exited: Promise<ExitStatus>;
  /** Ends the agent: closes its stdin, then SIGTERM, then SIGKILL. */
  stop(graceMs?: number): Promise<ExitStatus>;
}

/**
 * Starts the agent in termbridge's own working directory (so relative paths
 * in its command line mean what the user typed). Its stderr passes through,
 * or goes to `logFile`.
 * @throws {SpawnError} when the agent program does not exist
 */
export function startAgent(
  argv: string[],
  options: { logFile?: string },
): AgentProcess {
  const cwd = runtime.cwd();
  const program = resolveProgram(argv[0] ?? "", runtime.env(), cwd);
  let child: PipedProcess;
  try {
    child = runtime.spawnPiped({
      argv: [program, ...argv.slice(1)],
      cwd,
      stderr: options.logFile === undefined ? "inherit" : "pipe",
    });
  } catch (error) {
    throw new SpawnError(`Cannot start the agent "${argv[0]}": ${(error as Error).message}`);
  }
  const logged = child.stderr === null || options.logFile === undefined
    ? Promise.resolve()
    : copyToFile(child.stderr, options.logFile);
  const exited = child.exited.then(async (status) => {
    await logged;
    return status;
  });
  return {
    pid: child.pid,
    stream: explainInvalidParams(acp.ndJsonStream(child.stdin, child.stdout)),
    exited,
    async stop(graceMs = 2000) {
      await child.stdin.close().catch(() => {}); // Already closed by the connection.
      const ended = await settleWithin(exited, graceMs);
      if (ended !== undefined) return ended;
      runtime.kill(child.pid, "SIGTERM");
      return await settleWithin(exited, graceMs) ??
        (runtime.kill(child.pid, "SIGKILL"), await exited);
    },
  };
}

async function copyToFile(stream: ReadableStream<Uint8Array>, path: string): Promise<void> {
  const file = await open(path, "a");
  try {
    for await (const chunk of stream) await file.write(chunk);
  } finally {
    await file.close();
  }
}
