/**
 * Commands that act on the current session's terminal: type, key, screen,
 * shot, clear, wait, resize, record.
 * @module
 */

import type { CommandResult } from "../sessions/session.ts";
import type { WaitCondition, WaitResult } from "../sessions/waits.ts";
import { WaitTimeoutError } from "../terminal/errors.ts";
import { keyInMessage, keyToSequence, UnknownKeyError } from "../terminal/keys.ts";
import { type Command, defineCommand } from "./command.ts";
import { commandHint, type HintForm } from "./context.ts";
import { CommandError, interruptible } from "./errors.ts";
import { absorb, duration } from "./exec_commands.ts";
import { waitForPrompt } from "./prompt_wait.ts";
import { drawScreen, timeoutMessage } from "./screen_view.ts";
import { parseTextArgs } from "./text_args.ts";
import { checkRegex, parseArgs, parseDuration, parsePattern, parseSize } from "./words.ts";
const type = defineCommand<string>({
  name: "type",
  aliases: ["t"],
  usage: "type TEXT",
  summary: "type text into the session exactly as written (\\n in quotes is a newline)",
  help: `Types the rest of the line into the current session exactly as written,
as the program would get it from a keyboard: nothing is added or wrapped.
Wholly in double quotes it takes escapes: \\n is a newline (a shell runs the
line: type "make\\n"), \\t a tab, \\r a carriage return, \\e Escape, \\xHH any
byte. Without a newline nothing runs: "key Enter" presses Enter. To send
several lines as one block, use "paste".

Examples:
  type ls -la
  type "echo 'two  spaces'\\n"
  type "line one\\nline two\\n"`,
  raw: true,
  parse({ raw, hints }) {
    return readText("type", raw, hints);
  },
  run(ctx, text) {
    ctx.session().type(text);
    return {};
  },
});

const paste = defineCommand<string>({
  name: "paste",
  aliases: [],
  usage: "paste TEXT",
  summary: "paste text as one block (bracketed paste when the program asked for it)",
  help: `Pastes the rest of the line (escapes as in "type") into the current
session as a terminal does: wrapped in bracketed-paste marks when the program
turned that mode on (bash, zsh, vim, python do), so that several lines are
taken as one block and not run one by one. Nothing is pressed after it: a
shell runs the block on "key Enter".

Examples:
  paste "for i in 1 2 3\\ndo echo $i\\ndone"
  key Enter`,
  raw: true,
  parse({ raw, hints }) {
    return readText("paste", raw, hints);
  },
  run(ctx, text) {
    ctx.session().type(text, { paste: true });
    return {};
  },
});

function readText(command: string, raw: string, hints: HintForm): string {
  const { text } = parseTextArgs(command, raw);
  if (text === "") {
    throw new CommandError(
      `Cannot run "${command}": give the text, e.g. ${example(hints, command, "ls -la")}`,
    );
  }
  return text;
}

/** `command args` as typed in the front end: `key Enter`, `termbridge key NAME Enter`. */
function example(hints: HintForm, command: string, args: string): string {
  return hints === "console" ? `${command} ${args}` : `termbridge ${command} NAME ${args}`;
}

const key = defineCommand<string[]>({
  name: "key",
  aliases: ["k"],
  usage: "key KEY...",
  summary: "press keys by name: Enter, C-c, Ctrl+D, ArrowUp, M-f...",
  help: `Presses the keys, in order. Names are case-insensitive and come in two
vocabularies: tmux style (C-c, M-f, S-Tab, BSpace, DC, Up, PPage, NPage) and
friendly style (Ctrl+C, Alt+F, Shift+Tab, Backspace, Delete, ArrowUp,
PageUp). A single printable ASCII character is a key that types itself
(other text: use "type"). Arrows follow the program's cursor-key mode.

Examples:
  key Enter
  key C-c
  key Escape : w q Enter

Key names: "help keys" lists them.`,
  parse({ words, hints }) {
    if (words.length === 0) {
      throw new CommandError(
        `Cannot run "key": name a key, e.g. ${example(hints, "key", "Enter")}`,
      );
    }
    for (const name of words) checkKey(name, hints);
    return words;
  },
  run(ctx, names) {
    const session = ctx.session();
    session.keys(names);
    return {};
  },
});

function checkKey(name: string, hints: HintForm): void {
  try {
    keyToSequence(name);
  } catch (error) {
    if (!(error instanceof UnknownKeyError)) throw error;
    const hint = error.suggestion === undefined
      ? ": type"
      : `: did you mean "${error.suggestion}"? Type`;
    throw new CommandError(
      `Unknown key ${keyInMessage(name)}${hint} ${commandHint(hints, "help", "keys")} ` +
        `for the key names, or use ${commandHint(hints, "type", "")} for text`,
    );
  }
}

const screen = defineCommand<{ all: boolean; logical: boolean }>({
  name: "screen",
  aliases: ["s"],
  usage: "screen [--all] [--logical]",
  summary: "show the screen, framed, with the cursor marked",
  help: `Draws the current session's screen in a box as wide as its terminal, the
cursor marked (reverse video on a terminal, █ otherwise). --all adds the
scrollback above; --logical joins the lines the terminal wrapped.`,
  spec: { options: { all: "flag", logical: "flag" } },
  replay: false,
  parse({ words }) {
    const { options, positionals } = parseArgs("screen", words, this.spec!);
    if (positionals.length > 0) {
      throw new CommandError(`Cannot run "screen": it takes only --all and --logical`);
    }
    return { all: options.all === true, logical: options.logical === true };
  },
  run(ctx, args) {
    const session = ctx.session();
    const shot = session.screenshot();
    return {
      output: drawScreen(session, { ...args, styled: ctx.styled }),
      data: {
        ...shot,
        lines: session.terminal.lines({
          scope: args.all ? "all" : "visible",
          joinWrapped: args.logical,
        }),
      },
    };
  },
});

const shot = defineCommand<void>({
  name: "shot",
  aliases: [],
  usage: "shot",
  summary: "the screenshot as JSON: content, cursor, size, alternate screen, title",
  help: `Shows the current session's screenshot as JSON: the visible content, the
cursor {x, y} (0-based), the dimensions {cols, rows}, whether the alternate
screen is active (vim, less, htop), and the window title.`,
  replay: false,
  parse({ words }) {
    if (words.length > 0) throw new CommandError(`Cannot run "shot": it takes no arguments`);
  },
  run(ctx) {
    const screenshot = ctx.session().screenshot();
    return { output: JSON.stringify(screenshot, null, 2), data: screenshot };
  },
});

const clear = defineCommand<void>({
  name: "clear",
  aliases: [],
  usage: "clear",
  summary: "empty termbridge's copy of the screen and scrollback (the program is not told)",
  help: `Empties the emulated screen and scrollback of the current session, so that
later expectations only see what comes next. The program is not told and
does not redraw; use "key C-l" to ask a shell to clear its screen.`,
  parse({ words }) {
    if (words.length > 0) throw new CommandError(`Cannot run "clear": it takes no arguments`);
  },
  run(ctx) {
    ctx.session().terminal.clear();
    return {};
  },
});

const resize = defineCommand<{ cols: number; rows: number }>({
  name: "resize",
  aliases: [],
  usage: "resize COLSxROWS",
  summary: "change the terminal's size (the program gets SIGWINCH)",
  help: `Changes the current session's size, e.g. "resize 100x30".`,
  parse({ words }) {
    if (words.length !== 1) {
      throw new CommandError(`Cannot run "resize": give a size such as 100x30`);
    }
    return parseSize(words[0]);
  },
  run(ctx, size) {
    ctx.session().resize(size.cols, size.rows);
    return {};
  },
});

const record = defineCommand<{ path: string | null; overwrite: boolean; input: boolean }>({
  name: "record",
  aliases: [],
  usage: "record [--overwrite] [--record-input] FILE|stop",
  summary: "record the session to an asciicast file, or stop recording",
  help: `Starts recording the current session to FILE (asciicast v2, playable with
"asciinema play"), replacing a recording in progress; "record stop" stops.
A relative FILE is taken from the working directory. An existing FILE is
replaced only when it is empty or a recording, or with --overwrite. The file
is created 0600. What is typed into the session (passwords included) is
recorded only with --record-input.`,
  spec: { options: { overwrite: "flag", "record-input": "flag" } },
  parse({ words }) {
    const { options, positionals } = parseArgs("record", words, this.spec!);
    if (positionals.length !== 1) {
      throw new CommandError(`Cannot run "record": give a FILE, or "stop"`);
    }
    const [target] = positionals;
    return {
      path: target === "stop" ? null : target,
      overwrite: options.overwrite === true,
      input: options["record-input"] === true,
    };
  },
  run(ctx, { path, overwrite, input }) {
    const session = ctx.session();
    session.record(path === null ? null : ctx.path(path), { overwrite, input });
    return { note: path === null ? "Recording stopped" : `Recording to ${ctx.path(path)}` };
  },
});

const WAIT_KINDS = ["text", "regex", "gone", "idle", "prompt", "exit"] as const;

interface WaitArgs {
  condition: WaitCondition;
  timeoutMs?: number;
}

const wait = defineCommand<WaitArgs>({
  name: "wait",
  aliases: ["w"],
  usage: "wait [text|regex|gone|idle|prompt|exit] [ARG] [--timeout S] [--all]",
  summary: "wait for text, a regex, text to go, quiet, the prompt, or the exit",
  help: `Waits (default 10 s) for one thing in the current session:
  wait TEXT|/REGEX/   TEXT appears on the screen, or /REGEX/ matches (as expect)
  wait text TEXT      TEXT appears on the screen (even one written /like this/)
  wait regex REGEX    a regular expression matches (with or without /.../)
  wait gone TEXT      TEXT (or /REGEX/) is no longer on the screen
  wait idle [MS]      nothing is printed for MS milliseconds (default 500)
  wait prompt         the shell's prompt is back (bash and zsh)
  wait exit           the program exited
The text is the rest of the line, as for "expect". --all looks at the
scrollback too. A timeout fails, showing the screen.`,
  raw: true,
  spec: { options: { timeout: "value", all: "flag" }, trailing: true },
  parse({ raw, hints }) {
    const { options, text, quoted } = parseTextArgs("wait", raw, this.spec);
    const timeoutMs = duration(options.timeout);
    const scope = options.all ? "all" as const : undefined;
    const kind = quoted ? undefined : /^\S+/.exec(text)?.[0];
    const arg = () => {
      const rest = parseTextArgs("wait", text.slice(kind!.length)).text;
      if (rest === "") {
        throw new CommandError(
          `Cannot run "wait ${kind}": give what to wait for, e.g. ${
            example(hints, "wait", `${kind} ready`)
          }`,
        );
      }
      return rest;
    };
    switch (kind) {
      case "text":
        return { condition: { text: arg(), scope }, timeoutMs };
      case "regex": {
        const source = arg();
        const bare = source.length >= 2 && source.startsWith("/") && source.endsWith("/")
          ? source.slice(1, -1)
          : source;
        return { condition: { regex: checkRegex(bare), scope }, timeoutMs };
      }
      case "gone":
        return { condition: { ...parsePattern(arg()), gone: true, scope }, timeoutMs };
      case "idle": {
        const rest = text.slice(kind.length).trim();
        return {
          condition: { idleMs: rest === "" ? 500 : parseDuration(rest, "ms", "idle time") },
          timeoutMs,
        };
      }
      case "prompt":
      case "exit":
        if (text !== kind) {
          throw new CommandError(`Cannot run "wait ${kind}": it takes no argument`);
        }
        return { condition: kind === "prompt" ? { prompt: true } : { exit: true }, timeoutMs };
    }
    if (text === "") {
      throw new CommandError(
        `Cannot run "wait": give what to wait for: TEXT, /REGEX/, or one of ${
          WAIT_KINDS.join(", ")
        }`,
      );
    }
    return { condition: { ...parsePattern(text), scope }, timeoutMs };
  },
  async run(ctx, args, signal) {
    const session = ctx.session();
    if (args.condition.prompt && session.integration === "none") {
      throw new CommandError(
        `Cannot wait for the prompt in session "${session.name}": ${
          session.program[0]
        } does not report it (only bash, zsh and fish do); use ${
          ctx.hint("wait", "idle", session.name)
        } or ${ctx.hint("wait", "text", session.name)}`,
      );
    }
    const timeoutMs = args.timeoutMs ?? ctx.timeouts.wait;
    const what = describeCondition(args.condition);
    const waiting: Promise<WaitResult & { collected?: CommandResult }> = args.condition.prompt
      ? waitForPrompt(session, timeoutMs, signal)
      : session.wait(args.condition, timeoutMs, signal);
    const result = await interruptible(waiting, signal, what)
      .catch((error) => {
        if (!(error instanceof WaitTimeoutError)) throw error;
        throw new CommandError(timeoutMessage(session, what, timeoutMs, ctx.styled));
      });
    if (result.collected) absorb(ctx, session, result.collected);
    return {
      note: `Done after ${result.elapsedMs} ms${
        result.match === undefined ? "" : `: matched ${JSON.stringify(result.match)}`
      }`,
      data: result,
    };
  },
});

function describeCondition(condition: WaitCondition): string {
  if (condition.idleMs !== undefined) return `${condition.idleMs} ms of quiet`;
  if (condition.prompt) return "the prompt";
  if (condition.exit) return "the program to exit";
  const pattern = condition.text !== undefined
    ? JSON.stringify(condition.text)
    : `/${condition.regex}/`;
  return `${pattern} to ${condition.gone ? "disappear" : "appear"}`;
}

const pipe = defineCommand<{ path: string | null }>({
  name: "pipe",
  aliases: [],
  usage: "pipe [FILE]",
  summary: "append the session's output to a file as it comes (tmux pipe-pane); no FILE stops",
  help: `Appends what the current session prints from now on to FILE, as the plain
text "read" shows (escape sequences interpreted away), until "pipe" with no
FILE stops it or the session closes; a pipe in progress is replaced. A
relative FILE is taken from the working directory; a new FILE is created 0600.`,
  parse({ words }) {
    const { positionals } = parseArgs("pipe", words, { options: {} });
    if (positionals.length > 1) {
      throw new CommandError(`Cannot run "pipe": give one FILE, or none to stop`);
    }
    return { path: positionals[0] ?? null };
  },
  run(ctx, { path }) {
    const session = ctx.session();
    const before = session.pipe(path === null ? null : ctx.path(path));
    if (path !== null) return { note: `Piping session "${session.name}" to ${ctx.path(path)}` };
    return { note: before === undefined ? "No pipe to stop" : `Stopped piping to ${before}` };
  },
});

/** The commands that type, in the order help lists them. */
export const TYPING_COMMANDS: readonly Command[] = [type, paste, key];

/** The commands that look at or change the terminal, in the order help lists them. */
export const TERMINAL_COMMANDS: readonly Command[] = [
  screen,
  shot,
  clear,
  wait,
  resize,
  record,
  pipe,
];
