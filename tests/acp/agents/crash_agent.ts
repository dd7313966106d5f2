/**
 * A test agent that crashes mid-turn: on a prompt it starts a command with a
 * background grandchild, reports both pids, and exits with status 1 without
 * releasing anything or answering the prompt.
 * @module
 */

import process from "node:process";
import * as acp from "@agentclientprotocol/sdk";
import {
  GRANDCHILD_COMMAND,
  GRANDCHILD_PIDS,
  initializeResponse,
  pollOutput,
  report,
  serveStdio,
} from "./kit.ts";

const app = acp.agent({ name: "crash-agent" })
  .onRequest(acp.methods.agent.initialize, () => initializeResponse("crash-agent"))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "crash-1" }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const terminal = await client.createTerminal({ sessionId, command: GRANDCHILD_COMMAND });
    const [, leader, child] = await pollOutput(terminal, GRANDCHILD_PIDS);
    await report(client, sessionId, "pids", { leader: Number(leader), child: Number(child) });
    process.exit(1);
  });

await serveStdio(app);
