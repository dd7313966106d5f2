/**
 * termbridge's MCP terminal tools for the agent of `termbridge acp`, served
 * from the acp process itself: the agent starts `termbridge mcp --connect
 * SOCKET` (a relay of its stdio), and each connection gets the MCP server of
 * `termbridge mcp` over ONE set of sessions opened with the run's own guard,
 * policy, audit, limits, sandbox and terminal budget. The socket is in a
 * private directory (0700, the socket 0600), removed at the end.
 * Commands run with `terminal_execute` are reported as they start, print and
 * end, for the run's terminal cards.
 * @module
 */

import process from "node:process";
import { listenPrivateConnections } from "../jsonrpc/private_socket.ts";
import type { ToolCommandEvent, ToolsContext, ToolsServer } from "../acp/host.ts";
import { sessionDefaults } from "../cli/safety_options.ts";
import { createMcpServer } from "../mcp/server.ts";
import { SessionTools } from "../mcp/session_tools.ts";
import { StdioTransport } from "../mcp/stdio_transport.ts";
import { runtime, type ServedConnection } from "../runtime/mod.ts";
import { asClient } from "../safety/client.ts";
import { SessionManager } from "../sessions/manager.ts";
import { readFirstLine, socketReadable, writeJsonLine } from "./socket_streams.ts";
import type { Hello } from "./wire.ts";
import { VERSION } from "../cli/usage.ts";

/** The name the agent knows the tools' server by (Claude: `mcp__termbridge__*`). */
export const TOOLS_SERVER_NAME = "termbridge";

/** How far into a command's output its echo is looked for. */
const ECHO_SEARCH_BYTES = 8192;

/** A command whose card is open: its output is followed until it ends. */
interface OpenCard {
  id: string;
  offset: number;
  held: string;
  /** The start was reported (with the first output). */
  started: boolean;
  start: () => void;
  stop: () => void;
}

/** A `tools/call` of `terminal_execute` seen on the wire, waiting for its run. */
interface SeenCall {
  command: string;
  toolCallId?: string;
}

/**
 * The MCP tools' sessions, with each `terminal_execute` reported: start (and
 * the agent's tool call id when known), output line by line, end.
 */
class WatchedTools extends SessionTools {
  readonly #events: (event: ToolCommandEvent) => void;
  readonly #cards = new Map<string, OpenCard>();
  readonly seen: SeenCall[] = [];
  #count = 0;

  constructor(
    manager: SessionManager,
    options: ConstructorParameters<typeof SessionTools>[1],
    events: (event: ToolCommandEvent) => void,
  ) {
    super(manager, options);
    this.#events = events;
  }

  override async execute(
    args: Parameters<SessionTools["execute"]>[0],
    signal?: AbortSignal,
  ): ReturnType<SessionTools["execute"]> {
    const name = args.terminal_id ?? "default";
    const starts = args.command.trim() !== "" && !args.is_input && !args.no_enter &&
      !this.#cards.has(name);
    if (starts) await this.#open(name, args.command);
    let result;
    try {
      result = await super.execute(args, signal);
    } catch (error) {
      if (starts) this.#close(name, null, "failed");
      throw error;
    }
    if (result.status === "completed") this.#close(name, result.exit_code, "completed");
    return result;
  }

  /** Ends every open card (the run is over). */
  closeCards(): void {
    for (const name of [...this.#cards.keys()]) this.#close(name, null, "running");
  }

  /**
   * Follows the session's output for a command; the card starts with its
   * first output (the command's echo), so a command refused before it ran
   * (the policy) gets none.
   */
  async #open(name: string, command: string): Promise<void> {
    const session = await this.live(name).catch(() => undefined);
    if (session === undefined) return; // The tool answers the error itself.
    const at = this.seen.findIndex((call) => call.command === command);
    const [call] = at === -1 ? [undefined] : this.seen.splice(at, 1);
    const id = `mcp-${++this.#count}`;
    const terminal = session.terminal;
    const start = () => {
      if (card.started) return;
      card.started = true;
      this.#events({
        kind: "start",
        id,
        command,
        cwd: session.info().cwd,
        session: name,
        ...(call?.toolCallId === undefined ? {} : { toolCallId: call.toolCallId }),
      });
    };
    const card: OpenCard = {
      id,
      offset: terminal.textLog.totalBytes,
      held: "",
      started: false,
      start,
      stop: () => {},
    };
    const decoder = new TextDecoder();
    // The card's header names the command: its echo (and the prompt before it) is left out.
    const echo = command.trim().split("\n").at(-1)!.trim();
    let echoed = false;
    // Whole lines only: the line after the command's output is the next prompt.
    card.stop = terminal.onChange(() => {
      const bytes = terminal.textLog.since(card.offset);
      card.offset = terminal.textLog.totalBytes;
      if (bytes.length === 0) return;
      start();
      let text = card.held + decoder.decode(bytes, { stream: true });
      if (!echoed) {
        const lines = text.split("\n");
        const at = lines.slice(0, -1).findIndex((line) => line.trimEnd().endsWith(echo));
        if (at === -1) {
          card.held = text.length > ECHO_SEARCH_BYTES ? "" : text;
          echoed = text.length > ECHO_SEARCH_BYTES; // Not found: show what comes.
          return;
        }
        echoed = true;
        text = lines.slice(at + 1).join("\n");
      }
      const end = text.lastIndexOf("\n");
      card.held = text.slice(end + 1);
      if (end >= 0) this.#events({ kind: "output", id, data: text.slice(0, end + 1) });
    });
    this.#cards.set(name, card);
  }

  #close(name: string, exitCode: number | null, status: "completed" | "running" | "failed") {
    const card = this.#cards.get(name);
    if (card === undefined) return;
    this.#cards.delete(name);
    card.stop();
    if (!card.started && status !== "completed") return;
    card.start();
    this.#events({ kind: "end", id: card.id, exitCode, status });
  }
}

/** Starts the tools for `context` and listens for the agent's relays. */
export async function startToolHost(context: ToolsContext): Promise<ToolsServer> {
  const { safety } = context;
  const { config } = safety.loaded;
  const maxSessions = config.maxSessions ?? 16;
  const manager = new SessionManager({
    ...sessionDefaults(safety, context.cwd),
    maxSessions,
  });
  const tools = new WatchedTools(manager, {
    cwd: context.cwd,
    maxSessions,
    resultLimit: config.mcpResultLimit,
  }, context.events);
  // The agent's sandbox shows `socketDir` (its private /tmp would hide one of our own).
  const stopping = new AbortController();
  const socket = await listenPrivateConnections(
    { name: "mcp.sock", dir: context.socketDir, prefix: "termbridge-acp-" },
    (connection) => {
      void serveRelay(connection, tools, stopping.signal).catch(() => connection.destroy());
    },
  );
  const [command, ...prefix] = runtime.selfCommand();
  return {
    server: {
      name: TOOLS_SERVER_NAME,
      command,
      args: [...prefix, "mcp", "--connect", socket.path],
      env: [],
    },
    close: async () => {
      stopping.abort();
      socket.close();
      tools.closeCards();
      await tools.closeAll();
    },
  };
}

/** Reads a relay's hello and serves MCP on its connection until it leaves or the run ends. */
async function serveRelay(
  socket: ServedConnection,
  tools: WatchedTools,
  signal: AbortSignal,
): Promise<void> {
  const { line, rest } = await readFirstLine(socket);
  let hello: Hello;
  try {
    hello = JSON.parse(line);
    if (hello?.hello !== "termbridge" || hello.kind !== "mcp") throw new Error("not an mcp hello");
  } catch {
    await writeJsonLine(socket, {
      ok: false,
      error: "Cannot serve this client: the first line must be a termbridge mcp hello",
    });
    socket.end();
    return;
  }
  // The audit log puts the agent's commands down to this relay (lib/safety/client.ts).
  const client = typeof hello.client === "string" && hello.client.trim() !== ""
    ? hello.client.replace(/\p{Cc}/gu, "").slice(0, 200)
    : "agent mcp";
  await asClient(client, async () => {
    const server = createMcpServer(tools, { readOnly: false });
    const closed = new Promise<void>((done) => server.onclose = done);
    await writeJsonLine(socket, { ok: true, pid: process.pid, version: VERSION });
    const transport = new StdioTransport(() => Promise.resolve(), {
      input: () => socketReadable(socket, rest),
      write: (text) => {
        socket.write(text);
        return socket.flushed();
      },
    });
    await server.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message) => {
      noteCall(tools, message);
      deliver?.(message);
    };
    const stop = () => void server.close();
    signal.addEventListener("abort", stop, { once: true });
    try {
      await closed;
    } finally {
      signal.removeEventListener("abort", stop);
      socket.end();
    }
  });
}

/** Remembers a `terminal_execute` call's command and the agent's tool call id, if it says. */
function noteCall(tools: WatchedTools, message: unknown): void {
  const request = message as {
    method?: string;
    params?: { name?: string; arguments?: { command?: unknown }; _meta?: Record<string, unknown> };
  };
  if (request.method !== "tools/call" || request.params?.name !== "terminal_execute") return;
  const command = request.params.arguments?.command;
  if (typeof command !== "string") return;
  const id = request.params._meta?.["claudecode/toolUseId"];
  tools.seen.push({ command, ...(typeof id === "string" ? { toolCallId: id } : {}) });
  if (tools.seen.length > 64) tools.seen.shift(); // Calls that never ran (refused arguments).
}
