/**
 * The policy in front of an agent's `session/request_permission`: what the
 * tool call says it will do (its commands, the files it reads or writes) is
 * checked by termbridge's guard exactly like a `terminal/create` or an
 * `fs/write_text_file`. A deny answers the reject option at once (nobody is
 * asked, even under --yes); an allow rule for every command answers allow
 * once; an "ask", and anything the policy has no rule for, goes to the
 * {@linkcode PermissionDesk} (the person, --yes or --no). Every answer is
 * written to the audit log with who decided and why.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { Decision, RuleMatch } from "../policy/types.ts";
import { PolicyDeniedError } from "../safety/guard.ts";
import type { Approver } from "../safety/types.ts";
import type { FileAccess } from "../service/text_files.ts";
import type { PermissionDesk } from "./permissions.ts";
import type { PermissionDecision } from "./render/types.ts";
import { type IntendedCommand, toolIntent } from "./tool_intent.ts";

/** How the gate reaches the guard: the file access of a session (its guard, actor, cwd, env, sandbox roots). */
export type AccessOf = (sessionId: string) => FileAccess;

/** What was decided about one tool call, for the audit of what the agent then reports. */
export interface GateVerdict {
  decision: Decision;
  rule: RuleMatch | null;
  reason: string;
  /** Who decided: "policy", "user", "--yes", "--no", "no-tty", "cancelled". */
  by: string;
  /** Whether the agent was let go ahead. */
  allowed: boolean;
}

/**
 * How many turns in a row termbridge starts to tell the agent why the
 * policy refused, when the refusal ended the agent's turn.
 */
export const MAX_REFUSAL_FOLLOW_UPS = 2;

/**
 * The prompt that tells an agent why the policy refused what it asked,
 * when the refusal ended its turn (codex-acp's reject option aborts it).
 */
export function refusalPrompt(refusals: readonly string[]): string {
  return `[termbridge] The policy refused what you asked to do: ${
    refusals.join("; ")
  }. Asking again gets the same answer: carry on without it, or say what you need and why.`;
}

/** How many tool calls' verdicts are remembered for the audit of their reports. */
const REMEMBERED = 1000;

/** Checks permission requests against the policy, then hands the rest to the desk. */
export class PermissionGate {
  readonly #desk: PermissionDesk;
  readonly #accessOf: AccessOf;
  readonly #verdicts = new Map<string, GateVerdict>();
  #refusals: string[] = [];

  constructor(desk: PermissionDesk, accessOf: AccessOf) {
    this.#desk = desk;
    this.#accessOf = accessOf;
  }

  /** The verdict given to tool call `toolCallId`, if it asked. */
  verdictFor(toolCallId: string): GateVerdict | undefined {
    return this.#verdicts.get(toolCallId);
  }

  /** The policy's refusals since the last call, in words, and forgets them. */
  takeRefusals(): string[] {
    const refusals = this.#refusals;
    this.#refusals = [];
    return refusals;
  }

  /** Decides one request and records the answer. */
  async decide(
    request: acp.RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<PermissionDecision> {
    const access = this.#accessOf(request.sessionId);
    const { decision, verdict } = await this.#decide(request, access, signal);
    const answer = decision.option?.kind ?? "cancelled";
    if (decision.source === "policy" && !answer.startsWith("allow")) {
      this.#refusals.push(decision.note ?? verdict.reason);
    }
    const id = request.toolCall.toolCallId;
    this.remember(id, { ...verdict, by: decision.source, allowed: answer.startsWith("allow") });
    const intent = toolIntent(request.toolCall, access.cwd);
    access.guard.record(access.actor, {
      event: "permission",
      toolCallId: id,
      ...(request.toolCall.title ? { title: request.toolCall.title } : {}),
      ...(intent.tool === undefined ? {} : { tool: intent.tool }),
      answer,
      by: decision.source,
      reason: decision.note ?? verdict.reason,
    });
    return decision;
  }

  async #decide(
    request: acp.RequestPermissionRequest,
    access: FileAccess,
    signal: AbortSignal,
  ): Promise<{ decision: PermissionDecision; verdict: Omit<GateVerdict, "by" | "allowed"> }> {
    const { guard, actor } = access;
    const intent = toolIntent(request.toolCall, access.cwd);
    let asked: PermissionDecision | undefined;
    const approver: Approver = async (_question, askSignal) => {
      asked ??= await this.#desk.decide(request, askSignal ?? signal);
      const kind = asked.option?.kind;
      return { approved: kind === "allow_once" || kind === "allow_always", by: asked.source };
    };
    let strictest: Omit<GateVerdict, "by" | "allowed"> = {
      decision: "allow",
      rule: null,
      reason: intent.commands.length + intent.paths.length === 0
        ? "the policy cannot check it (the tool call names no command or file)"
        : "the policy allows it",
    };
    let allowRules = intent.commands.length > 0;
    try {
      for (const command of intent.commands) {
        const verdict = await guard.checkCommand(
          commandCheck(command, access, approver),
          actor,
          signal,
        );
        if (verdict === null) {
          allowRules = false;
          continue;
        }
        if (verdict.rule.list !== "allow") allowRules = false;
        if (rank(verdict.decision) >= rank(strictest.decision)) {
          strictest = { decision: verdict.decision, rule: verdict.rule, reason: verdict.reason };
        }
      }
      for (const path of intent.paths) {
        if (path.access === "read") guard.checkRead(path.path, access, actor);
        else guard.checkWrite(path.path, path.bytes ?? 0, access, actor);
      }
    } catch (error) {
      if (!(error instanceof PolicyDeniedError)) throw error;
      if (asked !== undefined) {
        return { decision: asked, verdict: { ...strictest, decision: "ask" } };
      }
      return {
        decision: refuse(request, error.message),
        verdict: { decision: "deny", rule: error.rule, reason: error.message },
      };
    }
    if (asked !== undefined) return { decision: asked, verdict: strictest };
    if (allowRules && intent.paths.length === 0) {
      return { decision: allowByRule(request, strictest.reason), verdict: strictest };
    }
    return { decision: await this.#desk.decide(request, signal), verdict: strictest };
  }

  /** Remembers the verdict given to tool call `id` (also by termbridge's hook, before it asked). */
  remember(id: string, verdict: GateVerdict): void {
    this.#verdicts.delete(id);
    this.#verdicts.set(id, verdict);
    if (this.#verdicts.size > REMEMBERED) {
      this.#verdicts.delete(this.#verdicts.keys().next().value!);
    }
  }
}

function rank(decision: Decision): number {
  return decision === "deny" ? 2 : decision === "ask" ? 1 : 0;
}

function commandCheck(command: IntendedCommand, access: FileAccess, approver: Approver) {
  return {
    origin: "agent" as const,
    ...(command.line !== undefined ? { line: command.line } : { argv: command.argv ?? [] }),
    cwd: command.cwd ?? access.cwd,
    env: access.env,
    approver,
  };
}

/** The policy refuses: the reject option the agent offered (never an `*_always` one), else cancelled. */
function refuse(request: acp.RequestPermissionRequest, why: string): PermissionDecision {
  return answerOnce(request, "reject_once", why);
}

/** An allow rule covers every command: allow once (never always, which the agent would keep). */
function allowByRule(request: acp.RequestPermissionRequest, why: string): PermissionDecision {
  return answerOnce(request, "allow_once", why);
}

/** The policy's answer: the agent's option of `kind`, or cancelled when it offered none. */
function answerOnce(
  request: acp.RequestPermissionRequest,
  kind: "allow_once" | "reject_once",
  why: string,
): PermissionDecision {
  const option = request.options.find((o) => o.kind === kind);
  return {
    sessionId: request.sessionId,
    toolCall: request.toolCall,
    options: request.options,
    outcome: option === undefined ? "cancelled" : "selected",
    ...(option === undefined ? {} : { option }),
    source: "policy",
    note: option === undefined ? `${why} (the agent offered no ${kind} option)` : why,
  };
}
