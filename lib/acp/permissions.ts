/**
 * Answering an agent's `session/request_permission`: by flag, by asking the
 * person at the terminal, or by rejecting when nobody can be asked.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { PermissionDecision, PermissionSource } from "./render/types.ts";

/** How permission requests are answered. */
export type PermissionPolicy = "yes" | "no" | "ask" | "reject";

/** Asks a person to pick one option; resolves with its index, or undefined to cancel. */
export type AskPerson = (
  request: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<number | undefined>;

const ALLOW = new Set(["allow_once", "allow_always"]);
const REJECT = new Set(["reject_once", "reject_always"]);

/**
 * Answers permission requests with one policy, and answers every pending one
 * `cancelled` after `cancelAll()` (as ACP requires after `session/cancel`).
 */
export class PermissionDesk {
  readonly #policy: PermissionPolicy;
  readonly #ask: AskPerson | undefined;
  readonly #pending = new Set<AbortController>();

  constructor(policy: PermissionPolicy, ask?: AskPerson) {
    this.#policy = policy;
    this.#ask = ask;
  }

  /** Decides one request. */
  async decide(
    request: acp.RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionDecision> {
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    this.#pending.add(controller);
    try {
      return await this.#decide(request, controller.signal);
    } finally {
      this.#pending.delete(controller);
      signal.removeEventListener("abort", onAbort);
    }
  }

  /** Cancels every pending request. */
  cancelAll(): void {
    for (const controller of this.#pending) controller.abort();
  }

  async #decide(
    request: acp.RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionDecision> {
    const choose = (kinds: Set<string>, source: PermissionSource) =>
      decision(request, request.options.find((o) => kinds.has(o.kind)), source);
    switch (this.#policy) {
      case "yes":
        return choose(ALLOW, "--yes");
      case "no":
        return choose(REJECT, "--no");
      case "reject":
        return choose(REJECT, "no-tty");
      case "ask": {
        if (this.#ask === undefined) return choose(REJECT, "no-tty");
        const index = await this.#ask(request, signal);
        if (signal.aborted || index === undefined) return decision(request, undefined, "cancelled");
        return decision(request, request.options[index], "user");
      }
    }
  }
}

function decision(
  request: acp.RequestPermissionRequest,
  option: acp.PermissionOption | undefined,
  source: PermissionSource,
): PermissionDecision {
  return {
    sessionId: request.sessionId,
    toolCall: request.toolCall,
    options: request.options,
    outcome: option === undefined ? "cancelled" : "selected",
    option,
    source,
  };
}

/** The ACP response for a decision. */
export function toPermissionResponse(decision: PermissionDecision): acp.RequestPermissionResponse {
  return decision.option === undefined
    ? { outcome: { outcome: "cancelled" } }
    : { outcome: { outcome: "selected", optionId: decision.option.optionId } };
}
