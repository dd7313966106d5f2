/**
 * `termbridge serve`: the terminal service as a JSON-RPC 2.0 loop on
 * termbridge's own stdin/stdout, for programs that embed termbridge.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import { directoryOption, numberOption, parseModeArgs } from "../cli/args.ts";
import {
  ANSWER_OPTIONS,
  answerHelp,
  SAFETY_HELP,
  SAFETY_OPTIONS,
  serviceSafety,
  SESSION_HELP,
  SESSION_OPTIONS,
  sessionDefaults,
  startSafety,
} from "../cli/safety_options.ts";
import { VERSION } from "../cli/usage.ts";
import { runtime, type ShutdownSignal } from "../runtime/mod.ts";
import { TerminalService } from "../service/terminal_service.ts";
import { SessionManager } from "../sessions/manager.ts";
import { serveFiles, serveTerminals } from "./client_handlers.ts";
import { serveSessions, SESSION_METHODS } from "./session_methods.ts";
import { answerBeforeClosing, stdioStream } from "./stdio.ts";

const HELP = `Usage: termbridge serve [OPTIONS]

Serves terminals as JSON-RPC 2.0 on stdin/stdout, one JSON object per line.
Methods: initialize (optional); terminal/create, terminal/output,
terminal/wait_for_exit, terminal/kill, terminal/release (ACP v1 shapes;
terminals are scoped by sessionId); fs/read_text_file, fs/write_text_file;
and the interactive sessions: sessions/open, list, close, type, key, exec,
input, screen, screenshot, clear, wait, resize, record (see the README).
Diagnostics go to stderr; stdout carries only protocol.

Options:
  --cwd DIR              default working directory of commands (default: the current one)
  --output-limit BYTES   hard ceiling of kept output per terminal (default: 16777216)
  --max-read BYTES       largest answer of fs/read_text_file; a whole file above it is
                         refused: read it with line/limit (default: 16777216; config maxReadBytes)
${SAFETY_HELP}
${answerHelp("refused: serve cannot ask anyone")}
${SESSION_HELP}
  -h, --help             show this help

Every command (terminal/create, sessions/open, exec, input) and file access
goes through the policy; a refusal is the JSON-RPC error -32003 "Denied by
policy" whose data names the rule and the command.
`;

/** Methods `serve` answers, listed by `initialize`. */
const METHODS = [
  "initialize",
  ...Object.values(acp.methods.client.terminal),
  ...Object.values(acp.methods.client.fs),
  ...SESSION_METHODS,
];

/** Runs `termbridge serve`; resolves with the exit code once stdin ends or a signal arrives. */
export async function serveMain(args: string[]): Promise<number> {
  const { values } = parseModeArgs("serve", args, {
    cwd: { type: "string" },
    "output-limit": { type: "string" },
    ...SAFETY_OPTIONS,
    ...ANSWER_OPTIONS,
    ...SESSION_OPTIONS,
    "max-read": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    await runtime.writeStdout(HELP);
    return 0;
  }
  const cwd = directoryOption("cwd", values.cwd);
  const safety = await startSafety("serve", values);
  const { config } = safety.loaded;
  const maxReadBytes = numberOption("max-read", values["max-read"], 1) ?? config.maxReadBytes;
  const service = new TerminalService({
    cwd: cwd ?? runtime.cwd(),
    outputCeiling: numberOption("output-limit", values["output-limit"]) ?? config.outputLimit,
    cols: config.cols,
    rows: config.rows,
    ...serviceSafety(safety),
  });
  const sessions = new SessionManager({
    ...sessionDefaults(safety, cwd),
    idleTimeoutSeconds: config.idleTimeout,
  });
  const app = serveSessions(
    serveFiles(serveTerminals(acp.client({ name: "termbridge" }), service), service, {
      maxReadBytes,
    }),
    sessions,
  );
  app.onRequest("initialize", (params: unknown) => params, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    serverInfo: { name: "termbridge", version: VERSION },
    methods: METHODS,
  }));
  const stdio = stdioStream();
  const connection = app.connect(
    answerBeforeClosing(
      stdio,
      () => Promise.all([service.killAll(), sessions.killAll()]).then(() => {}),
    ),
  );
  // A signal is end of input: every request already received is answered; a second one ends at once.
  let signalled = false;
  const stops = (["SIGINT", "SIGTERM", "SIGHUP"] as ShutdownSignal[]).map((signal) =>
    runtime.onSignal(signal, () => {
      if (signalled) connection.close();
      signalled = true;
      stdio.endInput();
    })
  );
  try {
    await connection.closed;
  } finally {
    stops.forEach((stop) => stop());
    await Promise.all([service.releaseAll(), sessions.closeAll()]);
    safety.close();
  }
  return 0;
}
