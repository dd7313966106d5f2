/**
 * A test agent that only speaks ACP protocol version 2: it answers
 * `initialize` with `protocolVersion: 2`, which a v1 client must refuse.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import { initializeResponse, serveStdio } from "./kit.ts";

const app = acp.agent({ name: "version-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    ...initializeResponse("version-agent"),
    protocolVersion: 2,
  }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "version-1" }))
  .onRequest(acp.methods.agent.session.prompt, () => ({ stopReason: "end_turn" }));

await serveStdio(app);
