/**
 * The audit log's events: one JSON object a line, each with the time, the
 * mode and the ids of who acted. Environment variables appear by name only,
 * never with their values.
 * @module
 */

import type { Decision, RuleMatch } from "../policy/types.ts";
import type { Actor } from "../base/actor.ts";

/** Where a checked command came from. */
export type CommandOrigin = "create" | "exec" | "input" | "open" | "typed" | "agent";

/** What happened, without the common fields (time, mode, ids). */
export type AuditEvent =
  /** A command was requested and the policy decided (written before it runs or is refused). */
  | {
    event: "command";
    origin: CommandOrigin;
    /** The shell's typed-line check saw the line as the shell was about to run it. */
    shell?: true;
    argv?: string[];
    line?: string;
    cwd: string;
    /** Names of the variables the request set, never their values. */
    env?: string[];
    decision: Decision;
    rule: RuleMatch | null;
    reason: string;
  }
  /** An "ask" was answered. */
  | { event: "approval"; subject: string; approved: boolean; by: string }
  /**
   * An agent's `session/request_permission` was answered: the option picked
   * (its kind, or "cancelled"), who decided ("policy", "user", "--yes"...)
   * and why. The checks behind it are recorded before it ("command", "read",
   * "write" with origin "agent").
   */
  | {
    event: "permission";
    toolCallId: string;
    title?: string;
    tool?: string;
    answer: "allow_once" | "allow_always" | "reject_once" | "reject_always" | "cancelled";
    by: string;
    reason: string;
  }
  /**
   * A command an agent reports running on its own (its tool call or its
   * `_meta.terminal_info`), with the policy's verdict and who let it run:
   * "policy", "user", "--yes" for one it asked about; "the agent (not asked)"
   * for one it ran without asking. Written when termbridge first learns the
   * command; `agent_command_end` follows when it ends.
   */
  | {
    event: "agent_command";
    toolCallId: string;
    tool?: string;
    line?: string;
    argv?: string[];
    cwd?: string;
    decision: Decision;
    rule: RuleMatch | null;
    reason: string;
    by: string;
  }
  /** An agent's command ended as the agent reports it (exit code, or only a status). */
  | {
    event: "agent_command_end";
    toolCallId: string;
    status: string;
    exitCode: number | null;
    signal: string | null;
  }
  /** A process started. */
  | { event: "start"; pid: number; command: string }
  /** A process ended. */
  | {
    event: "exit";
    exitCode: number | null;
    signal: string | null;
    durationMs: number;
    outputBytes: number;
  }
  | { event: "kill"; signal?: string; reason?: string }
  | { event: "release" }
  /** A limit was hit; `message` is what the caller was told. */
  | { event: "limit"; limit: string; value?: number; message: string }
  /** A file access: decided (and, when allowed, done) before the reply. */
  | {
    event: "read" | "write";
    path: string;
    bytes: number | null;
    decision: "allow" | "deny";
    rule: string | null;
  }
  /** Anything else a component wants on record (a session opened or closed, a client connected). */
  | { event: "note"; what: string; [key: string]: unknown };

/** One line of the log as written. */
export type AuditRecord = AuditEvent & {
  /** ISO 8601 time with milliseconds. */
  time: string;
  mode: Actor["mode"];
  /** termbridge's own process id (events of concurrent termbridges interleave). */
  instance: number;
  session?: string;
  terminal?: string;
  client?: string;
  /** A field was longer than the log keeps and was cut (it ends with "…"). */
  truncated?: true;
};

/** Where audit events go; `record` returns once the line is written (synchronously). */
export interface AuditSink {
  /** Whether events are kept at all (false for --no-audit). */
  readonly enabled: boolean;
  record(actor: Actor, event: AuditEvent): void;
}
