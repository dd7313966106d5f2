/**
 * Commands that run things in the current session's shell and collect what
 * they printed: exec and input.
 * @module
 */

import { SessionBusyError } from "../sessions/errors.ts";
import type { CommandResult, Session } from "../sessions/session.ts";
import { type Command, defineCommand } from "./command.ts";
import type { ConsoleContext } from "./context.ts";
import { CommandError, interruptible } from "./errors.ts";
import { parseTextArgs } from "./text_args.ts";
import { parseDuration } from "./words.ts";

/** Reads a --timeout value in seconds (or with its unit), if given. */
export function duration(value: string | true | undefined): number | undefined {
  return typeof value === "string" ? parseDuration(value, "s", "--timeout") : undefined;
}

interface ExecArgs {
  command: string;
  timeoutMs?: number;
}

const exec = defineCommand<ExecArgs>({
  name: "exec",
  aliases: ["x"],
  usage: "exec [--timeout S] COMMAND LINE...",
  summary: "run a command line in the shell and wait for it: output and exit code",
  help: `Runs the rest of the line, exactly as written, in the current session's
shell, waits until it ends, and shows its output and exit code (when it is not
0). Only --timeout S, right after "exec", is read by termbridge; everything
else goes to the shell ("help quoting": a line wholly in one pair of quotes
loses them). After the timeout (default 30 s, or run's --exec-timeout) the
command keeps running: "exec" with no command collects more of its output,
"key C-c" interrupts it. "expect-exit" and "expect-output" check the last
exec.

Examples:
  exec make test
  exec --timeout 120 ./build.sh --release
  exec cd "/tmp/a dir" && ls`,
  raw: true,
  spec: { options: { timeout: "value" } },
  parse({ raw }) {
    const { options, text } = parseTextArgs("exec", raw, this.spec);
    return { command: text, timeoutMs: duration(options.timeout) };
  },
  async run(ctx, args, signal) {
    const session = ctx.session();
    const timeoutMs = args.timeoutMs ?? ctx.timeouts.exec;
    const what = args.command === "" ? "the running command" : JSON.stringify(args.command);
    if (args.command !== "" && session.running !== null) {
      await interruptible(
        settle(ctx, session, Math.min(timeoutMs, BUSY_GRACE_MS), signal),
        signal,
        what,
      );
    }
    const running = session.exec(args.command, timeoutMs, signal);
    const result = await interruptible(running, signal, `${what}; it is still running`).catch(
      (error) => {
        throw teach(ctx, error, session, args.command);
      },
    );
    if (args.command === "" && result.command === "") {
      return { note: `Nothing is running in session "${session.name}"`, data: result };
    }
    if (args.command === "") {
      // More of a command run before: keep what was collected of it already.
      if (!absorb(ctx, session, result)) ctx.lastExec = { session: session.name, result };
    } else {
      ctx.lastExec = { session: session.name, result };
    }
    return { output: describeResult(result, timeoutMs), data: result };
  },
});

/** How long exec waits for a command still running (just interrupted, say) before refusing. */
const BUSY_GRACE_MS = 2000;

/**
 * Collects the end of a command `exec` left running (waiting up to `waitMs`,
 * e.g. for one just interrupted with C-c), so that its result joins the last
 * exec's for `expect-exit`, before the next command runs.
 */
async function settle(
  ctx: ConsoleContext,
  session: Session,
  waitMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  absorb(ctx, session, await session.exec("", waitMs, signal));
}

/**
 * Adds a later part of the last exec's command (collected after it timed
 * out) to what was collected before, for expect-exit and expect-output.
 * @returns whether `result` was that command's
 */
export function absorb(ctx: ConsoleContext, session: Session, result: CommandResult): boolean {
  const last = ctx.lastExec;
  if (
    last === undefined || last.session !== session.name || last.result.status !== "running" ||
    last.result.command !== result.command
  ) return false;
  ctx.lastExec = {
    session: session.name,
    result: { ...result, output: last.result.output + result.output },
  };
  return true;
}

/** Says, in the console's words, what to do about an interrupted wait or a busy session. */
function teach(ctx: ConsoleContext, error: unknown, session: Session, command: string): unknown {
  const name = session.name;
  const interrupt = `${ctx.hint("key", "C-c", name)} interrupts it`;
  if (error instanceof SessionBusyError && session.running !== null) {
    // The command line has no "input": "type" with a newline answers the program there.
    const answer = ctx.hints === "console"
      ? ctx.hint("input", "TEXT")
      : ctx.hint("type", "$'TEXT\\n'", name);
    return new SessionBusyError(
      `Cannot run ${JSON.stringify(command)} in session "${name}": ${
        JSON.stringify(session.running)
      } is still running; ${interrupt}, ${
        ctx.hint("wait", "prompt", name)
      } waits for its end, ${answer} answers it`,
    );
  }
  if (!(error instanceof Error) || error.name !== "InterruptedError") return error;
  const collect = ctx.hints === "console" ? `"exec" with no command` : ctx.hint("exec", "''", name);
  return new CommandError(
    `${error.message} in session "${name}": ${interrupt}, ${collect} collects its output`,
  );
}

/** The command's output, then its exit code unless 0, or that it still runs. */
function describeResult(result: CommandResult, timeoutMs: number): string {
  const lines = [result.output.replace(/\n$/, "")].filter((text) => text !== "");
  if (result.truncated) {
    lines.unshift("[the start of the output was dropped: it exceeded the ceiling]");
  }
  if (result.status === "running") {
    lines.push(
      `[still running after ${
        timeoutMs / 1000
      } s: "exec" with no command collects more output, "key C-c" interrupts it]`,
    );
  } else if (result.exitCode !== null && result.exitCode !== 0) {
    lines.push(`[exit ${result.exitCode}]`);
  }
  return lines.join("\n");
}

interface InputArgs {
  text: string;
  enter: boolean;
  timeoutMs?: number;
}

const input = defineCommand<InputArgs>({
  name: "input",
  aliases: ["i"],
  usage: "input [--no-enter] [--timeout S] TEXT",
  summary: "answer the running program: type TEXT and Enter, show what it printed",
  help: `Sends the rest of the line, exactly as written (quotes included:
input print("hi")), to the program running in the current session, then
Enter (unless --no-enter). A lone key name (C-c, Escape, ArrowUp) is pressed
instead. Options may also end the line. Waits until the output settles, the
command ends, or the timeout (default 30 s) passes, and shows the output the
input caused.

Examples:
  exec --timeout 1 read -p "Name? " name; echo "hi $name"
  input Ada
  input print("woke")
  input C-c`,
  raw: true,
  spec: { options: { "no-enter": "flag", timeout: "value" }, trailing: true },
  parse({ raw }) {
    const { options, text } = parseTextArgs("input", raw, this.spec);
    if (text === "") {
      throw new CommandError(`Cannot run "input": give the text to send, e.g. input yes`);
    }
    return {
      text,
      enter: options["no-enter"] !== true,
      timeoutMs: duration(options.timeout),
    };
  },
  async run(ctx, args, signal) {
    const session = ctx.session();
    const timeoutMs = args.timeoutMs ?? ctx.timeouts.exec;
    const result = await interruptible(
      session.input(args.text, { enter: args.enter, timeoutMs, signal }),
      signal,
      "the program's answer",
    );
    if (result.exitCode !== null) ctx.lastExec = { session: session.name, result };
    return { output: describeResult(result, timeoutMs), data: result };
  },
});

/** The commands that run things, in the order help lists them. */
export const EXEC_COMMANDS: readonly Command[] = [exec, input];
