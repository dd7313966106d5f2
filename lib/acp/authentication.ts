/**
 * Authentication before the session: the method `--auth ID` names, either
 * the agent's own (`authenticate`) or a terminal login (ACP's terminal auth:
 * the agent's command line with the method's arguments and environment runs
 * in a PTY the person types into; exit status 0 is success).
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import type { ExitStatus } from "../runtime/mod.ts";

/** Runs a login command line in a terminal the person types into. */
export type RunLogin = (argv: string[], env: Record<string, string>) => Promise<ExitStatus>;

/** What authentication said, for the output; `failed` ends the run (exit 6). */
export type AuthOutcome =
  | { ok: true; notice?: string }
  | { ok: false; message: string }
  /** The agent answered `authenticate` with an error (reported as a protocol error). */
  | { ok: false; error: unknown };

/** "token (API token), login (Log in, in a terminal)". */
export function describeMethods(methods: acp.AuthMethod[]): string {
  return methods.map((m) =>
    `${m.id} (${m.name}${"type" in m && m.type === "terminal" ? ", in a terminal" : ""})`
  ).join(", ");
}

/**
 * Authenticates with `chosen` among the agent's `methods`.
 * @param agent The agent's side of the connection.
 * @param agentArgv The agent's command line (a terminal login runs it with the method's arguments).
 * @param login How to run a terminal login, or undefined when termbridge has no terminal to run it in.
 */
export async function authenticate(
  agent: acp.ClientContext,
  methods: acp.AuthMethod[],
  chosen: string | undefined,
  agentArgv: string[],
  login: RunLogin | undefined,
): Promise<AuthOutcome> {
  if (chosen === undefined) {
    if (methods.length === 0) return { ok: true };
    return {
      ok: true,
      notice: `The agent offers authentication: ${
        describeMethods(methods)
      }; choose one with --auth ID if it asks`,
    };
  }
  const method = methods.find((m) => m.id === chosen);
  if (method === undefined) {
    const known = methods.map((m) => `"${m.id}"`).join(", ") || "none";
    return {
      ok: false,
      message: `Cannot authenticate with "${chosen}": the agent offers ${known}`,
    };
  }
  if ("type" in method && method.type === "terminal") {
    if (login === undefined) {
      return {
        ok: false,
        message:
          `Cannot authenticate with "${chosen}": it is a login you type in a terminal, and termbridge's stdin and stdout are not one (run termbridge acp in a terminal, without --json)`,
      };
    }
    const argv = [...agentArgv, ...(method.args ?? [])];
    const status = await login(argv, method.env ?? {});
    if (status.exitCode === 0) return { ok: true, notice: `Logged in with "${chosen}"` };
    const how = status.signal === null
      ? `exited with code ${status.exitCode}`
      : `was killed by ${status.signal}`;
    return {
      ok: false,
      message: `Cannot authenticate with "${chosen}": the login (${argv.join(" ")}) ${how}`,
    };
  }
  try {
    await agent.request(acp.methods.agent.authenticate, { methodId: chosen });
    return { ok: true };
  } catch (error) {
    return { ok: false, error };
  }
}
