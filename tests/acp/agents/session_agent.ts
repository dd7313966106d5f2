/**
 * A test agent of ACP v1's session lifecycle: it advertises `session/list`
 * (two pages), `session/resume`, `session/close` and `additionalDirectories`
 * (or, with `TB_AGENT_CAPS=load`, only `loadSession`; with `none`, nothing),
 * and asks the client questions (`elicitation/create`) when the prompt says
 * `ask` or `ask-url`. Each turn reports how the session was opened, what the
 * client sent, and what it answered. `session/close` is written to the file
 * `$TB_CLOSE_LOG` (nothing can be reported after it).
 * @module
 */

import { appendFileSync } from "node:fs";
import process from "node:process";
import * as acp from "@agentclientprotocol/sdk";
import { attempt, initializeResponse, promptText, report, say, serveStdio } from "./kit.ts";

const caps = process.env.TB_AGENT_CAPS ?? "all";
let clientCapabilities: acp.ClientCapabilities | undefined;
const opened = new Map<string, Record<string, unknown>>();

const SESSIONS: acp.SessionInfo[] = [
  { sessionId: "old-1", cwd: "/work/a", title: "Fix the tests", updatedAt: "2026-11-24T10:00:00Z" },
  { sessionId: "old-2", cwd: "/work/a", additionalDirectories: ["/work/lib"], title: null },
];

const app = acp.agent({ name: "session-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientCapabilities = params.clientCapabilities;
    return {
      ...initializeResponse("session-agent"),
      agentCapabilities: caps === "all"
        ? {
          sessionCapabilities: { list: {}, resume: {}, close: {}, additionalDirectories: {} },
        }
        : caps === "load"
        ? { loadSession: true }
        : {},
    };
  })
  .onRequest(acp.methods.agent.session.list, ({ params }) => {
    if (params.cursor === "page-2") return { sessions: SESSIONS.slice(1) };
    return {
      sessions: SESSIONS.slice(0, 1).map((s) => ({ ...s, cwd: params.cwd ?? s.cwd })),
      nextCursor: "page-2",
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    opened.set("new-1", { how: "new", ...params });
    return { sessionId: "new-1" };
  })
  .onRequest(acp.methods.agent.session.resume, ({ params }) => {
    if (!params.sessionId.startsWith("old-")) {
      throw acp.RequestError.resourceNotFound(params.sessionId);
    }
    opened.set(params.sessionId, { how: "resume", ...params });
    return {};
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    opened.set(params.sessionId, { how: "load", ...params });
    await say(client, params.sessionId, "replayed history. ");
    return {};
  })
  .onRequest(acp.methods.agent.session.close, ({ params }) => {
    const log = process.env.TB_CLOSE_LOG;
    if (log) appendFileSync(log, `closed ${params.sessionId}\n`);
    return {};
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const text = promptText(params.prompt);
    await report(client, sessionId, "opened", opened.get(sessionId) ?? null);
    await report(client, sessionId, "clientCapabilities", clientCapabilities ?? null);
    if (text === "ask") {
      const answer = await attempt(() =>
        client.request(acp.methods.client.elicitation.create, {
          sessionId,
          mode: "form",
          message: "Which database?",
          requestedSchema: {
            type: "object",
            properties: {
              engine: {
                type: "string",
                title: "Engine",
                oneOf: [
                  { const: "pg", title: "PostgreSQL" },
                  { const: "sqlite", title: "SQLite" },
                ],
              },
              port: { type: "integer", title: "Port", minimum: 1, maximum: 65535 },
              seed: { type: "boolean", title: "Seed data", default: false },
              note: { type: "string", title: "Note" },
            },
            required: ["engine", "port"],
          },
        })
      );
      await report(client, sessionId, "elicitation", answer);
    } else if (text === "ask-url") {
      const answer = await attempt(() =>
        client.request(acp.methods.client.elicitation.create, {
          sessionId,
          mode: "url",
          message: "Log in to the dashboard",
          elicitationId: "e-1",
          url: "https://example.com/login",
        })
      );
      await report(client, sessionId, "elicitation", answer);
    }
    await say(client, sessionId, "turn done");
    return { stopReason: "end_turn" };
  });

await serveStdio(app);
