/**
 * Which client of the per-user server is acting, for the audit log, and how
 * that client answers the policy's "ask": the server runs each connection's
 * work inside {@linkcode asClient}, and the guard's actors carry the label
 * (and its approver is found) without every call passing them along.
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import type { Approver } from "./types.ts";

/** The client acting now: its label, and how it can be asked (set once it can). */
interface ClientContext {
  label: string;
  approver?: Approver;
}

const current = new AsyncLocalStorage<ClientContext>();

/**
 * Runs `body` (and everything it starts, across awaits) as client `label`.
 * @example
 * ```ts
 * await asClient("exec pid 1234", () => serveConnection());
 * ```
 */
export function asClient<T>(label: string, body: () => T): T {
  return current.run({ label }, body);
}

/** The label of the client whose work is running now, if any. */
export function currentClient(): string | undefined {
  return current.getStore()?.label;
}

/**
 * Says how the client whose work is running now answers the policy's "ask"
 * (an MCP client's elicitation): its own requests are asked of it. Does
 * nothing outside {@linkcode asClient}.
 */
export function setClientApprover(approver: Approver): void {
  const context = current.getStore();
  if (context !== undefined) context.approver = approver;
}

/** How the client whose work is running now answers an "ask", if it can. */
export function currentApprover(): Approver | undefined {
  return current.getStore()?.approver;
}

let lastResort: Approver | undefined;

/**
 * Sets who answers an "ask" that the asking client cannot answer itself (the
 * session server's dashboard page); undefined: nobody, the "ask" is refused.
 */
export function setLastResortApprover(approver: Approver | undefined): void {
  lastResort = approver;
}

/** Who answers an "ask" the asking client cannot answer, if anyone. */
export function lastResortApprover(): Approver | undefined {
  return lastResort;
}
