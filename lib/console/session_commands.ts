/**
 * Commands that manage sessions: open, use, list, close, attach.
 * @module
 */

import { basename } from "node:path";
import type { SessionInfo } from "../sessions/session.ts";
import { shownProgram } from "../sessions/session_types.ts";
import { type Command, defineCommand } from "./command.ts";
import { type ConsoleContext, DEFAULT_SESSION } from "./context.ts";
import { CommandError } from "./errors.ts";
import { quoteWord } from "./tokenize.ts";
import { parseArgs, parseSize } from "./words.ts";

interface OpenArgs {
  name?: string;
  cwd?: string;
  size?: { cols: number; rows: number };
  env: Record<string, string>;
  record?: string;
  recordInput?: boolean;
  program?: string[];
}

const open = defineCommand<OpenArgs>({
  name: "open",
  aliases: ["o"],
  usage:
    "open [NAME] [--cwd DIR] [--size COLSxROWS] [--env NAME=VALUE]... [--record FILE [--record-input]] [-- PROGRAM ARGS...]",
  summary: "open a session (your shell, or PROGRAM) and make it current",
  help: `Starts a shell (bash, zsh and fish report exit codes and the working directory),
or PROGRAM with its ARGS, in a new terminal called NAME, waits until it is
ready, and makes it the current session. NAME defaults to "${DEFAULT_SESSION}".

Examples:
  open
  open build --cwd ~/src/app --size 100x30
  open editor -- vim notes.txt
  open py --env PYTHONDONTWRITEBYTECODE=1 -- python3 -q`,
  spec: {
    options: {
      cwd: "value",
      size: "value",
      env: "list",
      record: "value",
      "record-input": "flag",
    },
    rest: true,
  },
  parse({ words }) {
    const { options, positionals, rest } = parseArgs("open", words, this.spec!);
    if (positionals.length > 1) {
      throw new CommandError(
        `Cannot open ${
          positionals.map((p) => JSON.stringify(p)).join(" ")
        }: give the program after "--", e.g. "open ${quoteWord(positionals[0])} -- ${
          positionals.slice(1).map(quoteWord).join(" ")
        }"`,
      );
    }
    if (rest !== undefined && rest.length === 0) {
      throw new CommandError(`Cannot open a session: "--" must be followed by a program`);
    }
    const env: Record<string, string> = {};
    for (const pair of (options.env as string[] | undefined) ?? []) {
      const at = pair.indexOf("=");
      if (at <= 0) {
        throw new CommandError(
          `Cannot read --env ${JSON.stringify(pair)}: expected NAME=VALUE, e.g. --env LANG=C.UTF-8`,
        );
      }
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
    return {
      name: positionals[0],
      cwd: options.cwd as string | undefined,
      size: options.size === undefined ? undefined : parseSize(options.size as string),
      env,
      record: options.record as string | undefined,
      recordInput: options["record-input"] === true,
      program: rest,
    };
  },
  async run(ctx, args) {
    const name = args.name ?? defaultName(ctx);
    const size = args.size ?? ctx.size;
    const session = await ctx.sessions.open({
      name,
      program: args.program,
      cwd: args.cwd === undefined ? undefined : ctx.path(args.cwd),
      env: Object.keys(args.env).length > 0 ? args.env : undefined,
      cols: size?.cols,
      rows: size?.rows,
      record: args.record === undefined ? undefined : ctx.path(args.record),
      recordInput: args.recordInput,
    });
    ctx.current = name;
    const info = session.info();
    return {
      note: `Opened "${name}": ${
        describeProgram(info)
      } (pid ${info.pid}, ${info.cols}x${info.rows}) in ${info.cwd}`,
      data: info,
      replayAs: replayLine({ ...args, name, size: args.size ?? size }),
    };
  },
});

function defaultName(ctx: ConsoleContext): string {
  if (!ctx.sessions.has(DEFAULT_SESSION)) return DEFAULT_SESSION;
  throw new CommandError(
    `Cannot open another session called "${DEFAULT_SESSION}": give it a name, e.g. "open build"`,
  );
}

/** The `open` line with every default made explicit, so that a replay opens the same terminal. */
function replayLine(args: OpenArgs & { name: string }): string {
  const words = ["open", args.name];
  if (args.cwd !== undefined) words.push("--cwd", args.cwd);
  if (args.size !== undefined) words.push("--size", `${args.size.cols}x${args.size.rows}`);
  for (const [key, value] of Object.entries(args.env)) words.push("--env", `${key}=${value}`);
  if (args.record !== undefined) words.push("--record", args.record);
  if (args.recordInput) words.push("--record-input");
  if (args.program !== undefined) words.push("--", ...args.program);
  return words.map(quoteWord).join(" ");
}

function describeProgram(info: SessionInfo): string {
  const shown = shownProgram(info.program);
  // An agent's terminal (acp --server): its command line as the agent wrote it.
  if (shown.length < info.program.length) return shown.join(" ");
  const [program, ...args] = shown;
  return [basename(program), ...args].map(quoteWord).join(" ");
}

const use = defineCommand<string>({
  name: "use",
  aliases: ["u"],
  usage: "use NAME",
  summary: "make session NAME the current one",
  help: `Makes NAME the session that type, key, exec, screen and the other commands act on.

Example:
  use build`,
  parse({ words }) {
    if (words.length !== 1) {
      throw new CommandError(`Cannot run "use": give one session name, e.g. "use main"`);
    }
    return words[0];
  },
  run(ctx, name) {
    ctx.sessions.get(name);
    ctx.current = name;
    return { note: `Current session: "${name}"` };
  },
});

const list = defineCommand<void>({
  name: "list",
  aliases: ["ls"],
  usage: "list",
  summary: "list the open sessions (* marks the current one)",
  help: `Shows each open session: its name, program, process id, size, working
directory and state (idle, running a command, or exited).`,
  replay: false,
  parse({ words }) {
    if (words.length > 0) throw new CommandError(`Cannot run "list": it takes no arguments`);
  },
  run(ctx) {
    const sessions = ctx.sessions.list();
    if (sessions.length === 0) {
      return { output: `No session is open: "open" starts one`, data: { current: null, sessions } };
    }
    const rows = sessions.map((s) => [
      (s.name === ctx.current ? "* " : "  ") + s.name,
      describeProgram(s),
      String(s.pid),
      `${s.cols}x${s.rows}`,
      state(s),
      s.cwd,
    ]);
    return {
      output: table([["  NAME", "PROGRAM", "PID", "SIZE", "STATE", "CWD"], ...rows]),
      data: { current: ctx.current ?? null, sessions },
    };
  },
});

function state(info: SessionInfo): string {
  const status = info.exitStatus;
  if (status !== null) {
    return status.signal ? `killed by ${status.signal}` : `exited (code ${status.exitCode})`;
  }
  if (info.running !== null) return `running: ${info.running}`;
  return `idle ${info.idleMs < 1000 ? "<1s" : `${Math.round(info.idleMs / 1000)}s`}`;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd())
    .join("\n");
}

const close = defineCommand<string | undefined>({
  name: "close",
  aliases: [],
  usage: "close [NAME]",
  summary: "end a session (its whole process group) and forget it",
  help: `Ends the session NAME (default: the current one): its program and every
process it started are killed. Another open session becomes current.`,
  parse({ words }) {
    if (words.length > 1) {
      throw new CommandError(`Cannot run "close": give at most one session name`);
    }
    return words[0];
  },
  async run(ctx, name) {
    const target = ctx.sessionNamed(name).name;
    await ctx.sessions.close(target);
    if (ctx.lastExec?.session === target) ctx.lastExec = undefined;
    if (ctx.current === target) ctx.current = ctx.sessions.list().at(-1)?.name;
    const now = ctx.current === undefined
      ? "no session is open"
      : `the current session is "${ctx.current}"`;
    return { note: `Closed "${target}"; ${now}` };
  },
});

const attach = defineCommand<string | undefined>({
  name: "attach",
  aliases: ["a"],
  usage: "attach [NAME]",
  summary: "hand your keyboard and screen to a session; Ctrl+] comes back",
  help: `Connects your terminal to the session NAME (default: the current one):
it is resized to your terminal, everything you type goes to its program and
everything it prints shows on your screen, as if you ran it yourself. Press
Ctrl+] to detach and come back to the REPL; the session goes on running and
gets its size back. Use it to take over a program an agent or a script left
running. Only in the REPL.`,
  only: "repl",
  replay: false,
  parse({ words }) {
    if (words.length > 1) {
      throw new CommandError(`Cannot run "attach": give at most one session name`);
    }
    return words[0];
  },
  async run(ctx, name, signal) {
    const session = ctx.sessionNamed(name);
    if (ctx.attach === undefined) {
      throw new CommandError(`Cannot attach here: attach works only in the REPL (termbridge repl)`);
    }
    ctx.current = session.name;
    const note = await ctx.attach(session, signal);
    return {
      note,
      replayAs: `# attach ${session.name} (what was typed while attached is not saved)`,
    };
  },
});

/** The session commands, in the order help lists them. */
export const SESSION_COMMANDS: readonly Command[] = [open, use, list, close, attach];
