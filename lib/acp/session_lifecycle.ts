/**
 * The session's life as ACP v1 has stabilised it: a new session, or one the
 * agent kept (`session/resume`, else `session/load`), with additional
 * directories; `session/list`; `session/close` at the end. Each is used only
 * when the agent advertises it, and a missing capability is a clear error.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import { sanitize } from "./render/text.ts";

/** What the run asks of the session. */
export interface SessionRequest {
  cwd: string;
  /** Resume this session instead of opening a new one. */
  session?: string;
  /** Additional workspace roots (absolute). */
  addDirs: string[];
  /** MCP servers offered to the agent. */
  mcpServers: acp.McpServer[];
  /** `_meta` of the request (agent-specific options), if any. */
  meta?: Record<string, unknown>;
}

/** The session that was opened, and how. */
export interface OpenedSession {
  sessionId: string;
  how: "new" | "resumed" | "loaded";
  /** The session's modes, when the agent has them. */
  modes?: acp.SessionModeState | null;
}

/** A request termbridge will not send: the agent lacks the capability (exit 6, not an agent error). */
export class CapabilityError extends Error {
  override name = "CapabilityError";
}

/** The agent's session capabilities, never undefined. */
function sessionCaps(init: acp.InitializeResponse): acp.SessionCapabilities {
  return init.agentCapabilities?.sessionCapabilities ?? {};
}

/**
 * Opens the session: `session/new`, or with `request.session` the agent's
 * `session/resume` (preferred: it does not replay history) or `session/load`.
 * @throws {CapabilityError} when the agent lacks what the request needs
 * @throws the agent's JSON-RPC error
 */
export async function openSession(
  agent: acp.ClientContext,
  init: acp.InitializeResponse,
  request: SessionRequest,
): Promise<OpenedSession> {
  const caps = sessionCaps(init);
  if (request.addDirs.length > 0 && !caps.additionalDirectories) {
    throw new CapabilityError(
      `Cannot use --add-dir ${
        JSON.stringify(request.addDirs[0])
      }: the agent does not support additionalDirectories (no sessionCapabilities.additionalDirectories in its initialize answer)`,
    );
  }
  const extra = {
    ...(request.addDirs.length > 0 ? { additionalDirectories: request.addDirs } : {}),
    ...(request.meta === undefined ? {} : { _meta: request.meta }),
  };
  const common = { cwd: request.cwd, mcpServers: request.mcpServers, ...extra };
  if (request.session === undefined) {
    const { sessionId, modes } = await agent.request(acp.methods.agent.session.new, common);
    return { sessionId, how: "new", modes };
  }
  const sessionId = request.session;
  if (caps.resume) {
    const { modes } = await agent.request(acp.methods.agent.session.resume, {
      sessionId,
      ...common,
    });
    return { sessionId, how: "resumed", modes };
  }
  if (init.agentCapabilities?.loadSession) {
    const { modes } = await agent.request(acp.methods.agent.session.load, { sessionId, ...common });
    return { sessionId, how: "loaded", modes };
  }
  throw new CapabilityError(
    `Cannot resume session ${
      JSON.stringify(sessionId)
    }: the agent supports neither session/resume nor session/load; run without --session for a new one`,
  );
}

/**
 * Every session the agent lists for `cwd` (following `nextCursor`).
 * @throws {CapabilityError} when the agent does not support `session/list`
 * @throws the agent's JSON-RPC error
 */
export async function listSessions(
  agent: acp.ClientContext,
  init: acp.InitializeResponse,
  cwd: string,
): Promise<acp.SessionInfo[]> {
  if (!sessionCaps(init).list) {
    throw new CapabilityError(
      "Cannot list sessions: the agent does not support session/list (no sessionCapabilities.list in its initialize answer)",
    );
  }
  const sessions: acp.SessionInfo[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const page: acp.ListSessionsResponse = await agent.request(acp.methods.agent.session.list, {
      cwd,
      ...(cursor === undefined ? {} : { cursor }),
    });
    sessions.push(...page.sessions);
    cursor = page.nextCursor ?? undefined;
    // A cursor seen before would loop forever: stop there.
    if (cursor !== undefined && seen.has(cursor)) break;
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return sessions;
}

/** The sessions as a table for people: id, last update, title, directories. */
export function formatSessions(sessions: acp.SessionInfo[], cwd: string): string {
  if (sessions.length === 0) return `No sessions in ${cwd}\n`;
  const rows = sessions.map((s) => [
    s.sessionId,
    s.updatedAt ?? "-",
    sanitize(s.title ?? "").replace(/\s/g, " ") || "-",
    [s.cwd, ...(s.additionalDirectories ?? [])].join(", "),
  ]);
  const header = ["SESSION", "UPDATED", "TITLE", "DIRECTORIES"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => i === cells.length - 1 ? cell : cell.padEnd(widths[i])).join("  ");
  return [line(header), ...rows.map(line)].join("\n") + "\n";
}

/** Whether the agent supports `session/close`. */
export function canClose(init: acp.InitializeResponse | undefined): boolean {
  return init !== undefined && Boolean(sessionCaps(init).close);
}
