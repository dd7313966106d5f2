/**
 * The command and file policy's contract: what the rules are, what a check
 * returns. Implemented by `lib/policy/mod.ts` (`createPolicy`); consulted only
 * through the safety guard (`lib/safety/`), never by a front end directly.
 * @module
 */

/** What a command or path gets: run it, ask first, or refuse. */
export type Decision = "allow" | "ask" | "deny";

/** The `policy` section of `termbridge.jsonc`, as the issue names its keys. */
export interface PolicyRules {
  /** What a command that no rule names gets (the shipped default policy: "allow"). */
  default?: Decision;
  /** Command prefixes written as shell words; a word may hold `*`/`?` globs. */
  allow?: string[];
  ask?: string[];
  deny?: string[];
  /** Globs of paths the fs methods may read; `~` and `${cwd}` expand. */
  read?: string[];
  /** Globs of paths the fs methods may write. */
  write?: string[];
  /**
   * Globs a path must match as well as `read` (`write`): what was in force
   * before a repository's config narrowed the list. A narrower glob can become
   * wider when a directory in it is later replaced by a link; the bound keeps
   * it within what the user allowed.
   */
  readWithin?: string[];
  writeWithin?: string[];
}

/** One simple command found in a line, after wrappers were looked through. */
export interface SimpleCommand {
  /** Its words as the shell would pass them (quotes removed). */
  words: string[];
  /** The real file the program word resolves to through PATH and symlinks, when known. */
  resolved?: string;
  /** Why this command was found, e.g. `["sh -c", "$(...)"]`; empty at top level. */
  via: string[];
  /** This command's own verdict and the rule that decided it (the line's is the strictest). */
  decision?: Decision;
  rule?: RuleMatch;
}

/**
 * The rule that decided a verdict. `unknown`: no rule could decide, because what
 * the line runs is only known when it runs (`eval`, `$CMD`, unparseable); such
 * a line is asked about whenever the policy has any ask or deny rule.
 */
export interface RuleMatch {
  list: "deny" | "ask" | "allow" | "default" | "unknown";
  /** The rule as written in the configuration (empty for `default` and `unknown`). */
  pattern: string;
}

/** The verdict on a command line or argv: the strictest of all its simple commands. */
export interface CommandVerdict {
  decision: Decision;
  rule: RuleMatch;
  /** Words for people: which command matched which rule, or why it must be asked. */
  reason: string;
  commands: SimpleCommand[];
}

/** The verdict on a file path for reading or writing. */
export interface PathVerdict {
  decision: "allow" | "deny";
  /** The path normalised, with symlinks resolved as far as they exist. */
  path: string;
  /** The glob that allowed it, or null when none did. */
  rule: string | null;
  reason: string;
}

/** Where a check happens: globs and PATH lookups depend on it. */
export interface PolicyContext {
  cwd: string;
  env: Record<string, string>;
  /** The shell's aliases (lines typed into a session): an aliased command word is checked as what it expands to. */
  aliases?: Record<string, string>;
  /** zsh's global aliases: a word anywhere in the line that is one is checked as its value. */
  globalAliases?: Record<string, string>;
  /** zsh's suffix aliases: a command `f.EXT` is checked as `PROGRAM f.EXT`. */
  suffixAliases?: Record<string, string>;
  /** What earlier lines left changed in the shell the line runs in (a session's typed lines). */
  shellState?: ShellState;
}

/** A session's shell state that changes how its next line runs. */
export interface ShellState {
  /** bash's keyword option is on (`set -k`): NAME=VALUE words anywhere in a command are assignments. */
  keyword: boolean;
  /** HOME is not the session's: the start-up files a shell reads are not the user's. */
  homeMoved: boolean;
  /** What moved HOME, for the reason (default: an earlier line). */
  homeMovedBy?: string;
  /** The shell (`zsh`, `/usr/bin/bash`): which names are its builtins, not files on PATH. Bash when not given. */
  shell?: string;
  /** zsh's brace_ccl is on (a start-up file or an earlier line set it): `{t}ouch` is `touch`. */
  braceCcl?: boolean;
  /** interactive_comments is off: what follows a `#` is run, not a comment. */
  commentsOff?: boolean;
}

/** A loaded policy. Command checks are async: the shell parser loads lazily. */
export interface CommandPolicy {
  /** Checks a command line as a shell would run it. */
  checkLine(line: string, context: PolicyContext): Promise<CommandVerdict>;
  /** Checks a program and its arguments as given (a shell with `-c` has its string parsed). */
  checkArgv(argv: string[], context: PolicyContext): Promise<CommandVerdict>;
  checkRead(path: string, context: PolicyContext): PathVerdict;
  checkWrite(path: string, context: PolicyContext): PathVerdict;
}
