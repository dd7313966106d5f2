/**
 * The MCP tools: the five of Terminal MCP (`type`, `sendKey`, `getContent`,
 * `takeScreenshot`, `clear`, with their exact names and texts), the command
 * tool (`terminal_execute`), session management and `wait`.
 * @module
 */

import * as z from "zod";
import type { SessionTools } from "./session_tools.ts";

/** What a tool answers: the text a model reads, and the same as data when useful. */
export interface ToolResult {
  text: string;
  structured?: Record<string, unknown>;
}

/** One tool: its description for a model, its parameters, and what it does. */
export interface Tool<S extends z.ZodObject = z.ZodObject> {
  name: string;
  description: string;
  schema: S;
  /** Whether the tool sends input (left out in read-only mode). */
  writes: boolean;
  /** Runs the tool; `signal` is aborted when the client cancels the call. */
  run(
    sessions: SessionTools,
    args: z.infer<S>,
    signal: AbortSignal,
  ): Promise<ToolResult> | ToolResult;
}

const session = z.string().min(1).max(64).optional().describe(
  'Session name; default "default", a shell started on first use.',
);

function tool<S extends z.ZodObject>(definition: Tool<S>): Tool<S> {
  return definition;
}

const json = (value: Record<string, unknown>): ToolResult => ({
  text: JSON.stringify(value, null, 2),
  structured: value,
});

/** Every tool, in the order `tools/list` shows them. */
export const TOOLS = [
  tool({
    name: "type",
    description:
      "Type text into the terminal, as on a keyboard. Does NOT press Enter: follow with " +
      'sendKey "Enter" to run a command. Multi-line text is pasted as one block when the program ' +
      "supports bracketed paste. Returns how many characters were typed.",
    schema: z.strictObject({
      text: z.string().describe("The text to type into the terminal"),
      session,
    }),
    writes: true,
    run: async (sessions, { text, session }) => {
      (await sessions.live(session)).type(text);
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
      session,
    }),
    writes: true,
    run: async (sessions, { key, session }) => {
      (await sessions.live(session)).keys([key]);
      return { text: `Sent key: ${key}` };
    },
  }),
  tool({
    name: "getContent",
    description:
      "Read the terminal as plain text: by default the whole buffer (scrollback, up to " +
      "1000 lines, and screen); with visibleOnly, only what is on screen. Trailing empty lines are " +
      'trimmed; an empty terminal reads "(empty terminal)".',
    schema: z.strictObject({
      visibleOnly: z.boolean().optional().describe("If true, return only the visible viewport"),
      session,
    }),
    writes: false,
    run: async (sessions, { visibleOnly, session }) => ({
      text: (await sessions.readable(session)).terminal.screenText({
        scope: visibleOnly ? "visible" : "all",
      }),
    }),
  }),
  tool({
    name: "takeScreenshot",
    description: "Capture the visible screen with the cursor position (0-based x, y), the size " +
      "(cols, rows), whether a full-screen program uses the alternate screen, and the window " +
      "title. Use it to navigate full-screen programs (vim, less, top).",
    schema: z.strictObject({ session }),
    writes: false,
    run: async (sessions, { session }) =>
      json({ ...(await sessions.readable(session)).screenshot() }),
  }),
  tool({
    name: "clear",
    description:
      "Clear the terminal's screen and scrollback (the emulator's, not the program's): " +
      'getContent reads "(empty terminal)" until new output arrives.',
    schema: z.strictObject({ session }),
    writes: true,
    run: async (sessions, { session }) => {
      (await sessions.live(session)).terminal.clear();
      return { text: "Terminal cleared" };
    },
  }),
  tool({
    name: "terminal_execute",
    description: "Run a shell command in a persistent session and wait for it to finish " +
      "(timeout, default 30 s, at most 60 s). Returns its output (without the echoed command " +
      "or prompt), exit_code, status 'completed' or 'running', and the working directory. On " +
      "timeout the command keeps running: call again with an empty command to collect more " +
      "output. While a command runs, send it text with is_input=true, or a special key " +
      "(C-c, C-d, Up, Enter...) as the command. no_enter=true types without pressing Enter.",
    schema: z.strictObject({
      command: z.string().describe(
        "The command line; empty to collect output of a running command; or input / a key name for a running program",
      ),
      is_input: z.boolean().optional().describe("Send the command as input to the running program"),
      no_enter: z.boolean().optional().describe("Do not press Enter after the text"),
      timeout: z.number().min(0).max(60).optional().describe(
        "Seconds to wait before returning (default 30, at most 60); the command is never killed",
      ),
      terminal_id: z.string().min(1).max(64).optional().describe(
        'Session to use (default "default")',
      ),
    }),
    writes: true,
    run: async (sessions, args, signal) => json({ ...(await sessions.execute(args, signal)) }),
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
      session,
    }),
    writes: false,
    run: async (sessions, args, signal) => json({ ...(await sessions.wait(args, signal)) }),
  }),
  tool({
    name: "listSessions",
    description: "List the open sessions: name, program, pid, size, working directory, the " +
      "command running (if any), milliseconds since the last output, and exit status.",
    schema: z.strictObject({}),
    writes: false,
    run: (sessions) => json({ sessions: sessions.list() }),
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
    run: async (sessions, args) => json({ ...(await sessions.open(args)) }),
  }),
  tool({
    name: "resizeSession",
    description: "Resize a session's terminal; the program is told (SIGWINCH).",
    schema: z.strictObject({
      cols: z.number().int().min(2).max(1000).describe("Width in columns"),
      rows: z.number().int().min(1).max(1000).describe("Height in rows"),
      session,
    }),
    writes: true,
    run: async (sessions, { cols, rows, session }) => {
      (await sessions.live(session)).resize(cols, rows);
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
];
