/**
 * The agent as a subprocess speaking ACP on its stdio, held like a terminal
 * (lib/sandbox/agent.ts): its whole process tree is termbridge's, and ends
 * with the agent or with termbridge.
 * @module
 */

import { open } from "node:fs/promises";
import * as acp from "@agentclientprotocol/sdk";
import { separateNoise } from "./agent_stream.ts";
import { type ExitStatus, type PipedProcess, runtime } from "../runtime/mod.ts";
import { SpawnError } from "../terminal/errors.ts";
import { resolveProgram } from "../terminal/launch.ts";
import { agentStream } from "./stdio.ts";
import { settleWithin } from "../base/timing.ts";
import { type AgentSettings, encloseAgent } from "../sandbox/mod.ts";
import { agentEnv } from "./agent_shell.ts";
import { HOOK_TOKEN_VARIABLE, newHookToken } from "./hook_loopback.ts";
import { lineShell } from "../service/command_line.ts";

/** Most lines the agent printed on stdout that are not JSON-RPC kept for diagnostics. */
export const KEPT_NOISE_LINES = 10;

/** A running agent and the ACP stream over its stdio. */
export interface AgentProcess {
  /** The process termbridge started: the agent's own, or in the sandbox bwrap's (the agent's parent). */
  readonly pid: number;
  /** What holds the agent, in words: containment, sandbox, limits. */
  readonly enclosure: string;
  /** A private directory the sandboxed agent can reach (for sockets), or undefined without a sandbox. */
  readonly runtimeDir: string | undefined;
  /**
   * How Claude Code's hook reaches termbridge the cheap way (hook_loopback.ts):
   * the token in the agent's environment and the bash that connects; undefined
   * when the agent does not share termbridge's network (a sandbox without
   * network) or there is no bash.
   */
  readonly loopbackHook: { token: string; bash: string } | undefined;
  /** The ACP stream: only the lines of its stdout that look like JSON. */
  readonly stream: acp.Stream;
  readonly exited: Promise<ExitStatus>;
  /** The first lines it printed on stdout that are not JSON-RPC (at most {@linkcode KEPT_NOISE_LINES}). */
  readonly noise: readonly string[];
  /** Calls `listener` with every later line it prints on stdout that is not JSON-RPC. */
  onNoise(listener: (line: string) => void): void;
  /**
   * For an agent that ended before answering anything: what in its place
   * stopped it (the sandbox cannot be had here, in words), or null.
   */
  whyGone(): Promise<string | null>;
  /** Whether `--agent-log` was given. */
  readonly logging: boolean;
  /** Appends a line of termbridge's own to the agent log, if there is one. */
  log(line: string): void;
  /**
   * Ends the agent: closes its stdin, then SIGTERM, then SIGKILL; then
   * every process it left (its whole tree).
   */
  stop(graceMs?: number): Promise<ExitStatus>;
}

/**
 * Starts the agent in termbridge's own working directory (so relative paths
 * in its command line mean what the user typed), in its own cgroup (or
 * marked), inside the sandbox when one is set, under the agent limits. Its
 * stderr passes through, or goes to `logFile`. When the agent itself ends,
 * whatever it started is killed at once (it would otherwise hold its stdout
 * open and outlive it). Its environment is termbridge's, with Claude Code's
 * shell set to bash ({@linkcode agentEnv}).
 * @param options.workspace the session's working directory (the sandbox's writable one)
 * @throws {SpawnError} when the agent program does not exist
 * @throws {SandboxUnavailableError} when a sandbox is set and bubblewrap is not installed
 */
export async function startAgent(
  argv: string[],
  options: { logFile?: string; settings: AgentSettings; workspace: string },
): Promise<AgentProcess> {
  const cwd = runtime.cwd();
  const bash = lineShell();
  const sharesNetwork = options.settings.sandbox?.network !== false;
  // TERMBRIDGE_HOOK=binary keeps `termbridge _hook` (for comparisons and tests).
  const loopbackHook = sharesNetwork && bash.endsWith("/bash") &&
      runtime.env().TERMBRIDGE_HOOK !== "binary"
    ? { token: newHookToken(), bash }
    : undefined;
  const env = {
    ...agentEnv(runtime.env()),
    ...loopbackHook === undefined ? {} : { [HOOK_TOKEN_VARIABLE]: loopbackHook.token },
  };
  const program = resolveProgram(argv[0] ?? "", env, cwd);
  const enclosure = encloseAgent(options.settings, {
    workspace: options.workspace,
    wd: cwd,
    env,
    program,
  });
  let child: PipedProcess;
  try {
    child = runtime.spawnPiped({
      argv: [...enclosure.prefix, program, ...argv.slice(1)],
      cwd,
      env,
      stderr: options.logFile === undefined ? "inherit" : "pipe",
      newSession: enclosure.ownSession,
    });
  } catch (error) {
    await enclosure.end();
    throw new SpawnError(`Cannot start the agent "${argv[0]}": ${(error as Error).message}`);
  }
  const leaderExited = child.exited.then((status) => {
    enclosure.kill(); // What it left would keep its stdout open: the conversation is over.
    return enclosure.status(status);
  });
  /** Signals the agent itself (in the sandbox, bwrap's child); bwrap when the agent is gone. */
  const signal = (name: "SIGTERM" | "SIGKILL") =>
    runtime.kill(enclosure.agentPid(child.pid) ?? child.pid, name);
  const log = options.logFile === undefined ? undefined : new AgentLog(options.logFile);
  const logged = child.stderr === null || log === undefined
    ? Promise.resolve()
    : log.copy(child.stderr);
  const exited = leaderExited.then(async (status) => {
    await logged;
    await log?.close();
    return status;
  });
  const noise: string[] = [];
  let noiseListener: (line: string) => void = () => {};
  const stdout = separateNoise(child.stdout, (line) => {
    if (noise.length < KEPT_NOISE_LINES) noise.push(line);
    void log?.write(`termbridge: the agent printed on stdout (not JSON-RPC): ${line}\n`);
    noiseListener(line);
  });
  return {
    pid: child.pid,
    enclosure: enclosure.description,
    runtimeDir: enclosure.runtimeDir,
    loopbackHook,
    stream: agentStream(child.stdin, stdout),
    exited,
    noise,
    onNoise: (listener) => noiseListener = listener,
    logging: log !== undefined,
    whyGone: () => enclosure.failure(),
    log: (line) => void log?.write(`termbridge: ${line}\n`),
    async stop(graceMs = 2000) {
      await child.stdin.close().catch(() => {}); // Already closed by the connection.
      let ended = await settleWithin(exited, graceMs);
      if (ended === undefined) {
        signal("SIGTERM");
        ended = await settleWithin(exited, graceMs) ?? (signal("SIGKILL"), await exited);
      }
      await enclosure.end();
      return ended;
    },
  };
}

const encoder = new TextEncoder();

/** The `--agent-log` file: the agent's stderr and termbridge's notes about the agent, in order. */
class AgentLog {
  readonly #file: ReturnType<typeof open>;
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  #failed = false;

  constructor(path: string) {
    this.#file = open(path, "a");
    this.#file.catch(() => {}); // Reported by the first write that needs it.
  }

  /**
   * Appends `data` after everything written before it; resolves once written.
   * Nothing is written after `close()`; a failed write (the file cannot be
   * opened, say) loses that data only and is reported once on stderr.
   */
  write(data: string | Uint8Array): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#queue = this.#queue.then(async () => {
      await (await this.#file).write(typeof data === "string" ? encoder.encode(data) : data);
    }).catch((error) => {
      if (!this.#failed) console.error(`termbridge: cannot write the agent log: ${error.message}`);
      this.#failed = true;
    });
    return this.#queue;
  }

  /** Copies a stream (the agent's stderr) into the log. */
  async copy(stream: ReadableStream<Uint8Array>): Promise<void> {
    for await (const chunk of stream) await this.write(chunk);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    await (await this.#file.catch(() => undefined))?.close();
  }
}
