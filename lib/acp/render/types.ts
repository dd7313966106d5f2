/**
 * What the `acp` mode shows of a conversation, and the contract of the three
 * ways of showing it (a live terminal view, plain lines, JSON lines).
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { TerminalEvent } from "../../service/terminal_service.ts";

/** Who or what chose a permission outcome. */
export type PermissionSource = "user" | "--yes" | "--no" | "no-tty" | "cancelled" | "policy";

/** A permission request and how it was answered. */
export interface PermissionDecision {
  sessionId: string;
  toolCall: acp.ToolCallUpdate;
  options: acp.PermissionOption[];
  outcome: "selected" | "cancelled";
  /** The chosen option, when one was selected. */
  option?: acp.PermissionOption;
  source: PermissionSource;
  /** Why the choice is not the one the source usually makes (a fallback), when it is not. */
  note?: string;
}

/** One file request and its answer. */
export type FileActivity =
  | {
    type: "file_read";
    sessionId: string;
    path: string;
    /** The first line asked for (1-based), when the agent gave one. */
    line?: number;
    /** The most lines asked for, when the agent gave a limit. */
    limit?: number;
    /** Lines and UTF-8 bytes sent back, when the read succeeded. */
    lines?: number;
    bytes?: number;
    /** Why the read failed, when it did. */
    error?: string;
  }
  | {
    type: "file_written";
    sessionId: string;
    path: string;
    /** UTF-8 bytes of the content the agent sent. */
    bytes: number;
    /** Why the write failed, when it did. */
    error?: string;
  };

/** Something the user should read: the agent's info, a prompt, a stop, a file request, a warning, an error. */
export type ConversationEvent =
  | {
    type: "agent";
    name: string;
    version?: string;
    protocolVersion: number;
    /** What holds the agent's process tree: containment, sandbox, limits (lib/sandbox/agent.ts). */
    enclosure?: string;
  }
  | { type: "session"; sessionId: string; cwd: string }
  | { type: "prompt"; sessionId: string; text: string }
  | { type: "stop"; sessionId: string; stopReason: string }
  | FileActivity
  | { type: "notice"; message: string }
  | { type: "warning"; message: string }
  | { type: "error"; message: string };

/** Shows a conversation with an agent. Calls arrive in the order things happened. */
export interface Renderer {
  /** A `session/update` notification from the agent. */
  update(notification: acp.SessionNotification): void;
  /** A terminal the agent created, its exit, kill or release. */
  terminal(event: TerminalEvent): void;
  /** A permission request and its answer. */
  permission(decision: PermissionDecision): void;
  /** Everything else worth showing. */
  event(event: ConversationEvent): void;
  /**
   * Takes live regions off the screen so that something else can write (a
   * permission question); returns a function that puts them back.
   */
  suspend(): () => void;
  /** Finishes what is on screen (live regions, pending lines); call before exit. */
  close(): Promise<void>;
}

/**
 * Where a renderer writes; `columns` is the width when writing to a terminal
 * (read on every draw, so a getter follows resizes).
 */
export interface RenderTarget {
  write(text: string): void;
  /** Width of the terminal, or undefined when the target is not one. */
  columns?: number;
}
