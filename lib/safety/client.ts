/**
 * Which client of the per-user server is acting, for the audit log: the
 * server runs each connection's work inside {@linkcode asClient}, and the
 * guard's actors carry the label without every call passing it along.
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";

const current = new AsyncLocalStorage<string>();

/**
 * Runs `body` (and everything it starts, across awaits) as client `label`.
 * @example
 * ```ts
 * await asClient("exec pid 1234", () => serveConnection());
 * ```
 */
export function asClient<T>(label: string, body: () => T): T {
  return current.run(label, body);
}

/** The label of the client whose work is running now, if any. */
export function currentClient(): string | undefined {
  return current.getStore();
}
