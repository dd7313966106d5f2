/**
 * `termbridge run SCRIPT|-`: runs a script in the REPL's command language,
 * one command a line, stopping at the first line that fails (or going on
 * with --keep-going), and closes every session it opened.
 * @module
 */

import { readFileSync } from "node:fs";
import { parseModeArgs } from "../cli/args.ts";
import { UsageError } from "../cli/usage.ts";
import {
  ANSWER_OPTIONS,
  answerHelp,
  SAFETY_HELP,
  SAFETY_OPTIONS,
  SESSION_HELP,
  SESSION_OPTIONS,
  underShortOptions,
} from "../cli/safety_option_specs.ts";
import type { startSafety } from "../cli/safety_options.ts";
import type { Safety } from "../safety/setup.ts";
import {
  CommandError,
  commandList,
  COMMANDS,
  ConsoleContext,
  type ParsedLine,
  parseDuration,
  parseLine,
  QUOTING_HELP,
  runParsed,
  type StepResult,
} from "../console/mod.ts";
import { runtime, type ShutdownSignal } from "../runtime/mod.ts";

const HELP = `Usage: termbridge run [OPTIONS] SCRIPT|-

Runs SCRIPT (or, with -, the script on stdin) in the REPL's command language,
one command a line. Stops at the first line that fails and prints where
(FILE:LINE), the line and why, with the screen for failed expectations.
Every session the script opened is closed at the end: nothing is left running.

Options:
      --json             print a JSON report of every step on stdout (instead of outputs)
  -k, --keep-going       run every line, even after one failed
      --timeout S        default timeout of expect and wait, seconds (default 10)
      --exec-timeout S   default timeout of exec and input, seconds (default 30);
                         one line can set its own: exec --timeout 600 make test
  -x, --trace            print each line on stderr before running it, and how it went
      --server           run on the session server's sessions (started if none runs), which
                         stay open at the end; -L NAME or --socket PATH choose the server
${underShortOptions(SAFETY_HELP)}
${underShortOptions(answerHelp("refused: a script cannot ask anyone"))}
${underShortOptions(SESSION_HELP)}
  -h, --help             show this help

A command the policy refuses fails its line (FILE:LINE and the rule).

Exit status: 0 every line succeeded; 1 a line failed, could not be read, or a
signal interrupted the script; 2 bad command line or unreadable SCRIPT.

Commands:
${commandList(COMMANDS, "script")}

${QUOTING_HELP}

Example (test.tb):
  open
  exec --timeout 600 make test
  expect-exit 0
  type "vim notes.txt\\n"
  expect '"notes.txt" [New'
  key Escape : q Enter
`;

/** One step of the `--json` report. */
interface ReportStep {
  line: number;
  command: string;
  ok: boolean;
  ms: number;
  output?: string;
  data?: unknown;
  error?: string;
}

interface RunOptions {
  source: string;
  json: boolean;
  keepGoing: boolean;
  trace: boolean;
  timeouts: { exec?: number; wait?: number };
  safety: Parameters<typeof startSafety>[1];
}

function parseOptions(args: string[]): RunOptions | "help" {
  const { values, positionals } = parseModeArgs("run", args, {
    json: { type: "boolean" },
    "keep-going": { type: "boolean", short: "k" },
    timeout: { type: "string" },
    "exec-timeout": { type: "string" },
    trace: { type: "boolean", short: "x" },
    ...SAFETY_OPTIONS,
    ...ANSWER_OPTIONS,
    ...SESSION_OPTIONS,
    help: { type: "boolean", short: "h" },
  }, true);
  if (values.help) return "help";
  if (positionals.length !== 1) {
    throw new UsageError(
      `Cannot start "run": give one SCRIPT file (or - for stdin), e.g. termbridge run test.tb${
        positionals.length > 1 ? ` (got ${positionals.length})` : ""
      }`,
    );
  }
  return {
    source: positionals[0],
    json: values.json ?? false,
    keepGoing: values["keep-going"] ?? false,
    trace: values.trace ?? false,
    timeouts: {
      wait: seconds("timeout", values.timeout),
      exec: seconds("exec-timeout", values["exec-timeout"]),
    },
    safety: values,
  };
}

function seconds(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  try {
    return parseDuration(value, "s", `--${option}`);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function readScript(source: string): Promise<string> {
  if (source === "-") {
    return await new Response(runtime.stdin()).text();
  }
  try {
    return readFileSync(source, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    const why = code === "ENOENT"
      ? "no such file"
      : code === "EISDIR"
      ? "it is a directory"
      : code === "EACCES"
      ? "permission denied"
      : (error as Error).message;
    throw new UsageError(`Cannot read script "${source}": ${why}`);
  }
}

/** What running a line gave: `quit` says the script asked to stop. */
export type StepOutcome = StepResult & {
  quit?: boolean;
  /** The runner ran the line in the order it was sent (see {@linkcode StepRunner.pipelines}). */
  pipelined?: boolean;
  /** A line sent ahead that the runner did not run (a line before it stopped the script). */
  notRun?: boolean;
};

/**
 * Runs the lines of a script: in this process (the default), or elsewhere
 * (the session server, for `run --server`).
 */
export interface StepRunner {
  /**
   * Runs one line. `pipelined`: sent before the line before it was answered;
   * the runner runs it after that one, or not at all if that one stopped the
   * script (failed, without `keepGoing`, or quit).
   */
  run(
    parsed: ParsedLine,
    signal: AbortSignal,
    pipelined?: { keepGoing: boolean },
  ): Promise<StepOutcome>;
  /**
   * Lines may be sent before the answers to the ones before (a round trip
   * saved per line), once an answer says `pipelined`.
   */
  pipelines?: boolean;
  /** Ends the run; in this process, every session the script opened is closed. */
  finish(): Promise<void>;
}

/** Lines sent ahead of their answers, at most, when the runner pipelines. */
const AHEAD = 16;

/** Makes the runner of a script with these default timeouts (elsewhere: with its own safety). */
export type RunnerFactory = (timeouts: { exec?: number; wait?: number }) => Promise<StepRunner>;

/** Runs lines against sessions of this process, closed at the end. */
const localRunner = async (
  timeouts: { exec?: number; wait?: number },
  safety: Safety,
): Promise<StepRunner> => {
  const { sessionDefaults } = await import("../cli/safety_options.ts");
  const { SessionManager } = await import("../sessions/manager.ts");
  const sessions = new SessionManager(sessionDefaults(safety));
  const ctx = new ConsoleContext({ sessions, mode: "script", cwd: runtime.cwd(), timeouts });
  return {
    run: async (parsed, signal) => ({
      ...await runParsed(ctx, parsed, { signal }),
      quit: ctx.quitRequested,
    }),
    finish: () => sessions.closeAll(),
  };
};

/** Runs `termbridge run`; resolves with the exit code. `remote` runs the lines elsewhere. */
export async function runMain(args: string[], remote?: RunnerFactory): Promise<number> {
  const options = parseOptions(args);
  if (options === "help") {
    await runtime.writeStdout(HELP);
    return 0;
  }
  // Lines run elsewhere are judged there (`run --server`: by the server's policy): no
  // configuration, policy or audit log is opened here for them.
  // Loaded only then: a short `run --server` does not load the policy, sessions and terminal code.
  const safety = remote === undefined
    ? await (await import("../cli/safety_options.ts")).startSafety("run", options.safety)
    : undefined;
  const text = await readScript(options.source);
  const label = options.source === "-" ? "stdin" : options.source;
  const report: ReportStep[] = [];
  const fail = async (number: number, line: string, error: string) => {
    const shown = line.length > 60 ? line.slice(0, 59) + "…" : line;
    await runtime.writeStderr(`${label}:${number}: ${shown}: ${error}\n`);
  };

  // Read every line first: a typo on line 40 should not wait for lines 1-39 to run.
  const lines: { number: number; parsed: ParsedLine }[] = [];
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    try {
      const parsed = parseLine(line, "script");
      if (parsed !== null) lines.push({ number: index + 1, parsed });
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      report.push({
        line: index + 1,
        command: line.trim().split(/\s+/)[0],
        ok: false,
        ms: 0,
        error: error.message,
      });
      await fail(index + 1, line.trim(), error.message);
    }
  }
  if (report.length > 0) {
    await runtime.writeStderr(
      `${label}: nothing was run: fix the line${report.length > 1 ? "s" : ""} above\n`,
    );
    if (options.json) {
      await runtime.writeStdout(JSON.stringify({ ok: false, steps: report }, null, 2) + "\n");
    }
    return 1;
  }

  const runner = remote === undefined
    ? await localRunner(options.timeouts, safety!)
    : await remote(options.timeouts);
  const abort = new AbortController();
  let interrupted: ShutdownSignal | undefined;
  const stops = (["SIGINT", "SIGTERM", "SIGHUP"] as ShutdownSignal[]).map((signal) =>
    runtime.onSignal(signal, () => {
      interrupted ??= signal;
      abort.abort();
    })
  );
  let failures = 0;
  // The first line goes alone; once the runner says it keeps pipelined lines in order, up to
  // AHEAD more are sent before their answers (never while tracing: each line is shown as it runs).
  const ahead = runner.pipelines && !options.trace ? AHEAD : 1;
  let ordered = false;
  const sent: { number: number; line: string; at: number; outcome: Promise<StepOutcome> }[] = [];
  let next = 0;
  const send = async () => {
    while (next < lines.length && sent.length < (ordered ? ahead : 1)) {
      const { number, parsed } = lines[next++];
      if (options.trace) await runtime.writeStderr(`+ ${parsed.line}\n`);
      const pipelined = ahead > 1 ? { keepGoing: options.keepGoing } : undefined;
      const outcome = runner.run(parsed, abort.signal, pipelined);
      sent.push({ number, line: parsed.line, at: performance.now(), outcome });
    }
  };
  let done = performance.now();
  /** Reports a line that ran: its step, its output, why it failed. */
  const show = async (
    { number, line, at }: { number: number; line: string; at: number },
    result: StepOutcome,
  ) => {
    // A line sent ahead started when the one before it ended.
    const now = performance.now();
    report.push(step(number, result, now - Math.max(at, done)));
    done = now;
    if (!options.json && result.output !== "") await runtime.writeStdout(result.output + "\n");
    if (options.trace && result.note !== undefined) {
      await runtime.writeStderr(`  ${result.note}\n`);
    }
    if (!result.ok) {
      failures++;
      await fail(number, line, result.error ?? "failed");
    }
  };
  try {
    for (await send(); sent.length > 0; await send()) {
      const sentLine = sent.shift()!;
      const result = await sentLine.outcome;
      ordered ||= result.pipelined === true;
      await show(sentLine, result);
      if (interrupted !== undefined) {
        // Lines sent ahead may have run before the interruption reached the runner (this
        // client was still writing an earlier line's output): each one that ran is shown, and
        // the interruption is put after the last.
        let last = sentLine.number;
        for (const ahead of sent.splice(0)) {
          const later = await ahead.outcome;
          if (later.notRun) continue;
          last = ahead.number;
          await show(ahead, later);
        }
        await runtime.writeStderr(`${label}:${last}: interrupted by ${interrupted}\n`);
        failures++;
        break;
      }
      if (result.quit || (!result.ok && !options.keepGoing)) break;
    }
  } finally {
    stops.forEach((stop) => stop());
    await runner.finish();
    safety?.close();
  }
  if (options.keepGoing && failures > 0) {
    await runtime.writeStderr(`${label}: ${failures} of ${report.length} steps failed\n`);
  }
  if (options.json) {
    await runtime.writeStdout(
      JSON.stringify({ ok: failures === 0, steps: report }, null, 2) + "\n",
    );
  }
  return failures === 0 ? 0 : 1;
}

function step(line: number, result: StepResult, ms: number): ReportStep {
  return {
    line,
    command: result.command,
    ok: result.ok,
    ms: Math.round(ms * 10) / 10,
    ...(result.output === "" ? {} : { output: result.output }),
    ...(result.data === undefined ? {} : { data: result.data }),
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}
