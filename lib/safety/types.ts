/**
 * The safety core's contract: one guard that every mode's command and file
 * access goes through (policy, approval, audit), and the approver a front end
 * supplies to answer an "ask". Implemented in `lib/safety/`.
 * @module
 */

import type { CommandVerdict, PathVerdict } from "../policy/types.ts";

import type { Actor } from "../base/actor.ts";

export type { Actor, Mode } from "../base/actor.ts";

/** A question a front end must answer for an "ask" verdict. */
export type ApprovalRequest =
  | { kind: "command"; subject: string; verdict: CommandVerdict; actor: Actor }
  | { kind: "read" | "write"; subject: string; verdict: PathVerdict; actor: Actor };

/** The answer, and who gave it (recorded in the audit log), e.g. "user", "--yes", "elicitation". */
export interface Approval {
  approved: boolean;
  by: string;
}

/** How a front end answers an "ask": a prompt, a permission request, a flag. */
export type Approver = (request: ApprovalRequest, signal?: AbortSignal) => Promise<Approval>;
