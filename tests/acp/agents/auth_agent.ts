/**
 * A test agent that needs authentication: it offers the methods `token` and
 * `browser`, answers `session/new` with -32000 (auth required) until the
 * client called `authenticate` with `token`, and rejects `browser`.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import { initializeResponse, say, serveStdio } from "./kit.ts";

let authenticated = false;

const app = acp.agent({ name: "auth-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    ...initializeResponse("auth-agent"),
    authMethods: [
      { id: "token", name: "API token", description: "Uses TB_TOKEN" },
      { id: "browser", name: "Browser login", description: "Not available in tests" },
    ],
  }))
  .onRequest(acp.methods.agent.authenticate, ({ params }) => {
    if (params.methodId !== "token") {
      throw new acp.RequestError(
        -32603,
        `Cannot log in with "${params.methodId}": no browser here`,
      );
    }
    authenticated = true;
    return {};
  })
  .onRequest(acp.methods.agent.session.new, () => {
    if (!authenticated) throw acp.RequestError.authRequired();
    return { sessionId: "auth-1" };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    await say(client, params.sessionId, "authenticated turn");
    return { stopReason: "end_turn" };
  });

await serveStdio(app);
