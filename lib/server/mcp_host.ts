/**
 * One `mcp` connection of the session server: termbridge's MCP server (the
 * same tools as `termbridge mcp`) over the server's sessions, so that an
 * agent's shells outlive its MCP process. `termbridge mcp --server` pipes its
 * stdio to this connection.
 * @module
 */

import { elicitationApprover } from "../mcp/elicit_approver.ts";
import { createMcpServer } from "../mcp/server.ts";
import { lastResortApprover, setClientApprover } from "../safety/client.ts";
import { SessionTools } from "../mcp/session_tools.ts";
import { StdioTransport } from "../mcp/stdio_transport.ts";
import type { ServedConnection } from "../runtime/mod.ts";
import type { SessionManager } from "../sessions/manager.ts";
import { socketReadable, writeBounded, writeJsonLine } from "./socket_streams.ts";

/** The mcp hello's fields. */
export interface McpRequest {
  readOnly: boolean;
  recordDir?: string;
  cwd?: string;
}

/** Serves MCP on `socket` until the client leaves or `signal` aborts; the sessions stay. */
export async function serveMcp(
  socket: ServedConnection,
  request: McpRequest & { rest: Uint8Array; sessions: SessionManager; signal: AbortSignal },
): Promise<void> {
  // No idle reaper and no closeAll: the sessions belong to the server, not to this client.
  const tools = new SessionTools(request.sessions, {
    recordDir: request.recordDir,
    cwd: request.cwd,
  });
  const server = createMcpServer(tools, { readOnly: request.readOnly });
  // This connection's requests are asked of its client, as plain `mcp` asks (server --yes/--no win);
  // a client without elicitation leaves them to the dashboard's page (lib/web/asks.ts).
  const elicit = elicitationApprover(server, "start the server with --yes to approve");
  setClientApprover((question, signal) => {
    const page = lastResortApprover();
    return server.getClientCapabilities()?.elicitation === undefined && page !== undefined
      ? page(question, signal)
      : elicit(question, signal);
  });
  const closed = new Promise<void>((done) => server.onclose = done);
  await writeJsonLine(socket, { ok: true });
  const transport = new StdioTransport(() => Promise.resolve(), {
    input: () => socketReadable(socket, request.rest),
    write: (text) => writeBounded(socket, text),
  });
  await server.connect(transport);
  const stop = () => void server.close();
  request.signal.addEventListener("abort", stop, { once: true });
  try {
    await closed;
  } finally {
    request.signal.removeEventListener("abort", stop);
    socket.end();
  }
}
