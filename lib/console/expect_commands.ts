/**
 * Expectations, which fail a script with a message showing what was seen:
 * expect (the screen), expect-exit and expect-output (the last exec), and
 * sleep.
 * @module
 */

import { type Command, defineCommand } from "./command.ts";
import type { ConsoleContext, LastExec } from "./context.ts";
import { CommandError, interruptible } from "./errors.ts";
import { drawScreen, timeoutMessage } from "./screen_view.ts";
import { duration } from "./exec_commands.ts";
import { parseTextArgs } from "./text_args.ts";
import {
  describePattern,
  findPattern,
  parseDuration,
  parsePattern,
  type Pattern,
} from "./words.ts";

interface ExpectArgs {
  pattern: Pattern;
  gone: boolean;
  all: boolean;
  timeoutMs?: number;
}

const expect = defineCommand<ExpectArgs>({
  name: "expect",
  aliases: ["e"],
  usage: "expect [--timeout S] [--gone] [--all] TEXT|/REGEX/",
  summary: "fail unless TEXT (or /REGEX/) shows on the screen within the timeout",
  help: `Waits (default 10 s) until the current session's screen shows TEXT, or
matches /REGEX/ (JavaScript syntax). TEXT is the rest of the line as written;
wholly in quotes it loses them ("help quoting"); the options may also end the
line. With --gone, waits until it is no longer there instead; with --all, the
scrollback counts too. Fails, showing the screen, when the time runs out or
the program exits first. Text that starts and ends with / is read as a regex:
use "wait text /tmp/" for such text.

Examples:
  expect Listening on port
  expect '/\\d+ tests? passed/' --timeout 60
  expect Loading --gone`,
  raw: true,
  spec: { options: { timeout: "value", gone: "flag", all: "flag" }, trailing: true },
  parse({ raw }) {
    const { options, text } = parseTextArgs("expect", raw, this.spec);
    if (text === "") {
      throw new CommandError(
        `Cannot run "expect": give the text or /regex/ to look for, e.g. expect ready`,
      );
    }
    return {
      pattern: parsePattern(text),
      gone: options.gone === true,
      all: options.all === true,
      timeoutMs: duration(options.timeout),
    };
  },
  async run(ctx, args, signal) {
    const session = ctx.session();
    const terminal = session.terminal;
    const timeoutMs = args.timeoutMs ?? ctx.timeouts.wait;
    const what = `${describePattern(args.pattern)} to ${args.gone ? "disappear" : "appear"}`;
    const started = performance.now();
    const seen = await interruptible(
      terminal.waitFor(
        () => {
          const found = findPattern(
            args.pattern,
            terminal.screenText({ scope: args.all ? "all" : "visible" }),
          );
          if (args.gone ? found === undefined : found !== undefined) return { match: found ?? "" };
          if (terminal.exitStatus !== null) return { exited: true as const };
          return undefined;
        },
        what,
        timeoutMs,
        signal,
      ),
      signal,
      what,
    ).catch((error) => {
      if (error instanceof Error && error.name === "WaitTimeoutError") {
        throw new CommandError(timeoutMessage(session, what, timeoutMs, ctx.styled));
      }
      throw error;
    });
    if ("exited" in seen) {
      const status = terminal.exitStatus!;
      const how = status.signal
        ? `was killed by ${status.signal}`
        : `exited with code ${status.exitCode}`;
      throw new CommandError(
        `Gave up waiting for ${what}: the program ${how}; the screen shows:\n${
          drawScreen(session, { styled: ctx.styled })
        }`,
      );
    }
    const ms = Math.round(performance.now() - started);
    return {
      note: args.gone
        ? `${describePattern(args.pattern)} is gone (${ms} ms)`
        : `Found ${JSON.stringify(seen.match)} (${ms} ms)`,
      data: { elapsedMs: ms, ...(args.gone ? {} : { match: seen.match }) },
    };
  },
});

/** The last exec, brought up to date when it was still running. */
async function lastExec(ctx: ConsoleContext, what: string): Promise<LastExec> {
  let last = ctx.lastExec;
  if (last === undefined) {
    throw new CommandError(`Cannot check ${what}: no command was run with "exec" yet`);
  }
  if (last.result.status === "running" && ctx.sessions.has(last.session)) {
    const session = ctx.sessions.get(last.session);
    if (session.running === last.result.command) {
      // It may have ended since: collect what it printed meanwhile and how it ended.
      const more = await session.exec("", 1);
      const result = {
        ...more,
        command: last.result.command,
        output: last.result.output + more.output,
      };
      last = ctx.lastExec = { session: last.session, result };
    }
  }
  if (last.result.status === "running") {
    throw new CommandError(
      `Cannot check ${what}: ${
        JSON.stringify(last.result.command)
      } is still running; wait for it with "exec" (no command) or "wait prompt"`,
    );
  }
  return last;
}

const expectExit = defineCommand<number>({
  name: "expect-exit",
  aliases: [],
  usage: "expect-exit CODE",
  summary: "fail unless the last exec ended with exit code CODE",
  help: `Checks the exit code of the last command run with "exec". Fails, showing
the command's output, when it differs or the command is still running.

Example:
  exec make test
  expect-exit 0`,
  parse({ words }) {
    const code = Number(words[0]);
    if (words.length !== 1 || !Number.isInteger(code) || code < 0 || code > 255) {
      throw new CommandError(
        `Cannot run "expect-exit": give an exit code from 0 to 255, e.g. expect-exit 0`,
      );
    }
    return code;
  },
  async run(ctx, code) {
    const { result } = await lastExec(ctx, "the exit code");
    if (result.exitCode === code) return { note: `Exit code ${code}`, data: { exitCode: code } };
    const got = result.exitCode === null
      ? "no exit code (the program does not report one: only bash and zsh sessions do)"
      : `exit code ${result.exitCode}`;
    throw new CommandError(
      `Expected exit code ${code} from ${JSON.stringify(result.command)}, got ${got}; ${
        showOutput(result.output)
      }`,
    );
  },
});

const expectOutput = defineCommand<Pattern>({
  name: "expect-output",
  aliases: [],
  usage: "expect-output TEXT|/REGEX/",
  summary: "fail unless the last exec's output contains TEXT (or matches /REGEX/)",
  help: `Checks the output of the last command run with "exec" (its own output:
no prompt, no echoed command line) for the rest of the line. Fails, showing that output, when TEXT is
not in it or /REGEX/ does not match.

Example:
  exec git status --short
  expect-output '/^ M src\\//'`,
  raw: true,
  parse({ raw }) {
    const { text } = parseTextArgs("expect-output", raw);
    if (text === "") {
      throw new CommandError(`Cannot run "expect-output": give the text or /regex/ to look for`);
    }
    return parsePattern(text);
  },
  async run(ctx, pattern) {
    const { result } = await lastExec(ctx, "the output");
    const match = findPattern(pattern, result.output);
    if (match !== undefined) return { note: `Found ${JSON.stringify(match)}`, data: { match } };
    const verb = "text" in pattern ? "contain" : "match";
    throw new CommandError(
      `Expected the output of ${JSON.stringify(result.command)} to ${verb} ${
        describePattern(pattern)
      }; ${showOutput(result.output)}`,
    );
  },
});

/** Most lines of output a failure message shows. */
const SHOWN_LINES = 40;

function showOutput(output: string): string {
  if (output.trim() === "") return "it printed nothing";
  const lines = output.replace(/\n$/, "").split("\n");
  const shown = lines.slice(-SHOWN_LINES).join("\n");
  const dropped = lines.length > SHOWN_LINES
    ? ` (last ${SHOWN_LINES} of ${lines.length} lines)`
    : "";
  return `its output${dropped}:\n${shown}`;
}

const sleep = defineCommand<number>({
  name: "sleep",
  aliases: [],
  usage: "sleep MS",
  summary: "pause for MS milliseconds (rarely needed: prefer expect or wait)",
  help: `Pauses for MS milliseconds ("500", "500ms", "2s"). Rarely the right tool:
"expect TEXT" and "wait idle" end as soon as the program is ready and say
what went wrong when it is not.`,
  parse({ words }) {
    if (words.length !== 1) {
      throw new CommandError(`Cannot run "sleep": give milliseconds, e.g. sleep 200`);
    }
    return parseDuration(words[0], "ms", "sleep time");
  },
  async run(_ctx, ms, signal) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await interruptible(
        new Promise((resolve) => timer = setTimeout(resolve, ms)),
        signal,
        "the sleep",
      );
    } finally {
      clearTimeout(timer);
    }
    return {};
  },
});

/** The expectation commands, in the order help lists them. */
export const EXPECT_COMMANDS: readonly Command[] = [expect, expectExit, expectOutput, sleep];
