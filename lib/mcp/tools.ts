/**
 * The MCP tools: the five of Terminal MCP (`type`, `sendKey`, `getContent`,
 * `takeScreenshot`, `clear`, with their exact names and texts), the command
 * tool (`terminal_execute`), session management and `wait`; then Terminal
 * MCP's session and recording tools.
 * @module
 */

import * as z from "zod";
import { linesToText } from "../terminal/screen.ts";
import { byteLength, type Cut, type LineWindow, lineWindow, tailEscaped } from "./result_size.ts";
import { json, lenientNumber, SESSION, sessionName, tool } from "./tool.ts";
import { UPSTREAM_TOOLS } from "./upstream_tools.ts";

export type { Tool, ToolResult } from "./tool.ts";

/** Every tool, in the order `tools/list` shows them. */
export const TOOLS = [
  tool({
    name: "type",
    description: "Type text into the terminal: written to the PTY exactly as given, without any " +
      'interpretation. Does not press Enter by itself (use sendKey "Enter"), but a newline ' +
      "(\\n) in the text is typed as one, so a shell runs the line. Returns how many " +
      "characters were typed.",
    schema: z.strictObject({
      text: z.string().describe("The text to type into the terminal"),
      ...SESSION,
    }),
    writes: true,
    run: async (sessions, args) => {
      const text = args.text;
      (await sessions.live(sessionName(args))).type(text);
      return { text: `Typed ${[...text].length} character(s) to terminal` };
    },
  }),
  tool({
    name: "sendKey",
    description: "Press a special key or key combination: Enter, Tab, Escape, Backspace, Delete, " +
      "ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, Insert, F1-F12, Ctrl+A..Ctrl+Z " +
      "(Ctrl+C interrupts, Ctrl+D ends input), Ctrl+[, Ctrl+\\, Ctrl+Space; tmux names (C-c, M-f, " +
      "S-Tab, BSpace, PPage) work too. Arrows follow the program's cursor-key mode.",
    schema: z.strictObject({
      key: z.string().min(1).describe("The key name, e.g. Enter, Ctrl+C, ArrowUp, C-c"),
      ...SESSION,
    }),
    writes: true,
    run: async (sessions, args) => {
      const key = args.key;
      (await sessions.live(sessionName(args))).keys([key]);
      return { text: `Sent key: ${key}` };
    },
  }),
  tool({
    name: "getContent",
    description:
      "Read the terminal as plain text: by default the whole buffer (scrollback, up to " +
      "1000 lines, and screen); with visibleOnly, only what is on screen. Trailing empty lines are " +
      'trimmed; an empty terminal reads "(empty terminal)". A buffer larger than the result ' +
      "limit (about 100 KB) gives its last lines and says which lines were left out; fromLine " +
      "reads from that line on.",
    schema: z.strictObject({
      visibleOnly: z.boolean().optional().describe("If true, return only the visible viewport"),
      fromLine: z.number().int().min(0).optional().describe(
        "Read from this line (0-based) on, as far as the result limit allows; default: the last lines",
      ),
      ...SESSION,
    }),
    writes: false,
    run: async (sessions, args) => {
      const session = await sessions.readable(sessionName(args));
      const lines = session.terminal.lines({ scope: args.visibleOnly ? "visible" : "all" });
      return { text: content(lines, sessions.resultLimit, args.fromLine) };
    },
  }),
  tool({
    name: "takeScreenshot",
    description: "Capture the visible screen with the cursor position (0-based x, y), the size " +
      "(cols, rows), whether a full-screen program uses the alternate screen, and the window " +
      "title, as JSON. Use it to navigate full-screen programs (vim, less, top).",
    schema: z.strictObject({
      format: z.enum(["ansi", "plain"]).optional().describe(
        'content as "plain" text (the default) or "ansi": with the colours and attributes ' +
          "as escape sequences (SGR), rows separated by CR LF",
      ),
      ...SESSION,
    }),
    writes: false,
    run: async (sessions, args) =>
      json({ ...(await sessions.readable(sessionName(args))).screenshot(args.format) }),
  }),
  tool({
    name: "clear",
    description:
      "Clear the terminal's screen and scrollback (the emulator's, not the program's): " +
      'getContent reads "(empty terminal)" until new output arrives.',
    schema: z.strictObject({ ...SESSION }),
    writes: true,
    run: async (sessions, args) => {
      (await sessions.live(sessionName(args))).terminal.clear();
      return { text: "Terminal cleared" };
    },
  }),
  tool({
    name: "terminal_execute",
    description: "Run a shell command in a persistent session and wait for it to finish " +
      "(timeout, default 30 s, capped at 60 s). Returns its output (without the echoed command " +
      "or prompt), exit_code, status 'completed' or 'running', and the working directory. On " +
      "timeout the command keeps running: call again with an empty command to collect more " +
      "output. While a command runs, send it text with is_input=true, or a special key " +
      "(C-c, C-d, Up, Enter...) as the command. no_enter=true types without pressing Enter. " +
      "Output larger than the result limit (about 100 KB) keeps its end and says how much of " +
      "the start was left out.",
    schema: z.strictObject({
      command: z.string().describe(
        "The command line; empty to collect output of a running command; or input / a key name for a running program",
      ),
      is_input: z.boolean().optional().describe("Send the command as input to the running program"),
      no_enter: z.boolean().optional().describe("Do not press Enter after the text"),
      timeout: lenientNumber(z.number().min(0)).optional().describe(
        "Seconds to wait before returning (default 30); CAPPED AT 60: more means 60. The command " +
          "is never killed",
      ),
      terminal_id: z.string().min(1).max(64).optional().describe(
        'Session to use (default "default")',
      ),
      ...SESSION,
    }),
    writes: true,
    run: async (sessions, args, signal) => {
      // terminal_id is seed 003's name; session and sessionId are the other tools' names for it.
      const { session, sessionId, ...command } = args;
      const named = sessionName({ session, sessionId });
      if (
        named !== undefined && command.terminal_id !== undefined && named !== command.terminal_id
      ) {
        throw new Error(
          `Cannot tell which session to use: terminal_id "${command.terminal_id}" and ` +
            `session "${named}" differ; give one of them`,
        );
      }
      const terminal = command.terminal_id ?? named;
      const result = await sessions.execute({ ...command, terminal_id: terminal }, signal);
      const limit = sessions.resultLimit;
      const whole = json(result);
      if (byteLength(whole.text) <= limit) return whole;
      // The limit holds for the text as the client gets it: the output escaped inside the JSON.
      const note = (omitted: number) =>
        `[${omitted} bytes of earlier output left out: a result carries ` +
        `at most ${limit} bytes. To read all of it, run the command again with its output sent ` +
        "to a file (COMMAND > out.txt 2>&1) and read the file in parts (head, tail, grep, sed -n)]\n";
      const cutResult = (cut: Cut) => ({
        ...result,
        content: note(cut.omittedBytes) + cut.text,
        output_truncated: true,
        omitted_bytes: cut.omittedBytes,
      });
      const most = byteLength(result.content); // Digits of the largest omitted count.
      const frame = byteLength(json(cutResult({ text: "", omittedBytes: most })).text);
      return json(cutResult(tailEscaped(result.content, Math.max(0, limit - frame))));
    },
  }),
  tool({
    name: "wait",
    description: "Wait until text (or a regex) appears on the screen, or disappears (gone=true), " +
      "or the screen is idle for idle_ms, or the shell prompt is back, or the program exits; at " +
      "most timeout seconds. Returns the screen it saw. Saves polling after sending input.",
    schema: z.strictObject({
      text: z.string().optional().describe("Text to wait for on the visible screen"),
      regex: z.string().optional().describe("JavaScript regular expression to wait for"),
      gone: z.boolean().optional().describe("Wait for the text or regex to disappear instead"),
      idle_ms: z.number().int().min(1).max(60_000).optional().describe(
        "Wait for this many ms without output",
      ),
      prompt: z.boolean().optional().describe("Wait for the shell prompt to come back"),
      exit: z.boolean().optional().describe("Wait for the program to exit"),
      timeout: z.number().min(0).max(60).optional().describe(
        "Seconds to wait at most (default 10)",
      ),
      ...SESSION,
    }),
    writes: false,
    run: async (sessions, args, signal) =>
      json(await sessions.wait({ ...args, session: sessionName(args) }, signal)),
  }),
  tool({
    name: "listSessions",
    description: "List the open sessions: name, program, pid, size, working directory, the " +
      "command running (if any), milliseconds since the last output, and exit status.",
    schema: z.strictObject({}),
    writes: false,
    run: (sessions) =>
      json({
        sessions: sessions.list().map((info) => ({ sessionId: info.name, ...info })),
        maxSessions: sessions.maxSessions,
        idleTimeout: sessions.idleTimeoutSeconds,
      }),
  }),
  tool({
    name: "openSession",
    description: "Open a named session running a shell (default) or any program, with a size " +
      "and working directory. Use several sessions to run things side by side.",
    schema: z.strictObject({
      name: z.string().min(1).max(64).describe("Session name (letters, digits, _ . : -)"),
      program: z.array(z.string()).min(1).optional().describe(
        'Program and arguments, e.g. ["python3"]',
      ),
      cwd: z.string().optional().describe("Absolute working directory"),
      cols: z.number().int().min(2).max(1000).optional().describe("Width in columns (default 120)"),
      rows: z.number().int().min(1).max(1000).optional().describe("Height in rows (default 40)"),
    }),
    writes: true,
    run: async (sessions, args) => json(await sessions.open(args)),
  }),
  tool({
    name: "resizeSession",
    description: "Resize a session's terminal; the program is told (SIGWINCH).",
    schema: z.strictObject({
      cols: z.number().int().min(2).max(1000).describe("Width in columns"),
      rows: z.number().int().min(1).max(1000).describe("Height in rows"),
      ...SESSION,
    }),
    writes: true,
    run: async (sessions, args) => {
      const { cols, rows } = args;
      (await sessions.live(sessionName(args))).resize(cols, rows);
      return { text: `Resized to ${cols}x${rows}` };
    },
  }),
  tool({
    name: "closeSession",
    description: "Close a session: its program and everything it started are killed.",
    schema: z.strictObject({ name: z.string().min(1).max(64).describe("Session name") }),
    writes: true,
    run: async (sessions, { name }) => {
      await sessions.close(name);
      return { text: `Session "${name}" closed` };
    },
  }),
  ...UPSTREAM_TOOLS,
];

/**
 * Screen lines as getContent gives them: all of them when they fit in
 * `limit` bytes, else a window of whole lines (the last ones, or from
 * `fromLine`) with notes saying which lines were left out and how to read them.
 */
function content(lines: string[], limit: number, fromLine?: number): string {
  if (lines.length === 0) return linesToText(lines);
  const first = lineWindow(lines, limit, fromLine);
  if (first.from === 0 && first.to === first.total) return first.text;
  if (first.from === first.to) {
    return `(nothing from line ${fromLine}: the buffer has ${first.total} lines, 0 to ${
      first.total - 1
    })`;
  }
  // The notes count toward the limit too: the lines get what they leave.
  const room = limit - byteLength(windowNotes(first, limit).join("\n")) - 16;
  const window = lineWindow(lines, Math.max(1, room), fromLine);
  const [before, after] = windowNotes(window, limit);
  return [before, window.text, after].filter((part) => part !== "").join("\n");
}

/** The notes around a window of lines: which lines were left out and how to read them. */
function windowNotes(window: LineWindow, limit: number): [string, string] {
  const shown = window.to - window.from;
  return [
    window.from > 0
      ? `[lines 0-${
        window.from - 1
      } of ${window.total} left out (a result carries at most ${limit} bytes); fromLine: ${
        Math.max(0, window.from - shown)
      } reads earlier ones]`
      : "",
    window.to < window.total
      ? `[lines ${window.to}-${window.total - 1} left out; fromLine: ${window.to} reads on]`
      : "",
  ];
}
