/**
 * `termbridge mcp --connect SOCKET`: the MCP server `termbridge acp` offers
 * its agent. It relays its stdio to the acp process that listens on SOCKET,
 * whose sessions, policy, audit and limits serve the tools. It loads little,
 * so that the agent's session starts quickly.
 * @module
 */

import process from "node:process";
import { UsageError } from "../cli/usage.ts";
import { openConnection, relayStdio, ServerUnavailableError } from "./client.ts";

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
  await relayStdio(connection);
  return 0;
}
