/**
 * What the layer that composes front ends (lib/server) lends the `acp` mode,
 * which may not reach other front ends itself: termbridge's own MCP terminal
 * tools for the agent, served from this process, and a terminal a person
 * types into (for an agent's terminal login).
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { ExitStatus } from "../runtime/mod.ts";
import type { Safety } from "../safety/setup.ts";
import type { TerminalService } from "../service/terminal_service.ts";

/** One command run through the MCP tools, as it happens (for a terminal card). */
export type ToolCommandEvent =
  | {
    kind: "start";
    id: string;
    command: string;
    cwd: string;
    /** The tools' session (shell) the command runs in. */
    session: string;
    /** The agent's id of the tool call, when its MCP request said (Claude Code's `claudecode/toolUseId`). */
    toolCallId?: string;
  }
  | { kind: "output"; id: string; data: string }
  | {
    kind: "end";
    id: string;
    exitCode: number | null;
    status: "completed" | "running" | "failed";
  };

/** What the tools share with the run. */
export interface ToolsContext {
  safety: Safety;
  /** The session's working directory: where the tools' shells start. */
  cwd: string;
  /** Called as commands start, print and end. */
  events: (event: ToolCommandEvent) => void;
  /**
   * A private directory (0700) for the socket that the agent can reach
   * (inside its sandbox); by default the tools make one of their own.
   */
  socketDir?: string;
}

/** Termbridge's MCP server for the agent, live until `close`. */
export interface ToolsServer {
  /** The stdio MCP server entry for `session/new` (`termbridge mcp --connect SOCKET`). */
  server: acp.McpServerStdio;
  /** Stops listening, ends every connection and closes the tools' sessions. */
  close(): Promise<void>;
}

/** What the composing layer lends; each part is optional. */
export interface AcpHost {
  /** Starts termbridge's MCP terminal tools for the agent. */
  startTools?(context: ToolsContext): Promise<ToolsServer>;
  /**
   * Runs `argv` in a PTY handed to the person's terminal until it exits
   * (an agent's terminal login); resolves with its exit status.
   */
  runInTerminal?(
    argv: string[],
    options: { env: Record<string, string>; cwd: string; safety: Safety },
  ): Promise<ExitStatus>;
  /**
   * Called with the run's terminal service before the agent may make a
   * terminal (`acp --server` shows them in the session server).
   */
  started?(service: TerminalService): Promise<void>;
  /** Called once every terminal of the run has been released. */
  finished?(): Promise<void>;
}
