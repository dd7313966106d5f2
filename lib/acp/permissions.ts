/**
 * Answering an agent's `session/request_permission`: by flag, by asking the
 * person at the terminal, or by rejecting when nobody can be asked. `--yes`
 * picks `allow_once` (else `reject_once`), `--no` and "nobody to ask" pick
 * `reject_once`; neither ever picks an `*_always` option, and with nothing
 * to pick the answer is `cancelled`.
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

/**
 * What a flag picks, in order of preference. A flag never picks an
 * `*_always` option: agents persist those (claude-code-acp writes
 * `.claude/settings.local.json`), and a flag answers one run, not every later
 * one. When none is offered the answer is `cancelled`.
 */
const PICKS: Record<"yes" | "no", acp.PermissionOptionKind[]> = {
  yes: ["allow_once", "reject_once"],
  no: ["reject_once"],
};

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
    switch (this.#policy) {
      case "yes":
        return pick(request, "yes", "--yes");
      case "no":
        return pick(request, "no", "--no");
      case "reject":
        return pick(request, "no", "no-tty");
      case "ask": {
        if (this.#ask === undefined) return pick(request, "no", "no-tty");
        const index = await this.#ask(request, signal);
        if (signal.aborted || index === undefined) return decision(request, undefined, "cancelled");
        return decision(request, request.options[index], "user");
      }
    }
  }
}

/** The first option of the kinds `PICKS[answer]` lists, with a note when it is a fallback. */
function pick(
  request: acp.RequestPermissionRequest,
  answer: "yes" | "no",
  source: PermissionSource,
): PermissionDecision {
  const [wanted] = PICKS[answer];
  for (const kind of PICKS[answer]) {
    const option = request.options.find((o) => o.kind === kind);
    if (option === undefined) continue;
    const note = kind === wanted ? undefined : `the agent offered no ${wanted} option`;
    return decision(request, option, source, note);
  }
  const offered = request.options.map((o) => o.kind).join(", ") || "nothing";
  return decision(
    request,
    undefined,
    source,
    `the agent offered no ${PICKS[answer].join(" or ")} option (it offered ${offered})`,
  );
}

function decision(
  request: acp.RequestPermissionRequest,
  option: acp.PermissionOption | undefined,
  source: PermissionSource,
  note?: string,
): PermissionDecision {
  return {
    sessionId: request.sessionId,
    toolCall: request.toolCall,
    options: request.options,
    outcome: option === undefined ? "cancelled" : "selected",
    option,
    source,
    ...(note === undefined ? {} : { note }),
  };
}

/** The ACP response for a decision. */
export function toPermissionResponse(decision: PermissionDecision): acp.RequestPermissionResponse {
  return decision.option === undefined
    ? { outcome: { outcome: "cancelled" } }
    : { outcome: { outcome: "selected", optionId: decision.option.optionId } };
}
