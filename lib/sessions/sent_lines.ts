/**
 * The policy's bookkeeping for the lines a session sends (exec and input):
 * the guard's check before a line is sent; an "ask" approved then, which the
 * shell's own check of the same line takes instead of asking again; and
 * exec's line, recorded in the audit log once, by the shell's check or, if
 * the shell never checks it (something else read the line), here; and exec's
 * verdict, which the shell's check of the very same line in the very same
 * context takes instead of judging it again.
 * @module
 */

import { aliasesAnywhere, expandGlobalAliases } from "../policy/aliases.ts";
import type { CommandVerdict, RuleMatch } from "../policy/types.ts";
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

/** What the shell reports of a line it is about to run (see typed_lines.ts). */
export interface ShellLine {
  line: string;
  cwd: string;
  path: string;
  home: string;
  /** bash's keyword option is on: exec's check, made without it, does not apply. */
  keyword: boolean;
  /** Reading options on (brace_ccl, interactive_comments off): nor does it then. */
  braceCcl?: boolean;
  commentsOff?: boolean;
  /** The shell (`zsh`, `/usr/bin/bash`): exec's check, made with bash's builtins, applies to bash only. */
  shell?: string;
  aliases: Record<string, string>;
  /** zsh's global and suffix aliases. */
  globalAliases?: Record<string, string>;
  suffixAliases?: Record<string, string>;
}

/** Whether the shell runs `word`, in command position, as one of its aliases (or a suffix alias). */
function namedByAlias(word: string, shell: ShellLine): boolean {
  const extension = /\.([^./]+)$/.exec(word)?.[1];
  return Object.hasOwn(shell.aliases, word) ||
    (extension !== undefined && Object.hasOwn(shell.suffixAliases ?? {}, extension));
}

/** The shell's check of exec's line: whether it is exec's, and exec's verdict when it applies. */
export interface ExecLineMatch {
  /** The line is the one exec sent (one audit event: sent by exec's client, run by the shell). */
  sent: boolean;
  /** Exec's verdict, when the shell runs that line with the inputs exec's check had. */
  judged?: CommandVerdict;
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
  /** Exec's allowed line and what its verdict was judged with, until the shell's check takes it. */
  #judged: {
    line: string;
    cwd: string;
    path: string | undefined;
    home: string | undefined;
    verdict: CommandVerdict;
  } | null = null;

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
    this.#judged = null;
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
    if (recordedByShell && verdict?.decision === "allow") {
      this.#judged = { line, cwd, path: env.PATH, home: env.HOME, verdict };
    }
  }

  /**
   * Whether the shell's line is the one exec sent (used once: the shell's
   * check records it), with exec's verdict when the shell runs that line in
   * the directory and with the PATH exec's check had, in bash (whose builtins
   * exec's check knew), and none of the
   * commands exec's check found is named by one of the shell's aliases
   * (which exec's check did not know, and which the policy consults only for
   * a command's first word), nor any word of the line by a global one or
   * one of a reserved word: the policy's inputs are then the same, so is its
   * verdict. Otherwise the shell's check judges the line itself.
   */
  takeExecLine(shell: ShellLine): ExecLineMatch {
    const sent = this.#execLine === shell.line;
    const judged = this.#judged;
    this.#execLine = null;
    this.#judged = null;
    if (sent) this.#unchecked = undefined;
    const same = judged !== null && judged.line === shell.line && judged.cwd === shell.cwd &&
      judged.path === shell.path && (judged.home ?? "") === shell.home && !shell.keyword &&
      !shell.braceCcl && !shell.commentsOff &&
      !/(^|\/)zsh$/.test(shell.shell ?? "") &&
      !judged.verdict.commands.some((command) => namedByAlias(command.words[0], shell)) &&
      expandGlobalAliases(shell.line, aliasesAnywhere(shell) ?? {}) === shell.line;
    return same ? { sent, judged: judged.verdict } : { sent };
  }

  /** Records exec's line if the shell has not checked it by now. */
  recordUnchecked(): void {
    this.#unchecked?.();
    this.#unchecked = undefined;
    this.#execLine = null;
    this.#judged = null;
  }

  /** The rule whose "ask" was approved when `line` was sent, for the shell's check of it; used once. */
  takeApproval(line: string): RuleMatch | undefined {
    const approved = this.#approved?.line === line ? this.#approved.rule : undefined;
    this.#approved = null;
    return approved;
  }
}
