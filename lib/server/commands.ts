/**
 * The subcommands for shell scripts and people (`new`, `exec`, `type`, `key`,
 * `screen`, `wait`...): each a short-lived client of the session server that
 * prints plain text (or `--json`) and exits with a meaningful status. Where
 * the console language has the command, the server runs its line
 * (`console/run`), so both read their words the same way.
 * @module
 */

import process from "node:process";
import { UsageError } from "../cli/usage.ts";
import { quoteWord } from "../console/tokenize.ts";
import { runtime } from "../runtime/core.ts";
import { reachServerQuickly } from "./autostart.ts";
import {
  type QuickConnection,
  RpcClient,
  ServerRequestError,
  ServerUnavailableError,
} from "./client.ts";
import {
  type CommandArgs,
  type OptionKind,
  parseCommandArgs,
  sessionName,
  wholeNumber,
} from "./command_args.ts";
import { COMMON_OPTIONS, SUBCOMMAND_HELP } from "../cli/server_commands.ts";
import { socketPath } from "./paths.ts";
import { resolve } from "./posix_path.ts";
import { outputEnd, streamUntil } from "./exec_follow.ts";
import { catchInterrupt, followRead, INTERRUPTED } from "./read_follow.ts";
import { SERVER_METHODS } from "./wire.ts";
import { ErrorCode } from "../jsonrpc/codes.ts";
import type { Problem } from "../console/command.ts";

/**
 * Exit statuses of the subcommands (README lists them). `exec` otherwise exits
 * with the command's own code, so termbridge's own are kept out of the range
 * commands commonly use (as timeout(1)'s 124 is).
 */
export const EXIT = {
  ok: 0,
  /** Anything else that went wrong (a wait that timed out, a file that cannot be written). */
  failure: 1,
  /** A bad command line. */
  usage: 2,
  /** exec: the command ended, but its exit code cannot be known (no shell integration). */
  unknownCode: 120,
  /** No session has that name. */
  unknownSession: 121,
  /** The session cannot take it now: a command is still running, or its program exited. */
  busy: 122,
  /** The policy refused the command. */
  policy: 123,
  /** exec: the command is still running after --timeout. */
  running: 124,
} as const;

/** The exit status of each kind of failure the server reports. */
const PROBLEM_EXIT: Record<Problem, number> = {
  usage: EXIT.usage,
  "unknown-session": EXIT.unknownSession,
  busy: EXIT.busy,
  policy: EXIT.policy,
  failure: EXIT.failure,
};

/** The kind of failure of a JSON-RPC error code (lib/jsonrpc/codes.ts). */
function problemOfCode(code: number): Problem {
  if (code === ErrorCode.invalidParams) return "usage";
  if (code === ErrorCode.resourceNotFound) return "unknown-session";
  if (code === ErrorCode.notNow) return "busy";
  if (code === ErrorCode.deniedByPolicy) return "policy";
  return "failure";
}

/** The names of the subcommands (`attach` and `kill-server` included). */
export const SUBCOMMANDS: readonly string[] = Object.keys(SUBCOMMAND_HELP);

/** What a subcommand has to work with. */
interface Call {
  name: string;
  args: CommandArgs;
  rpc: RpcClient;
  json: boolean;
}

/** A console-language step as the server answers it. */
interface StepResult {
  ok: boolean;
  output: string;
  data?: unknown;
  error?: string;
  problem?: Problem;
}

/** A failure that ends a subcommand: said on stderr, and as JSON on stdout with --json. */
async function fail(json: boolean, problem: Problem, message: string): Promise<number> {
  await runtime.writeStderr(`termbridge: ${message}\n`);
  const status = PROBLEM_EXIT[problem];
  if (json) await out(JSON.stringify({ error: { problem, message, exitStatus: status } }));
  return status;
}

/**
 * A server's refusal that ends a subcommand: said like {@linkcode fail}, with
 * the exit status of its kind (121 for an unknown session, ...).
 */
export function failOnServerError(json: boolean, error: ServerRequestError): Promise<number> {
  return fail(json, problemOfCode(error.code), error.message);
}

/** A subcommand: its own options, where its text starts, and what it does. */
interface Subcommand {
  options: Record<string, OptionKind>;
  textAfter?: number;
  /** False for a command that has nothing to do without a server (ls): none is started. */
  startsServer?: boolean;
  /** The command takes no words, only options. */
  noWords?: boolean;
  run(call: Call): Promise<number>;
}

/** Writes `text` to stdout as it is. */
const out0 = (text: string) => runtime.writeStdout(text);

async function out(text: string): Promise<void> {
  if (text !== "") await runtime.writeStdout(text.endsWith("\n") ? text : text + "\n");
}

async function json(value: unknown): Promise<number> {
  await out(JSON.stringify(value, null, 2));
  return EXIT.ok;
}

/** Runs a console line on session `session`; prints its output (or data with --json). */
async function consoleLine(call: Call, session: string | undefined, words: string[], raw?: string) {
  const line = raw ?? words.map(quoteWord).join(" ");
  const step = await call.rpc.request<StepResult>(SERVER_METHODS.consoleRun, {
    line,
    session,
    cwd: runtime.cwd(),
    hints: "command-line",
  });
  if (!step.ok) {
    return { code: await fail(call.json, step.problem ?? "failure", step.error ?? ""), step };
  }
  return { code: EXIT.ok, step };
}

/** A subcommand that is one console command on the named session. */
function console1(
  command: string,
  options: Record<string, OptionKind> = {},
  textAfter?: number,
): Subcommand {
  return {
    options,
    textAfter,
    async run(call) {
      const name = sessionName(call.name, call.args.words, SUBCOMMAND_HELP[call.name].usage);
      const words = [command, ...flags(call.args, options), ...call.args.words.slice(1)];
      const { code, step } = await consoleLine(call, name, words);
      if (code === EXIT.ok) await (call.json ? json(step.data ?? {}) : out(step.output));
      return code;
    },
  };
}

/** The command's own options given, as console words. */
function flags(args: CommandArgs, kinds: Record<string, OptionKind>): string[] {
  return Object.keys(kinds).flatMap((option) => {
    const value = args.options[option];
    if (value === undefined || value === false) return [];
    if (value === true) return [`--${option}`];
    return (Array.isArray(value) ? value : [value]).flatMap((v) => [`--${option}`, v]);
  });
}

const TABLE: Record<string, Subcommand> = {
  new: {
    options: { cwd: "value", size: "value", env: "list", record: "value", "record-input": "flag" },
    async run(call) {
      const name = sessionName("new", call.args.words, SUBCOMMAND_HELP.new.usage);
      if (call.args.words.length > 1) {
        throw new UsageError(
          `Cannot run "new": give the program after "--": termbridge new ${name} -- ${
            call.args.words.slice(1).join(" ")
          }`,
        );
      }
      const { cwd: _, ...others } = TABLE.new.options;
      const cwd = resolve(String(call.args.options.cwd ?? "."), runtime.cwd());
      const words = ["open", name, "--cwd", cwd, ...flags(call.args, others)];
      if (call.args.rest !== undefined) words.push("--", ...call.args.rest);
      const { code } = await consoleLine(call, undefined, words);
      if (code !== EXIT.ok) return code;
      if (call.json) return await json(await info(call, name));
      return EXIT.ok;
    },
  },
  ls: {
    // --names (not in the help): the names alone, one a line, for the shell completions.
    options: { names: "flag" },
    startsServer: false,
    noWords: true,
    async run(call) {
      const listed = await call.rpc.request<{ sessions: { name: string }[] }>("sessions/list");
      if (call.args.options.names === true) {
        await out(listed.sessions.map((session) => session.name).join("\n"));
        return EXIT.ok;
      }
      if (call.json) return await json(listed);
      if (listed.sessions.length === 0) return EXIT.ok;
      const { step } = await consoleLine(call, undefined, ["list"]);
      await out(step.output.split("\n").map((line) => line.slice(2)).join("\n"));
      return EXIT.ok;
    },
  },
  exec: {
    options: { timeout: "value", follow: "flag", "no-follow": "flag" },
    textAfter: 1,
    async run(call) {
      const name = sessionName("exec", call.args.words, SUBCOMMAND_HELP.exec.usage);
      const command = [...call.args.words.slice(1), ...(call.args.rest ?? [])].join(" ");
      const timeout = call.args.options.timeout;
      const raw = `exec ${
        timeout === undefined ? "" : `--timeout ${quoteWord(String(timeout))} `
      }-- ${command}`;
      // --follow: whole lines printed as they come (with --json one "output" object a line);
      // the rest from the result. Ctrl+C stops following; the command goes on.
      // Streamed by default to a person (stdout a terminal), not to a script; --json only when asked.
      const { follow: asked, "no-follow": notAsked } = call.args.options;
      if (asked === true && notAsked === true) {
        throw new UsageError(`Cannot run "exec": give --follow or --no-follow, not both`);
      }
      const follow = asked === true ||
        (notAsked !== true && !call.json && runtime.outputIsTerminal());
      const from = follow ? await outputEnd(call.rpc, name) : 0;
      const running = consoleLine(call, name, [], raw);
      running.catch(() => {}); // Left behind by Ctrl+C: the connection closes under it.
      const chunk = (text: string) => out(JSON.stringify({ event: "output", text }));
      const interruption = follow ? catchInterrupt() : undefined;
      let streamed = "";
      try {
        if (interruption !== undefined) {
          const ended = Promise.race([running, interruption.stopped]);
          const echoed = command.split("\n").length;
          streamed = await streamUntil(
            call.rpc,
            name,
            from,
            echoed,
            ended,
            call.json ? chunk : out0,
          );
        }
      } finally {
        interruption?.dispose();
      }
      if (interruption?.interrupted) {
        await runtime.writeStderr(
          `termbridge: stopped following; the command goes on in session "${name}" ("termbridge key ${name} C-c" interrupts it)\n`,
        );
        return INTERRUPTED;
      }
      const { code, step } = await running;
      if (code !== EXIT.ok) return code;
      const result = step.data as
        | {
          command: string;
          output: string;
          exitCode: number | null;
          status: string;
          shellExited?: string;
        }
        | undefined;
      if (command === "" && result?.command === "") {
        // Nothing to collect: no exit code to stand for, not even an unknown one.
        return await fail(
          call.json,
          "usage",
          `Cannot run "exec": nothing is running in session "${name}", so there is no output to collect: give the command (termbridge exec ${name} COMMAND); an empty one collects a command still running after --timeout`,
        );
      }
      const output = result?.output ?? "";
      const rest = output.startsWith(streamed) ? output.slice(streamed.length) : output;
      if (call.json && follow) {
        // NDJSON: the output events add up to the output; the last line is the result without it.
        if (rest !== "") await chunk(rest);
        const { output: _, ...others } = result ?? { output: "" };
        await out(JSON.stringify({ event: "result", ...others }));
      } else if (call.json) await json(result ?? {});
      else await runtime.writeStdout(rest);
      if (result === undefined) return EXIT.ok;
      if (result.shellExited !== undefined) {
        await runtime.writeStderr(`termbridge: ${result.shellExited}\n`);
      }
      if (result.status === "running") {
        await runtime.writeStderr(
          `termbridge: still running after ${
            timeout ?? 30
          } s: "termbridge exec ${name} ''" collects more, "termbridge key ${name} C-c" interrupts it\n`,
        );
        return EXIT.running;
      }
      if (result.exitCode !== null) return result.exitCode;
      await runtime.writeStderr(
        `termbridge: the exit code of ${
          JSON.stringify(command)
        } is unknown: session "${name}" has no shell integration (only bash, zsh and fish report exit codes); exiting with ${EXIT.unknownCode}\n`,
      );
      return EXIT.unknownCode;
    },
  },
  type: {
    options: { literal: "flag" },
    textAfter: 1,
    async run(call) {
      const name = sessionName("type", call.args.words, SUBCOMMAND_HELP.type.usage);
      const text = [...call.args.words.slice(1), ...(call.args.rest ?? [])];
      if (text.length === 0) {
        throw new UsageError(
          `Cannot run "type": give the text: termbridge ${SUBCOMMAND_HELP.type.usage}`,
        );
      }
      // One quoted word after "--": the text exactly as given (the words joined by spaces),
      // never read as the console's options or quotes, whatever it starts with.
      const { code, step } = await consoleLine(call, name, ["type", "--", text.join(" ")]);
      if (code === EXIT.ok && call.json) await json(step.data ?? {});
      return code;
    },
  },
  // Options anywhere: no key name starts with "-" but "-" itself.
  key: console1("key"),
  wait: console1("wait", { timeout: "value", all: "flag" }),
  resize: console1("resize"),
  record: console1("record", { overwrite: "flag", "record-input": "flag" }),
  pipe: console1("pipe"),
  clear: console1("clear"),
  screen: {
    options: { all: "flag", lines: "value", logical: "flag", ansi: "flag" },
    async run(call) {
      const name = sessionName("screen", call.args.words, SUBCOMMAND_HELP.screen.usage);
      const { all, logical, lines, ansi } = call.args.options;
      const count = lines === undefined ? undefined : wholeNumber("lines", String(lines), 1);
      if (ansi === true) {
        if (all === true || logical === true) {
          throw new UsageError(`Cannot run "screen": --ansi shows the visible screen only`);
        }
        // The visible screen with its colours and attributes, as tmux's capture-pane -e.
        const shot = await call.rpc.request<{ content: string }>("sessions/screenshot", {
          name,
          format: "ansi",
        });
        let shown = shot.content.split("\n");
        if (count !== undefined) shown = shown.slice(-count);
        if (call.json) return await json({ lines: shown });
        await out(shown.join("\r\n").replace(/\r\n$/, "") + "\x1b[0m");
        return EXIT.ok;
      }
      const screen = await call.rpc.request<{ content: string; lines: string[] }>(
        "sessions/screen",
        {
          name,
          scope: all ? "all" : "visible",
          joinWrapped: logical === true,
        },
      );
      let shown = screen.lines;
      while (shown.length > 0 && shown[shown.length - 1].trim() === "") shown = shown.slice(0, -1);
      if (count !== undefined) shown = shown.slice(-count);
      if (call.json) return await json({ lines: shown });
      await out(shown.map((line) => line.trimEnd()).join("\n"));
      return EXIT.ok;
    },
  },
  shot: {
    options: { ansi: "flag" },
    async run(call) {
      const name = sessionName("shot", call.args.words, SUBCOMMAND_HELP.shot.usage);
      const format = call.args.options.ansi === true ? "ansi" : "plain";
      return await json(await call.rpc.request("sessions/screenshot", { name, format }));
    },
  },
  read: {
    options: { "since-last": "flag", cursor: "value", since: "value", follow: "flag" },
    async run(call) {
      const name = sessionName("read", call.args.words, SUBCOMMAND_HELP.read.usage);
      const { cursor, since } = call.args.options;
      if (call.args.options.follow === true) return await followRead(call.rpc, name, call.json);
      const read = await call.rpc.request<{ text: string }>(SERVER_METHODS.read, {
        name,
        sinceLast: call.args.options["since-last"] === true || cursor !== undefined,
        ...(cursor === undefined ? {} : { cursor: String(cursor) }),
        ...(since === undefined ? {} : { since: wholeNumber("since", String(since)) }),
      });
      if (call.json) return await json(read);
      await runtime.writeStdout(read.text);
      return EXIT.ok;
    },
  },
  close: {
    options: {},
    async run(call) {
      const name = sessionName("close", call.args.words, SUBCOMMAND_HELP.close.usage);
      await call.rpc.request("sessions/close", { name });
      return call.json ? await json({ closed: name }) : EXIT.ok;
    },
  },
};

async function info(call: Call, name: string): Promise<unknown> {
  const { sessions } = await call.rpc.request<{ sessions: { name: string }[] }>("sessions/list");
  return sessions.find((s) => s.name === name) ?? {};
}

/** The help of one subcommand. */
export function subcommandHelp(name: string): string {
  const help = SUBCOMMAND_HELP[name];
  return `Usage: termbridge ${help.usage}\n\n${help.help}\n\n${COMMON_OPTIONS}\n`;
}

/** Where the server is, from the common options and the environment. */
export function chosenSocket(args: CommandArgs): string {
  const { name, socket } = args.options;
  return socketPath(
    { name: name as string | undefined, path: socket as string | undefined },
    runtime.env(),
  );
}

/** Connects to the server (starting one if `start`), telling the user about a lost one. */
export function connectTo(
  path: string,
  kind: "rpc",
  options: { start?: boolean; client?: string } = {},
): Promise<QuickConnection> {
  const start = options.start ?? true;
  return reachServerQuickly({ hello: "termbridge", kind, client: options.client }, {
    path,
    env: runtime.env(),
    start,
    notice: (line) => void runtime.writeStderr(line + "\n"),
  });
}

/**
 * Runs subcommand `name` with `argv` (after the name); resolves with its exit status.
 * @throws {UsageError} for a bad command line
 */
export async function subcommandMain(name: string, argv: string[]): Promise<number> {
  const command = TABLE[name];
  if (command === undefined) throw new UsageError(`Unknown subcommand "${name}"`);
  let args: CommandArgs;
  try {
    args = parseCommandArgs(name, argv, command.options, command.textAfter);
  } catch (error) {
    // A script that asked for JSON gets its error as JSON too (and the usual lines on stderr).
    if (error instanceof UsageError && argv.includes("--json")) {
      await out(JSON.stringify({
        error: { problem: "usage", message: error.message, exitStatus: EXIT.usage },
      }));
    }
    throw error;
  }
  if (args.options.help) {
    await runtime.writeStdout(subcommandHelp(name));
    return EXIT.ok;
  }
  if (command.noWords && (args.words.length > 0 || args.rest !== undefined)) {
    const given = [...args.words, ...(args.rest ?? [])].join(" ");
    throw new UsageError(
      `Cannot run "${name}": it takes no arguments, got ${JSON.stringify(given)}`,
    );
  }
  for (let attempt = 1;; attempt++) {
    let connection;
    try {
      connection = await connectTo(chosenSocket(args), "rpc", {
        client: `${name} pid ${process.pid}`,
        start: command.startsServer ?? true,
      });
    } catch (error) {
      if (!(error instanceof ServerUnavailableError) || command.startsServer !== false) throw error;
      // ls: no server, no sessions; it says so (--names, for completions: silently), and starts none.
      if (args.options.names === true) return EXIT.ok;
      await runtime.writeStderr(`termbridge: no server is running on ${chosenSocket(args)}\n`);
      if (args.options.json === true) await json({ sessions: [], server: null });
      return EXIT.ok;
    }
    const rpc = new RpcClient(connection);
    try {
      return await command.run({ name, args, rpc, json: args.options.json === true });
    } catch (error) {
      // A server that was dying as we connected (killed a moment ago) never said hello:
      // nothing was done; the next try finds its socket stale and starts a new one.
      if (error instanceof ServerUnavailableError && !rpc.greeted && attempt < 3) continue;
      if (error instanceof UsageError && args.options.json === true) {
        await out(JSON.stringify({
          error: { problem: "usage", message: error.message, exitStatus: EXIT.usage },
        }));
      }
      if (!(error instanceof ServerRequestError)) throw error;
      return await failOnServerError(args.options.json === true, error);
    } finally {
      rpc.close();
    }
  }
}
