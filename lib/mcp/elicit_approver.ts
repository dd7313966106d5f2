/**
 * How `mcp` answers the policy's "ask": MCP elicitation when the client
 * supports it (the user sees the command and the rule, and accepts or
 * declines); otherwise refused, since nobody can be asked.
 * @module
 */

import type { Server } from "@modelcontextprotocol/sdk/server";
import { refuseAsks } from "../safety/guard.ts";
import type { Approver } from "../safety/types.ts";

/**
 * An approver that asks the MCP client's user through elicitation;
 * `otherwise` says how to approve without it.
 */
export function elicitationApprover(server: Server, otherwise = "pass --yes"): Approver {
  return async (request, signal) => {
    if (server.getClientCapabilities()?.elicitation === undefined) {
      const refused = await refuseAsks(request, signal);
      return { ...refused, by: `nobody to ask: the MCP client has no elicitation (${otherwise})` };
    }
    const what = request.kind === "command" ? "run" : request.kind;
    const result = await server.elicitInput({
      message: `termbridge's policy asks before it may ${what} ${
        JSON.stringify(request.subject)
      }: ${request.verdict.reason}. Allow it?`,
      requestedSchema: {
        type: "object",
        properties: {
          approve: { type: "boolean", title: `Allow ${what} ${request.subject}`, default: false },
        },
        required: ["approve"],
      },
    }, { signal });
    const approved = result.action === "accept" && result.content?.approve === true;
    return { approved, by: `elicitation (${result.action})` };
  };
}
