/**
 * `termbridge mcp`: an MCP server over stdio whose tools drive real terminals.
 * @module
 */

import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { directoryOption, numberOption, parseModeArgs } from "../cli/args.ts";
import {
  ANSWER_OPTIONS,
  answerHelp,
  SAFETY_HELP,
  SAFETY_OPTIONS,
  SESSION_HELP,
  SESSION_OPTIONS,
  sessionDefaults,
  startSafety,
} from "../cli/safety_options.ts";
import { applyFlag } from "../config/config.ts";
import { useApprover } from "../safety/setup.ts";
import { elicitationApprover } from "./elicit_approver.ts";
import { runtime, type ShutdownSignal } from "../runtime/mod.ts";
import { SessionManager } from "../sessions/manager.ts";
import { createMcpServer } from "./server.ts";
import { SessionTools } from "./session_tools.ts";
import { StdioTransport } from "./stdio_transport.ts";

const HELP = `Usage: termbridge mcp [OPTIONS]

An MCP server on stdin/stdout whose tools drive real terminals: type, sendKey,
getContent, takeScreenshot, clear (Terminal MCP's tools), terminal_execute (run
a command and get its output, exit code, status and working directory), wait,
listSessions, openSession, resizeSession, closeSession, and Terminal MCP's
createSession, destroySession, startRecording, stopRecording. Every tool that
works in a session takes an optional session (or sessionId, the same; also
terminal_id for terminal_execute); without one it uses "default", a shell
started on first use. A result carries at most --result-limit bytes of
text (command output keeps its end) and says what it left out.
stdout carries only protocol; diagnostics go to stderr.

Options:
  --shell PROGRAM        program of new sessions (default: $SHELL, else bash, else sh)
  --cols N, --rows N     size of new sessions (default 120x40)
  --scrollback N         lines kept above the screen (default 1000)
  --cwd DIR              working directory of new sessions (default: the current one)
  --max-sessions N       most sessions open at once (default 16)
  --idle-timeout S       close sessions unused for S seconds (default: never)
  --read-only            offer only the tools that read (getContent, takeScreenshot, wait, listSessions)
  --record DIR           record every session to DIR as an asciicast file (asciinema play);
                         also where startRecording writes (default:
                         $XDG_STATE_HOME/termbridge/recordings)
  --result-limit BYTES   most text one tool result carries (default 100000, at least 1024)
${SAFETY_HELP}
${answerHelp("asked through MCP elicitation when the client supports it, else refused")}
${SESSION_HELP}
  --server               use the session server's sessions, which outlive this process
                         ("termbridge mcp --server --help" for its options)
  --connect SOCKET       relay stdin/stdout to the tools of a running termbridge acp
                         (what termbridge acp gives its agent; no other option applies)
  -h, --help             show this help

Every command (terminal_execute, type with Enter into a shell, openSession's
program) goes through the policy; a refusal is a tool error that names the
rule and the command.

Add it to an MCP client as the command "termbridge" with the argument "mcp".
`;

/** Runs `termbridge mcp`; resolves with 0 once stdin ends or a signal arrives. */
export async function mcpMain(args: string[]): Promise<number> {
  const { values } = parseModeArgs("mcp", args, {
    shell: { type: "string" },
    cols: { type: "string" },
    rows: { type: "string" },
    scrollback: { type: "string" },
    cwd: { type: "string" },
    "max-sessions": { type: "string" },
    "idle-timeout": { type: "string" },
    "read-only": { type: "boolean" },
    record: { type: "string" },
    "result-limit": { type: "string" },
    ...SAFETY_OPTIONS,
    ...ANSWER_OPTIONS,
    ...SESSION_OPTIONS,
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    await runtime.writeStdout(HELP);
    return 0;
  }
  const safety = await startSafety("mcp", values);
  const { config } = safety.loaded;
  applyFlag(safety.loaded, "shell", values.shell ? [values.shell] : undefined, "--shell");
  const record = values.record ?? config.record;
  if (record !== undefined) mkdirSync(resolve(record), { recursive: true });
  const maxSessions = numberOption("max-sessions", values["max-sessions"], 1) ??
    config.maxSessions ?? 16;
  const manager = new SessionManager({
    ...sessionDefaults(safety),
    cwd: directoryOption("cwd", values.cwd) ?? config.cwd,
    cols: numberOption("cols", values.cols, 2) ?? config.cols,
    rows: numberOption("rows", values.rows, 1) ?? config.rows,
    scrollback: numberOption("scrollback", values.scrollback) ?? config.scrollback,
    env: config.env,
    maxSessions,
  });
  const idleSeconds = numberOption("idle-timeout", values["idle-timeout"]) ?? config.idleTimeout ??
    0;
  const sessions = new SessionTools(manager, {
    recordDir: record === undefined ? undefined : resolve(record),
    idleTimeoutMs: idleSeconds * 1000,
    maxSessions,
    resultLimit: numberOption("result-limit", values["result-limit"], 1024) ??
      config.mcpResultLimit,
  });
  const server = createMcpServer(sessions, { readOnly: values["read-only"] ?? config.readOnly });
  useApprover(safety, safety.flags, elicitationApprover(server));
  const closed = new Promise<void>((done) => server.onclose = done);
  const transport = new StdioTransport(() => manager.killAll());
  await server.connect(transport);
  // A signal is end of input: every request already received is answered; a second one ends at once.
  let signalled = false;
  const stops = (["SIGINT", "SIGTERM", "SIGHUP"] as ShutdownSignal[]).map((signal) =>
    runtime.onSignal(signal, () => {
      if (signalled) void server.close();
      signalled = true;
      transport.endInput();
    })
  );
  try {
    await closed;
  } finally {
    stops.forEach((stop) => stop());
    await sessions.closeAll();
    safety.close();
  }
  return 0;
}
