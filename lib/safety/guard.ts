/**
 * The guard: the one place every command and file access of every mode goes
 * through. Policy verdict, then (for "ask") the front end's approver, then the
 * audit log, then allow or throw `PolicyDeniedError`. Called where commands
 * are created (the terminal service, the sessions), never by a front end.
 * @module
 */

import { currentClient } from "./client.ts";
import type { AuditEvent, AuditSink, CommandOrigin } from "../audit/types.ts";
import type {
  CommandPolicy,
  CommandVerdict,
  PathVerdict,
  PolicyContext,
  RuleMatch,
  ShellState,
} from "../policy/types.ts";
import { readdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { absolute, realPath } from "../policy/paths.ts";
import { isCodeVariable } from "../policy/deferred.ts";
import { TerminalError } from "../base/errors.ts";
import { runtime } from "../runtime/mod.ts";
import { readsShellLines } from "./line_readers.ts";
import type { Actor, Approver, Mode } from "./types.ts";

/** A command or file access the policy refused, or an "ask" nobody approved. */
export class PolicyDeniedError extends TerminalError {
  /** The rule that decided (null for a path no glob allowed). */
  readonly rule: RuleMatch | null;
  /** The command line, argv or path refused. */
  readonly command: string;

  constructor(message: string, rule: RuleMatch | null, command: string) {
    super(message);
    this.rule = rule;
    this.command = command;
  }
}

/** A command to check: a line as a shell would run it, or a program and its arguments. */
export interface CommandCheck {
  origin: CommandOrigin;
  line?: string;
  argv?: string[];
  cwd: string;
  /** The environment the command runs with (PATH lookups depend on it). */
  env: Record<string, string>;
  /** Names of the variables the request itself set (recorded; values never are). */
  envNames?: string[];
  /** The shell's aliases, for lines typed into a shell. */
  aliases?: Record<string, string>;
  /** zsh's global and suffix aliases, for lines typed into zsh. */
  globalAliases?: Record<string, string>;
  suffixAliases?: Record<string, string>;
  /** What earlier lines left changed in the shell, for lines typed into a shell. */
  shellState?: ShellState;
  /**
   * The rule whose "ask" was approved moments ago for this same line when it
   * was sent (a session's exec, then checked again by the shell's hook): an
   * "ask" by that same rule is not asked twice; any other "ask" is, and a
   * "deny" still refuses.
   */
  preApproved?: RuleMatch;
  /**
   * A session's program whose typed lines termbridge's hooks check (bash or
   * zsh started as the program itself): only then is "it reads commands that
   * cannot be known" no reason to ask. `sh`, `env bash` or `python3` as the
   * program get no hooks, so what they read is unknown.
   */
  linesChecked?: boolean;
  /**
   * For a line sent to a running program (`input`, or `exec` to a session
   * without shell integration): the programs of the terminal's foreground
   * process group, which will read it. When none of them is a shell (see
   * `readsShellLines`), the line is audited, not checked as a shell line.
   * Left out (or empty: nothing could be read) the line is checked.
   */
  readBy?: string[];
  /**
   * The shell's own typed-line check will check (and record) this same line
   * as it is about to run it: record it here only when it is refused, so
   * that each line is one event in the audit log.
   */
  recordedByShell?: boolean;
  /** This is the shell's typed-line check of a line `origin` sent (recorded with `shell: true`). */
  inShell?: boolean;
  /**
   * The policy's verdict on this very line with these very inputs (directory,
   * environment, and no alias naming any of its commands) from a moment ago:
   * exec's own check, which the shell's check of the line it runs repeats.
   * It is used instead of judging the line again (one analysis per exec'd
   * line); the caller vouches that the inputs are the same. Recorded, asked
   * and refused as any verdict.
   */
  judged?: CommandVerdict;
  /**
   * Answers this check's "ask" instead of the guard's approver: an agent's
   * own permission request is answered with the options it offered.
   */
  approver?: Approver;
}

/** What a typed line gets: run it, or not and why (for the shell to show). */
export interface TypedLineAnswer {
  allowed: boolean;
  /** Empty when allowed; else a sentence for the person at the shell. */
  message: string;
}

/** Refuses every "ask": for modes and callers that cannot ask anyone. */
export const refuseAsks: Approver = () =>
  Promise.resolve({ approved: false, by: "nobody to ask (pass --yes to approve)" });

/** Settings of a guard. */
export interface GuardOptions {
  /** The mode recorded with every event. */
  mode: Mode;
  /** The policy, or null when there is none (`--policy off` and no rules configured). */
  policy: CommandPolicy | null;
  /** Answers "ask" verdicts. */
  approver: Approver;
  audit: AuditSink;
  /**
   * Files termbridge never writes for a request (`fs/write_text_file`, a
   * recording), whatever the globs say: its own configuration files and
   * audit log (an agent rewriting a trusted directory's termbridge.jsonc
   * would widen the next run). Known by path, through any link or `..`, and
   * by identity (device and inode), so a hard link or bind mount is refused too.
   */
  protectedFiles?: string[];
  /** Logs whose rotated files (`FILE.1`, `FILE.2`, ...) are protected as the log itself. */
  protectedLogs?: string[];
  /**
   * Whether a termbridge started in `dir` would take `dir/termbridge.jsonc`
   * whole (a directory the user's `trust` names, or one below it): no such
   * file is written for a request.
   */
  trustsDirectory?: (dir: string) => boolean;
}

/** What a hard link or a bind mount shares with the file: device and inode. */
export interface FileIdentity {
  dev: number;
  ino: number;
  /** Names the file has (hard links). */
  nlink: number;
  isFile(): boolean;
}

/** The configuration file a termbridge takes from its working directory. */
const REPOSITORY_CONFIG = "termbridge.jsonc";

/** Words for a verdict's rule, e.g. `deny rule "rm -rf"` or `the default (ask)`. */
/** A rule in words, as refusals name it (`deny rule "rm *"`, the policy's default). */
export function ruleWords(rule: RuleMatch, decision: string): string {
  if (rule.list === "default") return `the policy's default (${decision})`;
  if (rule.list === "unknown") return "the policy (what the line runs is not known before it runs)";
  return `${rule.list} rule "${rule.pattern}"`;
}

const RANK = { allow: 0, ask: 1, deny: 2 } as const;

function sameRule(a: RuleMatch | undefined, b: RuleMatch): boolean {
  return a !== undefined && a.list === b.list && a.pattern === b.pattern;
}

/**
 * A session's program (a shell reading what is typed) is judged by its own
 * rules only: that what it will run is unknown is no reason to ask, since
 * every line sent to it (exec, input, typed) is checked on its own.
 */
function asSessionProgram(verdict: CommandVerdict): CommandVerdict {
  if ((verdict.rule.list as string) !== "unknown") return verdict;
  let own: CommandVerdict | undefined;
  for (const command of verdict.commands) {
    if (command.decision === undefined || command.rule === undefined) continue;
    if (own === undefined || RANK[command.decision] > RANK[own.decision]) {
      own = { ...verdict, decision: command.decision, rule: command.rule };
    }
  }
  return own === undefined ? verdict : {
    ...own,
    reason: `the session's program (${verdict.reason}; each line sent to it is checked)`,
  };
}

/** The shell words of an argv, quoted where needed, for messages and approvals. */
export function argvText(argv: string[]): string {
  return argv.map((a) => /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)
    .join(" ");
}

/** The one guard of a termbridge process. */
export class Guard {
  readonly mode: Mode;
  readonly policy: CommandPolicy | null;
  readonly audit: AuditSink;
  #approver: Approver;
  readonly #protectedFiles: string[];
  readonly #protectedLogs: string[];
  readonly #trustsDirectory: (dir: string) => boolean;

  constructor(options: GuardOptions) {
    this.mode = options.mode;
    this.policy = options.policy;
    this.audit = options.audit;
    this.#approver = options.approver;
    this.#protectedFiles = options.protectedFiles ?? [];
    this.#protectedLogs = options.protectedLogs ?? [];
    this.#trustsDirectory = options.trustsDirectory ?? (() => false);
  }

  /** A guard with no policy and no audit log: what the core uses when nobody configured one. */
  static open(): Guard {
    return new Guard({
      mode: "cli",
      policy: null,
      approver: refuseAsks,
      audit: { enabled: false, record() {} },
    });
  }

  /** The actor of this mode with the given ids, and the server's client acting now (if any). */
  actor(ids: Omit<Actor, "mode"> = {}): Actor {
    const client = currentClient();
    return client === undefined ? { mode: this.mode, ...ids } : { mode: this.mode, client, ...ids };
  }

  /** Replaces the approver (a front end that can ask sets its own once it is ready). */
  setApprover(approver: Approver): void {
    this.#approver = approver;
  }

  /**
   * Checks a command before it runs: records the request and verdict, asks
   * when the verdict is "ask", records the answer.
   * @returns the verdict (null when there is no policy)
   * @throws {PolicyDeniedError} naming the rule and the command when it must not run
   */
  async checkCommand(
    check: CommandCheck,
    actor: Actor,
    signal?: AbortSignal,
  ): Promise<CommandVerdict | null> {
    const subject = check.line ?? argvText(check.argv ?? []);
    const reader = notShellReader(check);
    if (reader !== null) {
      // Another program's language (Python, SQL, vim keys): not a shell line; recorded as sent.
      this.audit.record(actor, {
        event: "command",
        origin: check.origin,
        line: subject,
        cwd: check.cwd,
        decision: "allow",
        rule: null,
        reason: `sent to ${
          JSON.stringify(reader)
        }, which is not a shell: audited, not checked as a shell line`,
      });
      return null;
    }
    const context: PolicyContext = {
      cwd: check.cwd,
      env: check.env,
      ...(check.aliases ? { aliases: check.aliases } : {}),
      ...(check.globalAliases ? { globalAliases: check.globalAliases } : {}),
      ...(check.suffixAliases ? { suffixAliases: check.suffixAliases } : {}),
      ...(check.shellState ? { shellState: check.shellState } : {}),
    };
    const found = this.policy === null
      ? null
      : check.judged !== undefined
      ? check.judged
      : check.line !== undefined
      ? await this.policy.checkLine(check.line, context)
      : await this.policy.checkArgv(check.argv ?? [], context);
    const program = check.origin === "open" && check.linesChecked === true && found !== null
      ? asSessionProgram(found)
      : found;
    const verdict = this.policy === null || program === null
      ? program
      : stricter(program, await this.#checkEnvCode(check, context));
    const allowed = verdict === null || verdict.decision === "allow";
    if (this.audit.enabled && !(check.recordedByShell === true && allowed)) {
      this.audit.record(actor, {
        event: "command",
        origin: check.origin,
        ...(check.inShell ? { shell: true } : {}),
        ...(check.line !== undefined ? { line: check.line } : { argv: check.argv }),
        cwd: check.cwd,
        ...(check.envNames?.length ? { env: check.envNames } : {}),
        decision: verdict?.decision ?? "allow",
        rule: verdict?.rule ?? null,
        reason: verdict?.reason ?? "no policy",
      });
    }
    if (verdict === null || verdict.decision === "allow") return verdict;
    const rule = ruleWords(verdict.rule, verdict.decision);
    if (verdict.decision === "deny") {
      throw new PolicyDeniedError(
        `Denied by policy: ${rule} refuses ${JSON.stringify(subject)}: ${verdict.reason}`,
        verdict.rule,
        subject,
      );
    }
    const approval = sameRule(check.preApproved, verdict.rule)
      ? { approved: true, by: "approved when it was sent" }
      : await (check.approver ?? this.#approver)(
        { kind: "command", subject, verdict, actor },
        signal,
      );
    this.audit.record(actor, {
      event: "approval",
      subject,
      approved: approval.approved,
      by: approval.by,
    });
    if (!approval.approved) {
      throw new PolicyDeniedError(
        `Denied by policy: ${rule} asks before ${
          JSON.stringify(subject)
        } (${verdict.reason}) and it was not approved (${approval.by})`,
        verdict.rule,
        subject,
      );
    }
    return verdict;
  }

  /**
   * The policy's verdict on a command that already ran (an agent reports
   * one it ran on its own): nothing is asked, recorded or refused.
   * @returns the verdict (null when there is no policy)
   */
  async judgeCommand(
    check: Pick<CommandCheck, "line" | "argv" | "cwd" | "env">,
  ): Promise<CommandVerdict | null> {
    if (this.policy === null) return null;
    const context: PolicyContext = { cwd: check.cwd, env: check.env };
    return check.line !== undefined
      ? await this.policy.checkLine(check.line, context)
      : await this.policy.checkArgv(check.argv ?? [], context);
  }

  /**
   * The check of a line typed into a shell session, for the shell's own hook:
   * never throws for a refusal, says why instead.
   */
  async checkTypedLine(
    line: string,
    context: {
      cwd: string;
      env: Record<string, string>;
      aliases?: Record<string, string>;
      globalAliases?: Record<string, string>;
      suffixAliases?: Record<string, string>;
      shellState?: ShellState;
      preApproved?: RuleMatch;
      /** Who sent the line: typed (default), or a session's exec that typed it. */
      origin?: CommandOrigin;
      /** Exec's verdict on this very line and context (see CommandCheck.judged). */
      judged?: CommandVerdict;
    },
    actor: Actor,
  ): Promise<TypedLineAnswer> {
    try {
      await this.checkCommand({ origin: "typed", line, ...context, inShell: true }, actor);
      return { allowed: true, message: "" };
    } catch (error) {
      if (error instanceof PolicyDeniedError) return { allowed: false, message: error.message };
      throw error;
    }
  }

  /**
   * Checks a file read against the `read` globs.
   * @returns the path to read: normalised, symlinks resolved
   * @throws {PolicyDeniedError} when no glob allows it (recorded)
   */
  checkRead(path: string, context: PolicyContext, actor: Actor): string {
    return this.#checkPath("read", path, context, actor);
  }

  /**
   * Checks a file write of `bytes` bytes against the `write` globs and, when
   * a sandbox is on, its writable directories (`writeRoots`, resolved paths);
   * records it before the write happens.
   * @returns the path to write: normalised, symlinks resolved
   * @throws {PolicyDeniedError} when no glob allows it (recorded)
   */
  checkWrite(
    path: string,
    bytes: number | null,
    context: PolicyContext & { writeRoots?: string[] | null },
    actor: Actor,
  ): string {
    return this.#checkPath("write", path, context, actor, bytes ?? undefined);
  }

  /**
   * Checks a write to a file the user chose in the configuration (mcp's
   * recordings directory), not a request: the `write` globs and the sandbox
   * do not apply, termbridge's own files (by name or identity) and files
   * with other names are still refused (recorded).
   * @returns the path to write: normalised, symlinks resolved
   * @throws {PolicyDeniedError} when it is one of termbridge's own files
   */
  checkConfiguredWrite(path: string, context: PolicyContext, actor: Actor): string {
    this.#refuseProtected(path, context, actor);
    return realPath(absolute(context.cwd, path));
  }

  /**
   * Checks the file a write opened (`path`, as {@linkcode checkWrite}
   * returned it; `opened`, its `fstat`) is none of termbridge's own files
   * by identity and has no other name (hard link) the globs did not check.
   * @throws {PolicyDeniedError} when it must not be written (recorded)
   */
  checkOpenedWrite(path: string, opened: FileIdentity, actor: Actor): void {
    const refusal = this.#identityRefusal(opened);
    if (refusal !== null) this.#refuseWrite(path, path, refusal, actor);
  }

  /** Records a file read once its size is known (before the reply). */
  recordRead(path: string, bytes: number, actor: Actor): void {
    this.audit.record(actor, { event: "read", path, bytes, decision: "allow", rule: null });
  }

  /** Records anything else that happened (start, exit, kill, release, limit). */
  record(actor: Actor, event: AuditEvent): void {
    this.audit.record(actor, event);
  }

  /**
   * Whether writing `path` would be allowed by the `write` globs and the
   * sandbox's writable directories, as {@linkcode checkWrite} decides it
   * (termbridge's own files aside): nothing is recorded or refused.
   */
  judgeWrite(
    path: string,
    context: PolicyContext & { writeRoots?: string[] | null },
  ): PathVerdict {
    return this.#pathVerdict("write", path, context);
  }

  #pathVerdict(
    kind: "read" | "write",
    path: string,
    context: PolicyContext & { writeRoots?: string[] | null },
  ): PathVerdict {
    let verdict: PathVerdict = this.policy === null
      ? { decision: "allow", path, rule: null, reason: "no policy" }
      : kind === "read"
      ? this.policy.checkRead(path, context)
      : this.policy.checkWrite(path, context);
    const roots = kind === "write" ? context.writeRoots ?? null : null;
    // A `..` left in the path follows a directory that is not there (the open fails): judged lexically.
    const where = verdict.path.split("/").includes("..") ? resolve(verdict.path) : verdict.path;
    if (
      verdict.decision === "allow" && roots !== null &&
      !roots.some((root) => where === root || where.startsWith(`${root}/`))
    ) {
      verdict = {
        ...verdict,
        decision: "deny",
        rule: null,
        reason: `the sandbox makes only ${
          roots.map((r) => `"${r}"`).join(", ") || "nothing"
        } writable`,
      };
    }
    return verdict;
  }

  #checkPath(
    kind: "read" | "write",
    path: string,
    context: PolicyContext & { writeRoots?: string[] | null },
    actor: Actor,
    bytes?: number,
  ): string {
    if (kind === "write") this.#refuseProtected(path, context, actor, bytes);
    const verdict = this.#pathVerdict(kind, path, context);
    if (verdict.decision === "deny" || kind === "write") {
      this.audit.record(actor, {
        event: kind,
        path: verdict.path,
        bytes: verdict.decision === "deny" ? null : bytes ?? null,
        decision: verdict.decision,
        rule: verdict.rule,
      });
    }
    if (verdict.decision === "deny") {
      throw new PolicyDeniedError(
        `Denied by policy: cannot ${kind} ${JSON.stringify(path)}: ${verdict.reason}`,
        null,
        path,
      );
    }
    return verdict.path;
  }

  /**
   * Refuses (and records) a write to one of termbridge's own files, through
   * any link or `..`, by name or by identity, and to a file with other names.
   */
  #refuseProtected(path: string, context: PolicyContext, actor: Actor, bytes?: number): void {
    const real = realPath(absolute(context.cwd, path));
    const refusal = this.#pathRefusal(real) ?? this.#identityRefusal(statOrNull(real));
    if (refusal !== null) this.#refuseWrite(path, real, refusal, actor, bytes);
  }

  #refuseWrite(path: string, real: string, reason: string, actor: Actor, bytes?: number): never {
    this.audit.record(actor, {
      event: "write",
      path: real,
      bytes: bytes ?? null,
      decision: "deny",
      rule: null,
    });
    throw new PolicyDeniedError(
      `Denied by policy: cannot write ${JSON.stringify(path)}: ${reason}`,
      null,
      path,
    );
  }

  /** Why `real` (a resolved path) is one of termbridge's own files by its name, else null. */
  #pathRefusal(real: string): string | null {
    const own = this.#protectedFiles.find((file) => realFile(file) === real) ??
      this.#protectedLogs.find((log) => isLogOrRotation(real, realFile(log)));
    if (own !== undefined) {
      return `it is termbridge's own configuration or audit log (${
        JSON.stringify(own)
      }); edit it yourself`;
    }
    if (basename(real) === REPOSITORY_CONFIG && this.#trustsDirectory(dirname(real))) {
      return `it would be the configuration of a trusted directory (${
        JSON.stringify(dirname(real))
      }), which a termbridge started there takes whole; edit it yourself`;
    }
    return null;
  }

  /**
   * Why the file `found` (a stat, or null when there is none) must not be
   * written: it is one of termbridge's own files under another name (a hard
   * link, a bind mount), or it has names the globs did not check; else null.
   */
  #identityRefusal(found: FileIdentity | null): string | null {
    if (found === null || !found.isFile()) return null;
    for (const file of this.#ownFiles()) {
      const own = statOrNull(file);
      if (own !== null && own.dev === found.dev && own.ino === found.ino) {
        return `it is another name (a hard link or a bind mount) of termbridge's own configuration ` +
          `or audit log (${JSON.stringify(file)}); edit that yourself`;
      }
    }
    if (found.nlink > 1) {
      return `the file has ${found.nlink} names (hard links), and writing it would change it under ` +
        `the others too, which no write glob checked; remove the link (or copy the file) first`;
    }
    return null;
  }

  /** termbridge's own files as they are now: the protected files, the logs and their rotations. */
  #ownFiles(): Set<string> {
    const files = new Set(this.#protectedFiles);
    for (const log of this.#protectedLogs) {
      files.add(log);
      try {
        for (const name of readdirSync(dirname(log))) {
          const file = join(dirname(log), name);
          if (isLogOrRotation(file, log)) files.add(file);
        }
      } catch {
        // The log's directory is not there (yet): no rotations either.
      }
    }
    return files;
  }

  /**
   * Variables the request sets whose values a shell runs (PROMPT_COMMAND, PS1
   * with substitutions, BASH_ENV, ENV, SHELLOPTS...): checked as the line `export NAME=VALUE`
   * would be, so the engine's rules for them apply to `env` parameters too.
   */
  async #checkEnvCode(check: CommandCheck, context: PolicyContext): Promise<CommandVerdict | null> {
    if (this.policy === null) return null;
    const names = (check.envNames ?? []).filter(isCodeVariable);
    const line = names.map((name) =>
      `export ${name}='${(check.env[name] ?? "").replaceAll("'", `'\\''`)}'`
    ).join("; ");
    const code = names.length === 0 ? null : await this.policy.checkLine(line, context);
    const home = await this.#checkGivenHome(check, context);
    return code === null ? home : stricter(code, home, "");
  }

  /**
   * A HOME the request sets (other than termbridge's own): the shells the
   * command starts that read start-up files (`bash -ic`, `zsh -c`, a
   * session's bash or zsh) read the files of that directory, which no check
   * sees. The command is judged as if an earlier line had moved HOME; a
   * session's shell as `SHELL -ic true`, since it always reads them.
   */
  async #checkGivenHome(
    check: CommandCheck,
    context: PolicyContext,
  ): Promise<CommandVerdict | null> {
    const home = check.env.HOME;
    const own = runtime.env().HOME;
    if (
      this.policy === null || !(check.envNames ?? []).includes("HOME") || home === undefined ||
      home === own ||
      (home.startsWith("/") && own !== undefined && realPath(home) === realPath(own))
    ) {
      return null;
    }
    const moved: PolicyContext = {
      ...context,
      shellState: {
        keyword: context.shellState?.keyword ?? false,
        homeMoved: true,
        homeMovedBy: `the request sets HOME to ${JSON.stringify(home)}`,
      },
    };
    const argv = check.argv ?? [];
    if (check.origin === "open" && check.linesChecked === true && argv.length > 0) {
      return await this.policy.checkArgv([argv[0], "-ic", "true"], moved);
    }
    return check.line !== undefined
      ? await this.policy.checkLine(check.line, moved)
      : await this.policy.checkArgv(argv, moved);
  }
}

/** Whether `path` is the log `log` or one of its rotated files (`LOG.1`, `LOG.2`, ...). */
function isLogOrRotation(path: string, log: string): boolean {
  return path === log || (path.startsWith(`${log}.`) && /^\d+$/.test(path.slice(log.length + 1)));
}

/** `path` resolved: at once when it exists, else as {@linkcode realPath} would open it. */
function realFile(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return realPath(path); // Not there (yet): its existing parent, resolved.
  }
}

/** The file at `path` (links followed), or null when there is none. */
function statOrNull(path: string): FileIdentity | null {
  try {
    return statSync(path);
  } catch {
    return null; // Not there (yet), or not reachable: nothing to compare.
  }
}

/** The program a line goes to when it is sent to a program that is not a shell, else null. */
function notShellReader(check: CommandCheck): string | null {
  const readers = check.readBy ?? [];
  if (check.line === undefined || readers.length === 0) return null;
  return readers.some(readsShellLines) ? null : readers[0];
}

/** The stricter of two verdicts (the first when they are equal or the second is absent). */
function stricter(
  first: CommandVerdict,
  second: CommandVerdict | null,
  label = "its environment: ",
): CommandVerdict {
  if (second === null || RANK[second.decision] <= RANK[first.decision]) return first;
  return { ...second, reason: `${label}${second.reason}` };
}
