/**
 * Shell integration: start-up files that make bash and zsh report, through
 * OSC 133 and OSC 7, when a prompt is shown, when a command starts, how it
 * ended, and the working directory. termbridge reads these marks from the
 * output (they never reach the screen or the text log).
 * @module
 */

import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { BASH_LINE_CHECK, ZSH_LINE_CHECK } from "./line_check_hooks.ts";

/**
 * The bash hooks, written for `set -euo pipefail` in the session (every
 * expansion has a default, nothing in the hook can fail). On bash 5.1+ the
 * hook is element 9 of the PROMPT_COMMAND array, so a user's
 * `PROMPT_COMMAND=...` (which sets element 0) leaves it in place, and bash
 * gives every element the command's `$?`. The end-of-prompt mark (133;B) is
 * put back at the end of PS1 before every prompt, so a program that changes
 * PS1 keeps it. `bash` typed in the session starts a nested shell with the
 * same hooks. (Plain strings, not templates: `${...}` is shell.)
 */
const bashRc = (rcFile: string) =>
  [
    "# termbridge shell integration for bash (generated; safe to delete)",
    "# bash itself has read the system-wide bashrc; the user's own comes next",
    "# (the one given with --rcfile, if any; none with --norc).",
    'if [ -z "${TERMBRIDGE_NORC-}" ] && [ -r "${TERMBRIDGE_USER_RC:-$HOME/.bashrc}" ]; then',
    '  . "${TERMBRIDGE_USER_RC:-$HOME/.bashrc}"',
    "fi",
    "__termbridge_prompt() {",
    "  # The status as $1, not a local (under set -k, `local s=$?` would be an environment).",
    '  builtin set -- "$?"',
    "  __tb_given=",
    "  # The typed-line check lives in readline: without it, no line may be read (see the hooks).",
    "  [[ -o emacs || -o vi || -z ${TERMBRIDGE_LINE_CHECK-} ]] || __termbridge_no_editor",
    '  printf \'\\033]133;D;%s\\007\\033]7;file://%s%s\\007\\033]133;A\\007\' "$1" "${HOSTNAME-}" "$PWD"',
    "  case \"${PS1-}\" in *'133;B'*) ;; *) PS1=\"${PS1-}\"'\\[\\033]133;B\\007\\]' ;; esac",
    '  return "$1"',
    "}",
    'if [ "${BASH_VERSINFO[0]}${BASH_VERSINFO[1]}" -ge 51 ]; then',
    "  PROMPT_COMMAND[9]=__termbridge_prompt",
    "else",
    '  case "${PROMPT_COMMAND-}" in',
    "    *__termbridge_prompt*) ;;",
    '    *) PROMPT_COMMAND="__termbridge_prompt${PROMPT_COMMAND:+; $PROMPT_COMMAND}" ;;',
    "  esac",
    "fi",
    'case "${PS0-}" in',
    "  *'133;C'*) ;;",
    "  *) PS0=\"${PS0-}\"$'\\033]133;C\\007' ;;",
    "esac",
    `alias bash='bash --rcfile "${rcFile}"'`,
    ...BASH_LINE_CHECK,
    "",
  ].join("\n");

/** The zsh hooks: precmd and preexec, after the user's own .zshrc. */
const ZSH_RC = [
  "# termbridge shell integration for zsh (generated; safe to delete)",
  'ZDOTDIR="${TERMBRIDGE_USER_ZDOTDIR:-$HOME}"',
  '[ -z "${TERMBRIDGE_NORC-}" ] && [ -r "$ZDOTDIR/.zshrc" ] && . "$ZDOTDIR/.zshrc"',
  "__termbridge_precmd() {",
  "  local s=$?",
  "  # zsh's own options: none a line set (no_unset, with PWD unset) may stop the marks.",
  "  builtin emulate -L zsh",
  '  printf \'\\033]133;D;%s\\007\\033]7;file://%s%s\\007\\033]133;A\\007\' "$s" "${HOST-}" "${PWD-}"',
  "  case \"${PS1-}\" in *'133;B'*) ;; *) PS1=\"${PS1-}\"$'%{\\e]133;B\\a%}' ;; esac",
  "  return $s",
  "}",
  "__termbridge_preexec() { printf '\\033]133;C\\007'; }",
  "# zsh marks a last line without a newline with % and spaces before the prompt, which",
  "# would end up in the output of every command: behave as bash does instead.",
  "unsetopt prompt_sp prompt_cr",
  "autoload -Uz add-zsh-hook",
  "add-zsh-hook precmd __termbridge_precmd",
  "add-zsh-hook preexec __termbridge_preexec",
  ...ZSH_LINE_CHECK,
  "",
].join("\n");

/**
 * The fish hooks, run with `--init-command` after the user's config.fish:
 * its fish_preexec, fish_postexec (which has the command's $status) and
 * fish_prompt events. The end-of-prompt mark is printed by a wrapper of the
 * user's fish_prompt function, put back whenever the function is replaced.
 * fish has no typed-line check: a policy judges the lines exec sends only.
 */
const FISH_RC = [
  "# termbridge shell integration for fish (generated; safe to delete)",
  "function __termbridge_preexec --on-event fish_preexec",
  "    printf '\\e]133;C\\a'",
  "end",
  "function __termbridge_postexec --on-event fish_postexec",
  "    printf '\\e]133;D;%s\\a' $status",
  "end",
  "function __termbridge_wrap_prompt",
  "    functions -q fish_prompt; or return 0",
  "    string match -q '*__termbridge_user_prompt*' -- (functions fish_prompt); and return 0",
  "    functions -e __termbridge_user_prompt",
  "    functions -c fish_prompt __termbridge_user_prompt",
  "    function fish_prompt",
  "        __termbridge_user_prompt",
  "        printf '\\e]133;B\\a'",
  "    end",
  "end",
  "function __termbridge_prompt --on-event fish_prompt",
  "    __termbridge_wrap_prompt",
  "    printf '\\e]7;file://%s%s\\a\\e]133;A\\a' $hostname \"$PWD\"",
  "end",
  "",
].join("\n");

/** How to start a shell with integration. */
export interface IntegratedShell {
  argv: string[];
  /** Variables to add to the shell's environment. */
  env: Record<string, string>;
  /** The directory of termbridge's start-up files (a sandbox must show it). */
  directory: string;
  /**
   * With typed-line checks: the session's private directory where the shell
   * writes the lines it asks about and reads the answers; the caller removes
   * it. Its parent is what a sandbox must let the shell write.
   */
  lineDir?: string;
}

/** The shells termbridge integrates with (prompt, exit code and cwd marks). */
export function supportsIntegration(program: string): boolean {
  return ["bash", "zsh", "fish"].includes(basename(program));
}

/** The shells whose typed lines termbridge's hooks check (before they run). */
export function supportsLineChecks(program: string): boolean {
  return ["bash", "zsh"].includes(basename(program));
}

/**
 * The directory of the start-up files: one per user, shared by every session
 * and kept (nested shells read the bash file for as long as they start, and a
 * session killed with its host must not leave a directory behind).
 */
function startupDirectory(): string {
  const dir = join(tmpdir(), `termbridge-${process.getuid?.() ?? "user"}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const info = lstatSync(dir);
    if (info.isDirectory() && info.uid === process.getuid?.()) return dir;
  } catch {
    // Not usable (read-only, not ours): a private directory below will do.
  }
  return mkdtempSync(join(tmpdir(), "termbridge-shell-"));
}

/** Writes `content` to `path` unless it is there already (atomically: sessions start concurrently). */
function writeOnce(path: string, content: string): void {
  try {
    if (readFileSync(path, "utf8") === content) return;
  } catch {
    // Not written yet.
  }
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(temporary, content, { mode: 0o600 });
  renameSync(temporary, path);
}

/**
 * Prepares `shell` (a path or name of bash or zsh) to start with termbridge's
 * hooks after the user's own start-up files; undefined for other programs.
 */
export function integrateShell(
  shell: string,
  args: string[] = [],
  options: { checkLines?: boolean } = {},
): IntegratedShell | undefined {
  const name = basename(shell);
  if (!supportsIntegration(name)) return undefined;
  const dir = startupDirectory();
  const integrated = integrate(shell, name, args, dir);
  if (options.checkLines && supportsLineChecks(name)) {
    // The hooks are in every start-up file; only these variables switch them on.
    const root = join(dir, "lines");
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const lineDir = mkdtempSync(join(root, "session-"));
    integrated.env.TERMBRIDGE_LINE_CHECK = "1";
    integrated.env.TERMBRIDGE_LINE_DIR = lineDir;
    integrated.lineDir = lineDir;
  }
  return integrated;
}

/**
 * A short hash of the start-up files' text, in their names: termbridge
 * versions (or checkouts) with different hooks never overwrite each other's.
 */
const VERSION = (() => {
  let hash = 0x811c9dc5;
  for (const char of bashRc("") + ZSH_RC + FISH_RC) {
    hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
})();

function integrate(shell: string, name: string, args: string[], dir: string): IntegratedShell {
  if (name === "bash") {
    const rc = join(dir, `bashrc-${VERSION}`);
    writeOnce(rc, bashRc(rc));
    const { long, rest, env } = splitBashOptions(args);
    // The user's rc is the one the arguments name, never one a request's env names.
    env.TERMBRIDGE_USER_RC ??= "";
    return { argv: [shell, ...long, "--rcfile", rc, "-i", ...rest], env, directory: dir };
  }
  if (name === "fish") {
    const rc = join(dir, `fish-${VERSION}.fish`);
    writeOnce(rc, FISH_RC);
    // fish quotes as sh does for a path without quotes in it (termbridge's directories).
    return {
      argv: [shell, "-i", ...args, "--init-command", `source '${rc.replaceAll("'", "\\'")}'`],
      env: {},
      directory: dir,
    };
  }
  const zdotdir = join(dir, `zsh-${VERSION}`);
  mkdirSync(zdotdir, { recursive: true, mode: 0o700 });
  writeOnce(join(zdotdir, ".zshrc"), ZSH_RC);
  // -f (no rc files) would skip termbridge's .zshrc too: it skips only the user's.
  const noRcs = (arg: string) => arg === "-f" || arg === "--no-rcs" || arg === "--norcs";
  // The user's .zshrc is in HOME, never in a directory a request's env names.
  const env: Record<string, string> = { ZDOTDIR: zdotdir, TERMBRIDGE_USER_ZDOTDIR: "" };
  if (args.some(noRcs)) env.TERMBRIDGE_NORC = "1";
  return { argv: [shell, "-i", ...args.filter((arg) => !noRcs(arg))], env, directory: dir };
}

/** A parsed shell-integration mark. */
export type ShellMark =
  | { kind: "prompt" }
  | { kind: "prompt-end" }
  | { kind: "command-start" }
  | { kind: "command-end"; exitCode: number | null }
  | { kind: "cwd"; path: string };

/** Reads an OSC string as a shell-integration mark, or undefined when it is something else. */
export function parseShellMark(osc: string): ShellMark | undefined {
  if (osc === "133;A") return { kind: "prompt" };
  if (osc === "133;B") return { kind: "prompt-end" };
  if (osc === "133;C") return { kind: "command-start" };
  if (osc.startsWith("133;D")) {
    const code = Number(osc.slice(6));
    return {
      kind: "command-end",
      exitCode: osc.length > 6 && Number.isInteger(code) ? code : null,
    };
  }
  if (osc.startsWith("7;file://")) {
    const rest = osc.slice("7;file://".length);
    const slash = rest.indexOf("/");
    if (slash === -1) return undefined;
    // termbridge's hooks send the path as it is; other emitters percent-encode it.
    return { kind: "cwd", path: rest.slice(slash) };
  }
  return undefined;
}

/**
 * Sorts the user's bash arguments around termbridge's `--rcfile FILE -i`:
 * bash takes long options only before the one-letter ones, so they go first;
 * `--norc` and `--rcfile`/`--init-file` would replace termbridge's start-up
 * file, so they become variables that file reads instead.
 */
function splitBashOptions(args: string[]): {
  long: string[];
  rest: string[];
  env: Record<string, string>;
} {
  const long: string[] = [];
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < args.length && args[i].startsWith("--") && args[i] !== "--"; i++) {
    const file = args[i] === "--rcfile" || args[i] === "--init-file" ? args[i + 1] : undefined;
    if (args[i] === "--norc") env.TERMBRIDGE_NORC = "1";
    else if (file !== undefined) env.TERMBRIDGE_USER_RC = args[++i];
    else long.push(args[i]); // bash reports a --rcfile without its file itself.
  }
  return { long, rest: args.slice(i), env };
}
