/**
 * `termbridge repl`: an interactive REPL over the session API for a person:
 * line editing, persistent history, tab completion, help, a current
 * session in the prompt, and `attach` to take a session over.
 * @module
 */

import process from "node:process";
import { createInterface, type Interface } from "node:readline";
import { directoryOption, parseModeArgs } from "../cli/args.ts";
import { UsageError, VERSION } from "../cli/usage.ts";
import {
  CommandError,
  commandList,
  COMMANDS,
  ConsoleContext,
  parseSize,
  runCommand,
  type StepResult,
} from "../console/mod.ts";
import { runtime } from "../runtime/mod.ts";
import { SessionManager } from "../sessions/manager.ts";
import { TERMINAL_DEFAULTS } from "../terminal/terminal.ts";
import type { Session } from "../sessions/session.ts";
import { attachSession } from "./attach.ts";
import {
  ANSWER_OPTIONS,
  answerHelp,
  SAFETY_HELP,
  SAFETY_OPTIONS,
  SESSION_HELP,
  SESSION_OPTIONS,
  sessionDefaults,
  startSafety,
  underShortOptions,
} from "../cli/safety_options.ts";
import { type Safety, useApprover } from "../safety/setup.ts";
import type { Approval, ApprovalRequest } from "../safety/types.ts";
import { complete } from "./completer.ts";
import { HISTORY_SIZE, HistoryFile, historyPath } from "./history.ts";
import { HistorySearchKeys, withoutPastedTabs } from "./readline_keys.ts";

const HELP = `Usage: termbridge repl [OPTIONS]

An interactive REPL to drive terminal sessions: open shells and programs in
real terminals, type, press keys, run commands, look at the screen, wait for
things, and take a session over with "attach" (Ctrl+] comes back).

Options:
      --cwd DIR          working directory of new sessions and relative paths (default: the current one)
      --size COLSxROWS   size of sessions opened without --size (default: the config's
                         cols/rows, else what fits your terminal)
      --no-history       neither read nor write the history file
      --server           use the session server's sessions (started if none runs): they stay
                         open when you leave, and attach reaches them; -L NAME or --socket PATH
                         choose the server
${underShortOptions(SAFETY_HELP)}
${underShortOptions(answerHelp("asked with a y/n prompt on a terminal, else refused"))}
${underShortOptions(SESSION_HELP)}
  -h, --help             show this help

Tab completes commands, options, session names and key names; Ctrl+R searches
the history backwards (type to narrow, Ctrl+R again for older, Enter runs,
Escape edits, Ctrl+G gives up); Ctrl+C clears the line or stops a wait; Ctrl+D
(or "quit") closes every session and leaves. History is kept in
$XDG_STATE_HOME/termbridge/history (default: ~/.local/state/termbridge/history).
"save FILE" writes what worked as a script for "termbridge run".

Commands:
${commandList(COMMANDS, "repl")}

"help COMMAND" in the REPL shows a command's options and examples.
`;

interface ReplOptions {
  safety: Parameters<typeof startSafety>[1];
  cwd: string;
  size?: { cols: number; rows: number };
  history: boolean;
}

function parseOptions(args: string[]): ReplOptions | "help" {
  const { values } = parseModeArgs("repl", args, {
    cwd: { type: "string" },
    size: { type: "string" },
    "no-history": { type: "boolean" },
    ...SAFETY_OPTIONS,
    ...ANSWER_OPTIONS,
    ...SESSION_OPTIONS,
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return "help";
  let size: { cols: number; rows: number } | undefined;
  try {
    size = values.size === undefined ? undefined : parseSize(values.size);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    safety: values,
    cwd: directoryOption("cwd", values.cwd) ?? runtime.cwd(),
    size,
    history: !values["no-history"],
  };
}

/**
 * Where the REPL's lines run: in this process (the default), or in the
 * session server (`repl --server`).
 */
export interface ReplConsole {
  /** Runs one line; null for a blank line or a comment; `quit` when the person asked to leave. */
  run(line: string, signal: AbortSignal): Promise<(StepResult & { quit?: boolean }) | null>;
  /** The current session, for the prompt. */
  current(): string | undefined;
  /** The open sessions' names, for completion. */
  names(): string[];
  /** At the end: how many sessions were closed (the server's stay open: 0). */
  finish(): Promise<number>;
}

/** What a remote console gets from the REPL. */
export interface ReplHost {
  /** The REPL's options (directory and size of new sessions). */
  options: { cwd: string; size?: { cols: number; rows: number } };
  /** Whether the person's screen takes terminal styles. */
  styled: boolean;
  /** Hands the person's terminal to `body` (an attach) and takes it back afterwards. */
  handOver(body: () => Promise<string>): Promise<string>;
}

/** Runs `termbridge repl`; resolves with the exit code once the person leaves. `remote` runs the lines elsewhere. */
export async function replMain(
  args: string[],
  remote?: (host: ReplHost) => Promise<ReplConsole>,
): Promise<number> {
  const options = parseOptions(args);
  if (options === "help") {
    await runtime.writeStdout(HELP);
    return 0;
  }
  const safety = await startSafety("repl", options.safety);
  const repl = new Repl(options, safety);
  if (runtime.isTerminal("stdin")) {
    useApprover(safety, safety.flags, (request, signal) => repl.approve(request, signal));
  }
  if (remote !== undefined) {
    repl.console = await remote({
      options: { cwd: options.cwd, size: sessionSize(options, safety) },
      styled: runtime.isTerminal("stdout"),
      handOver: (body) => repl.handOver(body),
    });
  }
  try {
    return await repl.run();
  } finally {
    safety.close();
  }
}

const DIM = ["\x1b[2m", "\x1b[22m"];
const RED = ["\x1b[31m", "\x1b[39m"];

/** One REPL on termbridge's own stdin and stdout. */
class Repl {
  readonly #ctx: ConsoleContext;
  /** Where lines run: this process's sessions unless the REPL was given another. */
  console: ReplConsole;
  #history: HistoryFile | undefined;
  /** Lines remembered this run, newest first, for a readline made anew after attach. */
  #recent: string[] = [];
  readonly #interactive = runtime.isTerminal("stdin");
  readonly #styled = runtime.isTerminal("stdout");
  /** Dim notes and red errors, unless NO_COLOR asks for none (https://no-color.org). */
  readonly #color = this.#styled && !runtime.env().NO_COLOR;
  #rl!: Interface;
  readonly #queue: string[] = [];
  #busy = false;
  #abort: AbortController | undefined;
  #attaching = false;
  #inputClosed = false;
  #finished!: () => void;

  constructor(options: ReplOptions, safety: Safety) {
    const path = options.history ? historyPath(runtime.env()) : undefined;
    this.#history = path === undefined ? undefined : new HistoryFile(path);
    this.#ctx = new ConsoleContext({
      sessions: new SessionManager(sessionDefaults(safety, options.cwd)),
      mode: "repl",
      cwd: options.cwd,
      styled: this.#styled,
      size: sessionSize(options, safety),
      attach: (session, signal) => this.#attach(session, signal),
    });
    const ctx = this.#ctx;
    this.console = {
      run: async (line, signal) => {
        const result = await runCommand(ctx, line, { signal });
        return result && { ...result, quit: ctx.quitRequested };
      },
      current: () => ctx.current,
      names: () => ctx.sessions.list().map((session) => session.name),
      finish: async () => {
        const open = ctx.sessions.list().length;
        await ctx.sessions.closeAll();
        return open;
      },
    };
  }

  async run(): Promise<number> {
    const finished = new Promise<void>((resolve) => this.#finished = resolve);
    const stops = [
      runtime.onSignal("SIGTERM", () => this.#closeInput(true)),
      runtime.onSignal("SIGHUP", () => this.#closeInput(true)),
      runtime.onSignal("SIGINT", () => this.#interrupt()),
    ];
    this.#recent = this.#history?.load() ?? [];
    this.#openReadline();
    if (this.#interactive) {
      await this.#print(
        `termbridge ${VERSION}: "open" starts a shell, "help" lists the commands, Ctrl+D quits\n`,
      );
    }
    this.#prompt();
    try {
      await finished;
    } finally {
      stops.forEach((stop) => stop());
      const open = await this.console.finish();
      if (this.#interactive && open > 0) {
        await this.#print(this.#dim(`Closed ${open} session${open === 1 ? "" : "s"}.`) + "\n")
          .catch(() => {}); // The terminal hung up: nobody is left to read it.
      }
    }
    return 0;
  }

  #openReadline(): void {
    this.#rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: this.#interactive,
      history: [...this.#recent],
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      completer: (line: string) =>
        complete(withoutPastedTabs(this.#rl, line), this.console.names()),
    });
    new HistorySearchKeys(this.#rl, () => this.#recent, () => !this.#busy && !this.#attaching);
    this.#rl.on("line", (line) => {
      this.#queue.push(line);
      void this.#drain();
    });
    this.#rl.on("SIGINT", () => this.#interrupt());
    this.#rl.on("close", () => {
      if (!this.#attaching) this.#closeInput(this.#interactive);
    });
  }

  /** Runs queued lines one at a time, then prompts again (or finishes). */
  async #drain(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      while (this.#queue.length > 0) {
        if (await this.#execute(this.#queue.shift()!)) {
          this.#closeInput(true);
          break;
        }
      }
    } finally {
      this.#busy = false;
    }
    if (this.#inputClosed) this.#finished();
    else this.#prompt();
  }

  /** Runs a line; resolves with whether the person asked to leave. */
  async #execute(line: string): Promise<boolean> {
    this.#remember(line);
    this.#abort = new AbortController();
    try {
      const result = await this.console.run(line, this.#abort.signal);
      if (result !== null) await this.#show(result);
      return result?.quit === true;
    } finally {
      this.#abort = undefined;
    }
  }

  async #show(result: StepResult): Promise<void> {
    const parts: string[] = [];
    if (result.output !== "") parts.push(result.output);
    if (result.note !== undefined) parts.push(this.#dim(result.note));
    if (result.error !== undefined) {
      parts.push(this.#color ? RED[0] + result.error + RED[1] : result.error);
    }
    if (parts.length > 0) await this.#print(parts.join("\n") + "\n");
  }

  /**
   * Asks the person a y/n question about a command or file the policy asks
   * about. Questions come one at a time, and only `y`, `yes`, `n`, `no` or an
   * empty line answer one: the question may come while the person types their
   * next command (a line typed into a shell is checked when the shell runs
   * it), and a line that is no answer is run as the command it is, after
   * which the question is asked again.
   */
  approve(request: ApprovalRequest, signal?: AbortSignal): Promise<Approval> {
    const action = request.kind === "command" ? "Run" : request.kind === "read" ? "Read" : "Write";
    const query = `${action} ${request.subject}? The policy asks: ${request.verdict.reason} [y/N] `;
    const turn = this.#questions.then(() => this.#ask(query, signal));
    this.#questions = turn.then(() => {}, () => {});
    return turn;
  }

  /** Questions asked one after another (readline holds one at a time). */
  #questions: Promise<void> = Promise.resolve();

  /** The question waiting for its answer, shown again instead of the prompt. */
  #asking: string | undefined;

  #ask(query: string, signal?: AbortSignal): Promise<Approval> {
    if (signal?.aborted || this.#inputClosed) {
      return Promise.resolve({ approved: false, by: "user (interrupted)" });
    }
    return new Promise((done) => {
      const interrupt = this.#abort?.signal;
      // Ends the pending question too, so that it cannot take a later line.
      const asking = new AbortController();
      const onAbort = () => finish({ approved: false, by: "user (interrupted)" });
      const finish = (approval: Approval) => {
        signal?.removeEventListener("abort", onAbort);
        interrupt?.removeEventListener("abort", onAbort);
        this.#rl.off("close", onAbort);
        asking.abort();
        this.#asking = undefined;
        done(approval);
        if (!this.#busy) this.#prompt();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      interrupt?.addEventListener("abort", onAbort, { once: true });
      this.#rl.once("close", onAbort);
      const answer = (line: string) => {
        const word = line.trim().toLowerCase();
        if (/^(y|yes|n|no|)$/.test(word)) {
          finish({ approved: word.startsWith("y"), by: "user" });
          return;
        }
        // Not an answer: the person's next command. It runs (after the command running now),
        // and the question is asked again at once: that command may be waiting for the answer
        // (an `exec` to the shell whose typed line is asked about).
        this.#queue.push(line);
        pose();
        void this.#drain();
      };
      const pose = () => {
        if (asking.signal.aborted) return;
        this.#asking = query;
        this.#rl.question(query, { signal: asking.signal }, answer);
      };
      pose();
    });
  }

  /** Ctrl+C: stops the running wait, or clears the line being typed. */
  #interrupt(): void {
    if (this.#abort !== undefined) {
      this.#abort.abort();
      return;
    }
    if (this.#inputClosed) return;
    const typed = this.#rl.line;
    process.stdout.write(
      typed === "" && !this.#busy ? `^C ${this.#dim('(Ctrl+D or "quit" leaves)')}\n` : "^C\n",
    );
    this.#rl.write(null, { ctrl: true, name: "e" });
    this.#rl.write(null, { ctrl: true, name: "u" });
    if (!this.#busy) this.#prompt();
  }

  /** No more input (Ctrl+D, end of stdin, quit, a signal): finish, at once when `now`. */
  #closeInput(now: boolean): void {
    if (this.#inputClosed) return;
    this.#inputClosed = true;
    if (now) {
      this.#queue.length = 0;
      this.#abort?.abort();
    }
    if (!this.#busy) this.#finished();
    try {
      if (!this.#attaching) this.#rl.close();
      if (this.#interactive) process.stdout.write("\n");
    } catch {
      // The terminal hung up: there is nothing left to restore or to tell.
    }
  }

  async #attach(session: Session, signal: AbortSignal | undefined): Promise<string> {
    if (!this.#interactive || !this.#styled) {
      throw new CommandError(
        "Cannot attach: termbridge repl must run in a terminal (stdin and stdout) to hand it over",
      );
    }
    return await this.handOver(() =>
      attachSession(session, {
        input: process.stdin,
        write: (data) => runtime.writeStdout(data),
        setRawMode: (enabled) => runtime.setRawMode(enabled),
        consoleSize: () => runtime.consoleSize(),
        onResize: (handler) => {
          process.stdout.on("resize", handler);
          return () => void process.stdout.off("resize", handler);
        },
      }, signal)
    );
  }

  /** Hands the person's terminal to `body` (an attach), then gives it back to the REPL. */
  async handOver(body: () => Promise<string>): Promise<string> {
    this.#attaching = true;
    this.#rl.close(); // Leaves the terminal cooked: attach makes it raw again at once.
    try {
      return await body();
    } finally {
      this.#attaching = false;
      if (!this.#inputClosed) this.#openReadline();
    }
  }

  #remember(line: string): void {
    if (line.trim() === "") return;
    this.#recent = [line, ...this.#recent.filter((l) => l !== line)].slice(0, HISTORY_SIZE);
    if (this.#history === undefined || !this.#interactive) return;
    try {
      this.#history.append(line);
    } catch (error) {
      const path = this.#history.path;
      this.#history = undefined; // Warn once, then go on without it.
      void runtime.writeStderr(
        `termbridge: Cannot write the history file "${path}": ${
          (error as Error).message
        }; history is not saved\n`,
      );
    }
  }

  #prompt(): void {
    if (!this.#interactive || this.#inputClosed) return;
    if (this.#asking !== undefined) {
      this.#rl.setPrompt(this.#asking);
      this.#rl.prompt();
      return;
    }
    const current = this.console.current();
    this.#rl.setPrompt(current === undefined ? "tb› " : `tb ${current}› `);
    this.#rl.prompt();
  }

  #dim(text: string): string {
    return this.#color ? DIM[0] + text + DIM[1] : text;
  }

  #print(text: string): Promise<void> {
    return runtime.writeStdout(text);
  }
}

/**
 * The size of sessions opened without one: `--size`, else the configuration's
 * `cols`/`rows` where a file sets them, else what fits the person's terminal.
 */
function sessionSize(
  options: { size?: { cols: number; rows: number } },
  safety: Safety,
): { cols: number; rows: number } | undefined {
  if (options.size !== undefined) return options.size;
  const fit = fittingSize();
  const { cols, rows } = safety.loaded.config;
  if (cols === undefined && rows === undefined) return fit;
  return {
    cols: cols ?? fit?.cols ?? TERMINAL_DEFAULTS.cols,
    rows: rows ?? fit?.rows ?? TERMINAL_DEFAULTS.rows,
  };
}

/** Sessions sized so that their framed screen and the prompt fit the person's terminal. */
function fittingSize(): { cols: number; rows: number } | undefined {
  const size = runtime.consoleSize();
  if (size === null) return undefined;
  return { cols: Math.max(20, size.cols - 2), rows: Math.max(5, size.rows - 4) };
}
