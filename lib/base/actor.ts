/**
 * Who acts: the mode and, where it applies, the session, terminal and
 * client. The policy's questions, the approvals and the audit log all name
 * one, so it lives on the ground floor.
 * @module
 */

/** The modes a request can come from. */
export type Mode = "acp" | "serve" | "mcp" | "repl" | "run" | "server" | "cli";

/** Who asks: the mode, and where applicable the session, terminal and client. */
export interface Actor {
  mode: Mode;
  session?: string;
  terminal?: string;
  /** A client of the per-user server, e.g. "mcp pid 1234". */
  client?: string;
}
