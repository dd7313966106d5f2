/**
 * `termbridge mcp --connect SOCKET`: the MCP server `termbridge acp` offers
 * its agent. It relays its stdio to the acp process that listens on SOCKET,
 * whose sessions, policy, audit and limits serve the tools. It loads little,
 * so that the agent's session starts quickly.
 * @module
 */

import process from "node:process";
import { UsageError } from "../cli/usage.ts";
import { runtime, type ShutdownSignal } from "../runtime/mod.ts";
import { openConnection, relayToStdout, ServerUnavailableError } from "./client.ts";

/** Runs the relay (`args` after `--connect`); resolves with 0 when either side ends. */
export async function mcpConnectMain(args: string[]): Promise<number> {
  const [path, ...extra] = args;
  if (path === undefined || path.startsWith("-") || extra.length > 0) {
    throw new UsageError(
      "Cannot use mcp --connect: it takes one socket path (termbridge acp gives it to its agent), e.g. termbridge mcp --connect /run/user/1000/termbridge-acp-x/mcp.sock",
    );
  }
  let connection;
  try {
    connection = await openConnection(path, {
      hello: "termbridge",
      kind: "mcp",
      readOnly: false,
      client: `agent mcp pid ${process.pid}`,
    });
  } catch (error) {
    if (error instanceof ServerUnavailableError) throw error;
    throw new ServerUnavailableError(
      `Cannot reach termbridge acp at ${path}: ${
        (error as Error).message
      } (the run it belongs to has ended)`,
    );
  }
  const { socket } = connection;
  const closed = relayToStdout(connection);
  const stops = (["SIGINT", "SIGTERM", "SIGHUP"] as ShutdownSignal[]).map((signal) =>
    runtime.onSignal(signal, () => socket.destroy())
  );
  // End of our stdin ends the acp side's input: it answers what it was asked, then closes.
  void (async () => {
    for await (const chunk of runtime.stdin()) {
      if (socket.destroyed) return;
      socket.write(chunk);
    }
    socket.end();
  })().catch(() => socket.destroy());
  try {
    await closed;
  } finally {
    stops.forEach((stop) => stop());
  }
  return 0;
}
