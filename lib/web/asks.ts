/**
 * The policy's questions that the asking client cannot answer (a script's
 * `exec`, an MCP client without elicitation), put to the dashboard's pages:
 * each open page shows the command, the rule and who asked, and the first
 * page to answer decides. With no page open, or no answer in time, the
 * question is refused, saying so.
 * @module
 */

import { currentClient } from "../safety/client.ts";
import type { Approval, ApprovalRequest } from "../safety/types.ts";
import type { AskMessage } from "./protocol.ts";

/** How long a question waits for a page's answer (ms). */
export const ASK_MS = 120_000;

/** How to approve without a page, said in every refusal. */
const OTHERWISE = "start the server with --yes to approve: termbridge kill-server; " +
  "termbridge server --yes &";

interface Pending {
  message: AskMessage;
  settle: (approval: Approval) => void;
}

/** The open questions of one dashboard. */
export class Asks {
  readonly #pending = new Map<number, Pending>();
  readonly #timeoutMs: number;
  readonly #pages: () => number;
  readonly #broadcast: (message: AskMessage | { t: "answered"; id: number; by: string }) => void;
  #next = 0;

  /**
   * `pages` counts the open pages; `broadcast` sends a message to every one.
   */
  constructor(options: {
    pages: () => number;
    broadcast: (message: AskMessage | { t: "answered"; id: number; by: string }) => void;
    timeoutMs?: number;
  }) {
    this.#pages = options.pages;
    this.#broadcast = options.broadcast;
    this.#timeoutMs = options.timeoutMs ?? ASK_MS;
  }

  /** The questions still open, for a page that just connected. */
  open(): AskMessage[] {
    return [...this.#pending.values()].map((pending) => pending.message);
  }

  /** Puts `request` to the pages and resolves with the first answer (or a refusal). */
  ask(request: ApprovalRequest, signal?: AbortSignal): Promise<Approval> {
    if (this.#pages() === 0) {
      return Promise.resolve({
        approved: false,
        by: `nobody to ask: no termbridge web page is open (${OTHERWISE})`,
      });
    }
    const id = ++this.#next;
    const message: AskMessage = {
      t: "ask",
      id,
      kind: request.kind,
      subject: request.subject,
      reason: request.verdict.reason,
      rule: ruleOf(request),
      client: currentClient() ?? request.actor.client ?? request.actor.mode,
      session: request.actor.session ?? null,
    };
    return new Promise<Approval>((resolve) => {
      const timer = setTimeout(
        () =>
          settle({
            approved: false,
            by: `nobody answered on the termbridge web page within ${
              this.#timeoutMs / 1000
            } s (${OTHERWISE})`,
          }),
        this.#timeoutMs,
      );
      const onAbort = () => settle({ approved: false, by: "the question was withdrawn" });
      const settle = (approval: Approval) => {
        if (!this.#pending.has(id)) return;
        this.#pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#broadcast({ t: "answered", id, by: approval.by });
        resolve(approval);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, { message, settle });
      this.#broadcast(message);
      if (signal?.aborted) onAbort();
    });
  }

  /**
   * A page's answer to question `id`, from client `label`.
   * @throws {Error} when no such question is open (answered already, or timed out)
   */
  answer(id: number, allow: boolean, label: string): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) {
      throw new Error(
        `Cannot answer question ${
          JSON.stringify(id)
        }: it is not open (answered already or timed out)`,
      );
    }
    pending.settle({ approved: allow, by: `${label} (${allow ? "allow once" : "deny"})` });
  }

  /** Refuses every open question (the dashboard stops). */
  close(): void {
    for (const pending of [...this.#pending.values()]) {
      pending.settle({ approved: false, by: "the dashboard stopped" });
    }
  }
}

/** The rule that asks, as the configuration says it ("ask: git push"). */
function ruleOf(request: ApprovalRequest): string {
  if (request.kind !== "command") return request.verdict.rule ?? "";
  const { list, pattern } = request.verdict.rule;
  return pattern === "" ? list : `${list}: ${pattern}`;
}
