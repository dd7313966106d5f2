/**
 * The command terminals an agent asks for (ACP's `terminal/*` methods), in
 * the core's terms: create, output, wait for exit, kill, release; scoped by
 * session. No protocol knowledge: front ends map requests onto this.
 * @module
 */

import { type ExitStatus, runtime } from "../runtime/mod.ts";
import { TerminalError } from "../terminal/errors.ts";
import { checkWorkingDirectory } from "../terminal/launch.ts";
import { Terminal, TERMINAL_DEFAULTS } from "../terminal/terminal.ts";
import { Guard } from "../safety/guard.ts";
import type { Actor } from "../safety/types.ts";
import { type CommandPlan, planCommand } from "./command_line.ts";
import type { FileAccess } from "./text_files.ts";
import {
  commandSecondsHit,
  type LimitHit,
  type Limits,
  sandboxPrefix,
  type SandboxSettings,
  TerminalBudget,
  writeRoots,
} from "../sandbox/mod.ts";

/** The request did not make sense (bad cwd, env name, limit): the caller must change it. */
export class InvalidRequestError extends TerminalError {}

/** No terminal with that id is known to that session. */
export class TerminalNotFoundError extends TerminalError {}

/** Settings of a terminal service. */
export interface TerminalServiceOptions {
  /** Working directory when a request gives none. */
  cwd: string;
  /** Base environment of every command; defaults to termbridge's own. */
  env?: Record<string, string>;
  /** Hard ceiling of kept output per terminal, in bytes (16 MiB by default). */
  outputCeiling?: number;
  /** Time between SIGTERM and SIGKILL on kill and release. */
  killGraceMs?: number;
  cols?: number;
  rows?: number;
  /** Policy, approvals and audit of every command and file (default: none of them). */
  guard?: Guard;
  /** The sandbox commands run in (default: off). */
  sandbox?: SandboxSettings;
  /** `limits` of the configuration: terminals, commandSeconds, cpuSeconds, memoryBytes, processes. */
  limits?: Limits;
  /**
   * Output the exited, unreleased terminals keep together before the oldest
   * are cut to their tail (default {@linkcode EXITED_OUTPUT_BYTES}, and never
   * less than `outputCeiling`).
   */
  exitedOutputBytes?: number;
  /**
   * Places for running terminals, shared with the sessions of the same
   * process; by default one of its own, of `limits.terminals` places.
   */
  budget?: TerminalBudget;
}

/** What an agent asks to run. */
export interface CreateRequest {
  sessionId: string;
  command: string;
  args?: string[] | null;
  env?: { name: string; value: string }[] | null;
  cwd?: string | null;
  outputByteLimit?: number | null;
}

/** A terminal's output as `terminal/output` reports it. */
export interface OutputSnapshot {
  output: string;
  truncated: boolean;
  /** Present only once the command exited. */
  exitStatus?: ExitStatus;
}

/** Something that happened to a terminal, for renderers and event logs. */
export type TerminalEvent =
  | {
    type: "created";
    id: string;
    sessionId: string;
    command: string;
    cwd: string;
    via: CommandPlan["via"];
    /** The live terminal, readable until its `released` event has been delivered. */
    terminal: Terminal;
  }
  | { type: "exited"; id: string; sessionId: string; status: ExitStatus; durationMs: number }
  | { type: "killed"; id: string; sessionId: string }
  /** A limit was hit: the command was killed for it, or failed under it (the output says so too). */
  | { type: "limit"; id: string; sessionId: string; hit: LimitHit }
  | { type: "released"; id: string; sessionId: string };

/** Variables set for every command unless the request sets them. */
const NON_INTERACTIVE_ENV = { PAGER: "cat", GIT_PAGER: "cat", GIT_TERMINAL_PROMPT: "0" };

const ENV_NAME = /^[^=\0]+$/;

interface Entry {
  id: string;
  sessionId: string;
  terminal: Terminal;
  command: string;
  startedAt: number;
}

/**
 * Output kept by the terminals that exited but were not released, in all: past
 * it (or past the output ceiling, when that is larger) the oldest ones keep
 * only their last {@linkcode EXITED_TAIL_BYTES}, so that a client that never
 * releases cannot grow termbridge's memory without bound.
 */
export const EXITED_OUTPUT_BYTES = 64 * 1024 * 1024;
/** What an exited terminal cut for {@linkcode EXITED_OUTPUT_BYTES} keeps of each log. */
export const EXITED_TAIL_BYTES = 64 * 1024;

/** Command terminals, each owned by the session that created it. */
export class TerminalService {
  readonly #options:
    & Required<
      Omit<
        TerminalServiceOptions,
        "env" | "sandbox" | "limits" | "budget" | "guard" | "exitedOutputBytes"
      >
    >
    & Pick<TerminalServiceOptions, "sandbox">
    & { env: Record<string, string>; limits: Limits };
  readonly #budget: TerminalBudget;
  readonly #entries = new Map<string, Entry>();
  /** Released ids and the session each belonged to: a second release of one succeeds. */
  readonly #released = new Map<string, string>();
  /** Ids handed out whose terminal is not registered yet (being checked, sandboxed, spawned). */
  readonly #creating = new Map<string, Promise<unknown>>();
  /** Exited terminals not released yet, oldest exit first. */
  readonly #exited = new Set<Entry>();
  readonly #exitedOutputBytes: number;
  /** The guard every command and file access of this service goes through. */
  readonly guard: Guard;
  readonly #listeners = new Set<(event: TerminalEvent) => void>();
  #nextId = 1;

  constructor(options: TerminalServiceOptions) {
    this.#options = {
      cwd: options.cwd,
      env: options.env ?? runtime.env(),
      outputCeiling: options.outputCeiling ?? TERMINAL_DEFAULTS.outputLimit,
      killGraceMs: options.killGraceMs ?? TERMINAL_DEFAULTS.killGraceMs,
      cols: options.cols ?? TERMINAL_DEFAULTS.cols,
      rows: options.rows ?? TERMINAL_DEFAULTS.rows,
      // The workspace is this service's directory, never a request's cwd (see SandboxSettings).
      sandbox: options.sandbox && { workspace: options.cwd, ...options.sandbox },
      limits: options.limits ?? {},
    };
    this.#exitedOutputBytes = options.exitedOutputBytes ?? EXITED_OUTPUT_BYTES;
    this.#budget = options.budget ?? new TerminalBudget(this.#options.limits.terminals ?? 0);
    this.guard = options.guard ?? Guard.open();
  }

  /** Who accesses files for `sessionId`, for `readTextFile`/`writeTextFile`. */
  fileAccess(sessionId: string): FileAccess {
    return {
      guard: this.guard,
      actor: this.guard.actor({ session: sessionId }),
      cwd: this.#options.cwd,
      env: this.#options.env,
      writeRoots: writeRoots(this.#options.sandbox, this.#options.cwd),
    };
  }

  /** Calls `listener` for every terminal event; returns a function that removes it. */
  onEvent(listener: (event: TerminalEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Starts a command and returns its terminal id once it started (the
   * command keeps running), after the policy allowed it, asking first if it
   * says so.
   * @throws {InvalidRequestError} for a relative or missing cwd, a bad env name or limit
   * @throws {PolicyDeniedError} when the policy refuses it or nobody approved it
   * @throws {SpawnError} when a program to exec directly does not exist
   * @throws {SandboxUnavailableError} when the sandbox is on and cannot be had
   * @throws {LimitError} when `limits.terminals` terminals are running
   */
  async create(request: CreateRequest, signal?: AbortSignal): Promise<string> {
    for (
      const [field, value] of [
        ["command", request.command],
        ...(request.args ?? []).map((a, i) => [`args[${i}]`, a]),
      ]
    ) {
      if (value.includes("\0")) {
        throw new InvalidRequestError(`Cannot run the command: ${field} contains a NUL character`);
      }
    }
    const cwd = request.cwd ?? this.#options.cwd;
    try {
      checkWorkingDirectory(cwd);
    } catch (error) {
      throw new InvalidRequestError((error as Error).message);
    }
    const env: Record<string, string> = { ...this.#options.env, ...NON_INTERACTIVE_ENV };
    for (const { name, value } of request.env ?? []) {
      if (!ENV_NAME.test(name)) {
        throw new InvalidRequestError(
          `Cannot set environment variable ${
            JSON.stringify(name)
          }: a name must be non-empty and contain no "=" or NUL`,
        );
      }
      if (value.includes("\0")) {
        throw new InvalidRequestError(
          `Cannot set environment variable ${
            JSON.stringify(name)
          }: its value contains a NUL character`,
        );
      }
      env[name] = value;
    }
    const limit = this.#outputLimit(request.outputByteLimit);
    const id = `term-${this.#nextId++}`;
    const actor = this.guard.actor({ session: request.sessionId, terminal: id });
    // Until the terminal is registered (the check, then the sandbox's set-up, then the spawn),
    // a request naming the id waits for it (settled): a client that pipelines requests after
    // create, with the id it can predict, finds the terminal.
    let registered!: () => void;
    this.#creating.set(id, new Promise<void>((resolve) => registered = resolve));
    let started: { terminal: Terminal; plan: CommandPlan; giveBack: () => void };
    try {
      started = await this.#start(request, { actor, cwd, env, limit }, signal);
    } catch (error) {
      this.#creating.delete(id);
      registered();
      throw error;
    }
    const { terminal, plan, giveBack } = started;
    const entry = {
      id,
      sessionId: request.sessionId,
      terminal,
      command: describe(request),
      startedAt: performance.now(),
    };
    this.#entries.set(id, entry);
    this.#creating.delete(id);
    registered();
    if (this.guard.audit.enabled) {
      this.guard.record(actor, { event: "start", pid: terminal.pid, command: entry.command });
    }
    this.#emit({
      type: "created",
      id,
      sessionId: request.sessionId,
      command: entry.command,
      cwd,
      via: plan.via,
      terminal,
    });
    const seconds = this.#options.limits.commandSeconds ?? 0;
    const timer = seconds > 0
      ? setTimeout(() => {
        const hit = commandSecondsHit(seconds);
        this.#limitHit(actor, hit);
        this.#emit({ type: "limit", id, sessionId: request.sessionId, hit });
        void terminal.killForLimit(hit, this.#options.killGraceMs);
      }, seconds * 1000)
      : undefined;
    void terminal.wait().then((status) => {
      clearTimeout(timer);
      giveBack();
      const durationMs = performance.now() - entry.startedAt;
      const hit = terminal.limitHit;
      if (hit !== null && hit.limit !== "limits.commandSeconds") {
        this.#limitHit(actor, hit);
        this.#emit({ type: "limit", id, sessionId: request.sessionId, hit });
      }
      if (this.guard.audit.enabled) {
        this.guard.record(actor, {
          event: "exit",
          exitCode: status.exitCode,
          signal: status.signal,
          durationMs: Math.round(durationMs * 1000) / 1000,
          outputBytes: terminal.textLog.totalBytes,
        });
      }
      this.#emit({ type: "exited", id, sessionId: request.sessionId, status, durationMs });
      if (this.#entries.get(id) === entry) {
        this.#exited.add(entry);
        this.#boundExitedOutput();
      }
    });
    return id;
  }

  /** The policy's check, then the sandbox and the spawn, of `create`; `giveBack` frees the place. */
  async #start(
    request: CreateRequest,
    context: { actor: Actor; cwd: string; env: Record<string, string>; limit: number },
    signal?: AbortSignal,
  ): Promise<{ terminal: Terminal; plan: CommandPlan; giveBack: () => void }> {
    const { actor, cwd, env, limit } = context;
    // `args: []` runs `command` as a line (planCommand): it is checked as one.
    const args = request.args?.length ? request.args : undefined;
    await this.guard.checkCommand(
      {
        origin: "create",
        ...(args === undefined ? { line: request.command } : { argv: [request.command, ...args] }),
        cwd,
        env,
        envNames: (request.env ?? []).map((e) => e.name),
      },
      actor,
      signal,
    );
    const plan: CommandPlan = planCommand(request.command, args, {
      env,
      cwd,
      endOnCpuLimit: (this.#options.limits.cpuSeconds ?? 0) > 0,
    });
    const giveBack = this.#budget.take("the command");
    try {
      const sandbox = await sandboxPrefix(this.#options.sandbox, cwd, env) ?? undefined;
      const terminal = Terminal.spawn({
        argv: plan.argv,
        cwd,
        env,
        cols: this.#options.cols,
        rows: this.#options.rows,
        outputLimit: limit,
        screen: "lazy",
        // Nothing can type into an agent's command: reading stdin gives end of file.
        stdin: "null",
        sandbox,
        limits: this.#options.limits,
      });
      return { terminal, plan, giveBack };
    } catch (error) {
      giveBack();
      throw error;
    }
  }

  /**
   * Resolves once a terminal id being created is known or refused, so that a
   * client that sends requests without waiting for create's reply (ids are
   * predictable) finds the terminal; at once for any other id.
   */
  async settled(id: string): Promise<void> {
    await this.#creating.get(id)?.catch(() => {}); // The create request reports the refusal.
  }

  /** The output so far; `exitStatus` only once the command exited. */
  output(sessionId: string, id: string): OutputSnapshot {
    const { terminal } = this.#get(sessionId, id);
    const { text, truncated } = terminal.output();
    const status = terminal.exitStatus;
    return status === null
      ? { output: text, truncated }
      : { output: text, truncated, exitStatus: status };
  }

  /**
   * Resolves with the exit status once the command exited (at once if it has).
   * Rejects with the signal's reason when `signal` aborts first.
   */
  async waitForExit(sessionId: string, id: string, signal?: AbortSignal): Promise<ExitStatus> {
    const { terminal } = this.#get(sessionId, id);
    if (signal === undefined) return await terminal.wait();
    signal.throwIfAborted();
    let onAbort!: () => void;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([terminal.wait(), aborted]);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Kills the command's process group; output and exit status stay readable. */
  async kill(sessionId: string, id: string): Promise<void> {
    const { terminal } = this.#get(sessionId, id);
    if (terminal.exitStatus === null) {
      this.guard.record(this.guard.actor({ session: sessionId, terminal: id }), {
        event: "kill",
        signal: "SIGTERM",
      });
      this.#emit({ type: "killed", id, sessionId });
    }
    await terminal.kill("SIGTERM", this.#options.killGraceMs);
  }

  /**
   * Kills the command if it runs, frees everything; the id is then invalid
   * for every method but `release`: releasing it again does nothing, as
   * agents that release twice expect (acpx answers it the same way).
   */
  async release(sessionId: string, id: string): Promise<void> {
    if (!this.#entries.has(id) && this.#released.get(id) === sessionId) return;
    const entry = this.#get(sessionId, id);
    this.guard.record(this.guard.actor({ session: sessionId, terminal: id }), { event: "release" });
    this.#entries.delete(id);
    this.#exited.delete(entry);
    this.#released.set(id, sessionId);
    await entry.terminal.kill("SIGTERM", this.#options.killGraceMs);
    this.#emit({ type: "released", id, sessionId }); // Still readable by listeners here.
    await entry.terminal.dispose();
  }

  /** The terminal behind an id, for display (the caller must not dispose it). */
  terminal(sessionId: string, id: string): Terminal {
    return this.#get(sessionId, id).terminal;
  }

  /** Kills every running command; the terminals stay readable. */
  async killAll(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => this.kill(e.sessionId, e.id)));
  }

  /** Kills and releases every terminal (agent gone, termbridge shutting down). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => this.release(e.sessionId, e.id)));
  }

  #get(sessionId: string, id: string): Entry {
    const entry = this.#entries.get(id);
    if (entry === undefined) {
      const why = this.#released.has(id) ? "it was released" : "no terminal has that id";
      throw new TerminalNotFoundError(`Unknown terminal ${JSON.stringify(id)}: ${why}`);
    }
    if (entry.sessionId !== sessionId) {
      throw new TerminalNotFoundError(
        `Unknown terminal ${JSON.stringify(id)} in session ${
          JSON.stringify(sessionId)
        }: it belongs to another session`,
      );
    }
    return entry;
  }

  #outputLimit(requested: number | null | undefined): number {
    if (requested === undefined || requested === null) return this.#options.outputCeiling;
    if (!Number.isInteger(requested) || requested < 0) {
      throw new InvalidRequestError(
        `Cannot use outputByteLimit ${
          JSON.stringify(requested)
        }: expected a whole number of bytes >= 0`,
      );
    }
    return Math.min(requested, this.#options.outputCeiling);
  }

  /** Cuts the oldest exited terminals' output to its tail while they keep too much together. */
  #boundExitedOutput(): void {
    const kept = (entry: Entry) =>
      entry.terminal.textLog.byteLength + entry.terminal.rawLog.byteLength;
    let total = 0;
    for (const entry of this.#exited) total += kept(entry);
    const budget = Math.max(this.#exitedOutputBytes, this.#options.outputCeiling);
    for (const entry of this.#exited) {
      if (total <= budget) break;
      const before = kept(entry);
      entry.terminal.textLog.shrink(EXITED_TAIL_BYTES);
      entry.terminal.rawLog.shrink(EXITED_TAIL_BYTES);
      total -= before - kept(entry);
    }
  }

  /** Records a limit that was hit, in the words the caller is told. */
  #limitHit(actor: Actor, hit: LimitHit): void {
    this.guard.record(actor, {
      event: "limit",
      limit: hit.limit,
      message: hit.message,
    });
  }

  #emit(event: TerminalEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}

function describe(request: CreateRequest): string {
  const args = request.args ?? [];
  return [request.command, ...args.map((a) => /[\s"'$]/.test(a) ? JSON.stringify(a) : a)].join(" ");
}
