/**
 * The policy's bookkeeping for the lines a session sends (exec and input):
 * the guard's check before a line is sent; an "ask" approved then, which the
 * shell's own check of the same line takes instead of asking again; and
 * exec's line, recorded in the audit log once, by the shell's check or, if
 * the shell never checks it (something else read the line), here.
 * @module
 */

import type { RuleMatch } from "../policy/types.ts";
import type { Guard } from "../safety/guard.ts";
import type { Actor } from "../safety/types.ts";

/** A line about to be sent, and who will read it. */
export interface SentLine {
  origin: "exec" | "input";
  line: string;
  /** The shell's working directory. */
  cwd: string;
  env: Record<string, string>;
  /** The programs in the foreground that read it, when not the shell at its prompt. */
  readBy?: string[];
  /** Whether the shell's own check will record it (exec's line, in a shell with line checks). */
  recordedByShell: boolean;
}

/** The checks of one session's sent lines. */
export class SentLineChecks {
  readonly #guard: Guard;
  /** The line whose "ask" was just approved when it was sent, and by which rule. */
  #approved: { line: string; rule: RuleMatch } | null = null;
  /** The line exec is sending, until the shell's typed-line check takes it. */
  #execLine: string | null = null;
  /** Records exec's line when the shell did not check it. */
  #unchecked: (() => void) | undefined;

  constructor(guard: Guard) {
    this.#guard = guard;
  }

  /**
   * The guard's check of a line about to be sent (throws PolicyDeniedError
   * when refused). Once approved, the shell's own check of the same line
   * does not ask again.
   */
  async check(sent: SentLine, actor: Actor): Promise<void> {
    this.#approved = null;
    this.#execLine = null;
    const { origin, line, cwd, env, readBy, recordedByShell } = sent;
    const verdict = await this.#guard.checkCommand(
      { origin, line, cwd, env, recordedByShell, ...(readBy ? { readBy } : {}) },
      actor,
    );
    if (recordedByShell && this.#guard.audit.enabled) {
      this.#execLine = line;
      this.#unchecked = () =>
        this.#guard.record(actor, {
          event: "command",
          origin,
          line,
          cwd,
          decision: verdict?.decision ?? "allow",
          rule: verdict?.rule ?? null,
          reason: verdict?.reason ?? "no policy",
        });
    }
    if (verdict?.decision === "ask") this.#approved = { line, rule: verdict.rule };
  }

  /** Whether `line` is the one exec sent (used once: the shell's check records it). */
  takeExecLine(line: string): boolean {
    const sent = this.#execLine === line;
    this.#execLine = null;
    if (sent) this.#unchecked = undefined;
    return sent;
  }

  /** Records exec's line if the shell has not checked it by now. */
  recordUnchecked(): void {
    this.#unchecked?.();
    this.#unchecked = undefined;
    this.#execLine = null;
  }

  /** The rule whose "ask" was approved when `line` was sent, for the shell's check of it; used once. */
  takeApproval(line: string): RuleMatch | undefined {
    const approved = this.#approved?.line === line ? this.#approved.rule : undefined;
    this.#approved = null;
    return approved;
  }
}
