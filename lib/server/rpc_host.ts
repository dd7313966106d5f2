/**
 * One `rpc` connection of the session server: serve's `sessions/*` methods
 * (the same code, lib/acp/session_methods.ts) over the server's sessions,
 * plus `console/run` (a line of the console language, which the subcommands
 * use), `sessions/read` and `server/*`.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import process from "node:process";
import * as z from "zod";
import { serveSessions } from "../acp/session_methods.ts";
import { explainInvalidParams } from "../acp/stdio.ts";
import { mapped, toRequestError } from "../acp/client_handlers.ts";
import { ErrorCode } from "../jsonrpc/codes.ts";
import { VERSION } from "../cli/usage.ts";
import {
  CommandError,
  ConsoleContext,
  parseLine,
  runParsed,
  type StepResult,
} from "../console/mod.ts";
import type { MessageStream } from "../jsonrpc/ndjson.ts";
import type { SessionManager } from "../sessions/manager.ts";
import type { Session, SessionOptions } from "../sessions/session.ts";
import { SERVER_METHODS } from "./wire.ts";

/** What an `rpc` connection works on: the server's sessions and its controls. */
export interface RpcHostOptions {
  sessions: SessionManager;
  /** The socket path, for `server/info`. */
  socket: string;
  /** Stops the server (after the answer to `server/stop` is sent). */
  stop: () => void;
  /** Starts the browser dashboard (once) and returns a link with a new ticket. */
  web?: (
    where: { hostname?: string; port?: number; cast?: string },
  ) => Promise<{ link: string; origin: string }>;
}

/**
 * Where each session's `sessions/read --since-last` left off, in its
 * plain-text log, per cursor name ("" is the one every client shares).
 */
const readOffsets = new WeakMap<Session, Map<string, number>>();

const schemas = {
  consoleRun: z.object({
    line: z.string(),
    session: z.string().optional(),
    cwd: z.string().optional(),
    /** Run in this connection's own console (current session, last exec), as a script does. */
    persistent: z.boolean().optional(),
    timeouts: z.object({ exec: z.number().optional(), wait: z.number().optional() }).optional(),
    /** The front end the line comes from: "repl" allows the REPL's own commands. */
    mode: z.enum(["repl", "script"]).optional(),
    /** How hints name commands: "command-line" for the subcommands (`termbridge key NAME C-c`). */
    hints: z.enum(["console", "command-line"]).optional(),
    /** Draw screens with terminal styles. */
    styled: z.boolean().optional(),
    /** Size of sessions opened without one. */
    size: z.object({ cols: z.number().int(), rows: z.number().int() }).optional(),
    /**
     * Sent without waiting for the answer to the line before (a script's lines,
     * `run --server`): see {@linkcode LineQueue}. Needs `persistent`.
     */
    pipelined: z.object({ keepGoing: z.boolean() }).optional(),
  }),
  read: z.object({
    name: z.string(),
    sinceLast: z.boolean().optional(),
    /** A named cursor for sinceLast: each client (script) keeps its own position. */
    cursor: z.string().max(200).optional(),
    /** Read from this position (the `totalBytes` an earlier read returned). */
    since: z.number().int().min(0).optional(),
  }),
  web: z.object({
    hostname: z.string().optional(),
    port: z.number().int().optional(),
    cast: z.string().optional(),
  }),
  none: z.object({}).optional(),
};

/** Serves one JSON-RPC connection over `stream`; resolves when it closes. */
export async function serveRpc(stream: MessageStream, options: RpcHostOptions): Promise<void> {
  const { sessions } = options;
  const app = serveSessions(acp.client({ name: "termbridge server" }), sessions);
  let scriptConsole: ConsoleContext | undefined;
  const queue = new LineQueue();
  app.onRequest(SERVER_METHODS.consoleRun, schemas.consoleRun, async ({ params, signal }) => {
    let parsed;
    try {
      parsed = parseLine(params.line, params.mode ?? "script", params.hints);
    } catch (error) {
      if (error instanceof CommandError) throw new acp.RequestError(-32602, error.message);
      throw error;
    }
    if (parsed === null) throw new acp.RequestError(-32602, "Cannot run an empty line");
    const made = () =>
      new ConsoleContext({
        sessions: params.cwd === undefined ? sessions : openingIn(sessions, params.cwd),
        mode: params.mode ?? "script",
        hints: params.hints,
        cwd: params.cwd ?? "/",
        timeouts: params.timeouts,
        styled: params.styled,
        size: params.size,
      });
    const ctx = params.persistent ? scriptConsole ??= made() : made();
    const run = async () => {
      if (params.session !== undefined) ctx.current = params.session;
      const result = await runParsed(ctx, parsed, { signal });
      return {
        ...result,
        quit: ctx.quitRequested,
        current: ctx.current,
        sessions: sessions.list().map((session) => session.name),
      };
    };
    if (params.pipelined === undefined || !params.persistent) return await run();
    const keepGoing = params.pipelined.keepGoing;
    return {
      ...await queue.run(parsed.command.name, signal, async () => {
        const result = await run();
        const stop = result.quit
          ? "the script quit"
          : !result.ok && !keepGoing
          ? "a line before it failed"
          : null;
        return { result, stop };
      }),
      pipelined: true,
    };
  });
  app.onRequest(SERVER_METHODS.read, schemas.read, ({ params }) =>
    mapped(() => {
      const session = sessions.get(params.name);
      let cursors = readOffsets.get(session);
      if (cursors === undefined) readOffsets.set(session, cursors = new Map());
      const key = params.cursor ?? "";
      const from = params.since ?? (params.sinceLast ? cursors.get(key) ?? 0 : 0);
      // The log may have dropped its start (output ceiling): read from what it still holds.
      const { text, end } = session.outputText(from);
      if (params.sinceLast || params.cursor !== undefined) cursors.set(key, end);
      const exitStatus = session.terminal.exitStatus;
      return { text, totalBytes: end, exited: exitStatus !== null, exitStatus };
    }));
  app.onRequest(SERVER_METHODS.info, schemas.none, () => ({
    pid: process.pid,
    version: VERSION,
    socket: options.socket,
    sessions: sessions.list(),
  }));
  app.onRequest(SERVER_METHODS.stop, schemas.none, () => {
    setTimeout(options.stop, 0); // After the answer is on its way.
    return { stopping: true };
  });
  const web = options.web;
  if (web !== undefined) {
    app.onRequest(SERVER_METHODS.web, schemas.web, async ({ params }) => {
      try {
        return await web(params);
      } catch (error) {
        // An unknown session keeps its code (the client exits 121); the rest say what failed.
        const known = toRequestError(error);
        throw known instanceof acp.RequestError
          ? known
          : new acp.RequestError(ErrorCode.internalError, (error as Error).message);
      }
    });
  }
  const connection = app.connect(explainInvalidParams(stream as acp.Stream));
  await connection.closed;
}

/** The answer to a pipelined line that was not run. */
type NotRun = StepResult & { notRun: true };

/** Why pipelined lines are not run once one of them was cancelled. */
const INTERRUPTED = "the script was interrupted";

/**
 * The lines one connection sends without waiting for each answer (a script's,
 * through `run --server`): run one after another in the order they came, as
 * if each had waited. Once one stops the script (it failed, without
 * --keep-going, or it was `quit`), the lines queued after it are answered
 * "not run" instead; so once one is cancelled (the client interrupted, or
 * its connection closed), whether or not the cancellations of the lines
 * after it have arrived yet. So a client saves a round trip per line and
 * nothing runs that would not have run line by line.
 */
class LineQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #stopped: string | null = null;

  /** Runs `step` after every earlier line; `step` says whether the script stops there. */
  run<T extends StepResult>(
    command: string,
    signal: AbortSignal,
    step: () => Promise<{ result: T; stop: string | null }>,
  ): Promise<T | NotRun> {
    const turn = this.#tail.then(async (): Promise<T | NotRun> => {
      if (signal.aborted) {
        this.#stopped = INTERRUPTED;
        throw signal.reason;
      }
      if (this.#stopped !== null) {
        return { command, ok: false, output: "", error: `not run: ${this.#stopped}`, notRun: true };
      }
      try {
        const { result, stop } = await step();
        this.#stopped = signal.aborted ? INTERRUPTED : stop;
        return result;
      } catch (error) {
        this.#stopped = signal.aborted ? INTERRUPTED : "a line before it failed";
        throw error;
      }
    });
    this.#tail = turn.catch(() => {});
    return turn;
  }
}

/**
 * The server's sessions as a client's console sees them: sessions it opens
 * without a directory start in the client's, as they would in its own process.
 */
function openingIn(sessions: SessionManager, cwd: string): SessionManager {
  return new Proxy(sessions, {
    get(target, property) {
      if (property === "open") {
        return (options: SessionOptions) => target.open({ ...options, cwd: options.cwd ?? cwd });
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
