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

/**
 * The typed-line check, shared by both shells (`$1` is the line, as the shell
 * will run it). It asks termbridge with an OSC 6973 request on the terminal,
 * which carries the line with the cwd, PATH and aliases (escaped, so that
 * nothing in them ends the request early), a nonce and, last, a one-time
 * token, and waits for the answer on the FIFO in the session's private
 * directory. The terminal's output is the one channel no program in the
 * session can read: termbridge keeps these requests out of the raw log, so
 * out of attached clients and recordings. The FIFO is open only while the
 * shell asks, but anything in the session can open it by its path: an answer
 * that lets the line run must carry the token, which only an allowing
 * termbridge ever writes there. No answer (termbridge gone, or no channel)
 * refuses the line.
 * Answers by its exit status (see `__termbridge_ask`), a refusal's reason in
 * `__tb_why`.
 */
/** The most a request may carry, in characters (within the terminal's `OSC_MARK_CAP` in UTF-16). */
const REQUEST_LIMIT = 120_000;

const LINE_CHECK_COMMON = [
  '__tb_dir="${TERMBRIDGE_LINE_DIR:-/tmp}"',
  "__tb_pending=",
  "# One FIFO per session, shared with nested shells (only one of them asks at a time).",
  '__tb_fifo="$__tb_dir/reply"',
  '[ -p "$__tb_fifo" ] || command mkfifo -m 600 "$__tb_fifo" 2>/dev/null',
  "# Adds a field to the request: \\ ; CR LF BEL ESC CAN SUB and ST (U+009C) escaped.",
  "__tb_field() {",
  '  local f="$1"',
  '  case "$f" in',
  "    *[\\\\\\;$'\\n\\r\\a\\e\\x18\\x1a']* | *$'\\xc2\\x9c'*)",
  '      f="${f//\\\\/\\\\\\\\}" f="${f//;/\\\\:}" f="${f//$\'\\n\'/\\\\n}" f="${f//$\'\\r\'/\\\\r}"',
  "      f=\"${f//$'\\a'/\\\\a}\" f=\"${f//$'\\e'/\\\\e}\" f=\"${f//$'\\x18'/\\\\x}\" f=\"${f//$'\\x1a'/\\\\z}\"",
  "      f=\"${f//$'\\xc2\\x9c'/\\\\s}\" ;;",
  "  esac",
  '  __tb_request+=";$f"',
  "}",
  "# Returns 40 to run the line, 41 when the command goes on on the next line; anything",
  "# else refuses it, with the reason in __tb_why. Nothing it stores decides: a line that",
  "# made one of its variables read-only only makes it fail, which refuses.",
  "__termbridge_ask() {",
  '  __tb_why="termbridge cannot check typed lines in this shell"',
  '  local __tb_nonce="" __tb_token="" __tb_rand="" __tb_reply="" __tb_request="" __tb_fd="" || return 2',
  '  [ -p "$__tb_fifo" ] || return 2',
  "  # Both from a source no program in the session can predict or replace (see __tb_random).",
  "  __tb_random || return 2",
  '  __tb_nonce="${__tb_rand:0:16}" __tb_token="${__tb_rand:16}"',
  '  [ "${#__tb_nonce}" -eq 16 ] && [ "${#__tb_token}" -eq 32 ] || return 2',
  "  # $1: the earlier lines of a command continued over several (termbridge checks that they",
  '  # are the ones it answered "more" to), $2: the line.',
  '  __tb_field "${BASH:-zsh}"; __tb_field "$PWD"; __tb_field "${PATH-}"; __tb_field "$1"; __tb_field "$2"',
  "  if ! __tb_aliases; then",
  "    __tb_why=\"termbridge cannot see the shell's aliases: \\$aliases is not zsh's own\"",
  "    return 2",
  "  fi",
  `  if [ "\${#__tb_request}" -gt ${REQUEST_LIMIT} ]; then`,
  '    __tb_why="the line and the aliases are too long for termbridge to check (over 120000 characters)"',
  "    return 2",
  "  fi",
  "  # Open only while asking: the programs the shell runs never hold it.",
  '  exec {__tb_fd}<>"$__tb_fifo" || return 2',
  "  # To the terminal itself: a line may send the shell's output elsewhere, never that.",
  '  if ! builtin printf \'\\033]6973;check;%s%s;%s\\007\' "$__tb_nonce" "$__tb_request" "$__tb_token" 2>/dev/null >/dev/tty; then',
  "    exec {__tb_fd}>&-",
  "    return 2",
  "  fi",
  '  while IFS= builtin read -r -t 600 -u "$__tb_fd" __tb_reply; do',
  '    case "$__tb_reply" in "$__tb_nonce "*) break ;; esac',
  '    __tb_reply=""',
  "  done",
  "  exec {__tb_fd}>&-",
  '  case "$__tb_reply" in',
  '    "$__tb_nonce allow $__tb_token") return 40 ;;',
  '    "$__tb_nonce more $__tb_token") return 41 ;;',
  '    "$__tb_nonce deny "*) __tb_why="${__tb_reply#"$__tb_nonce deny "}" ;;',
  '    *) __tb_why="termbridge did not answer the typed-line check" ;;',
  "  esac",
  "  return 2",
  "}",
  "__termbridge_refused() {",
  "  builtin printf 'termbridge: %s\\n' \"${__tb_refusal-refused}\" >&2",
  "  # zsh: the line as typed becomes the latest history entry (Up recalls it).",
  '  [ -z "${ZSH_VERSION-}" ] || builtin print -s -r -- "$__tb_original"',
  "  return 126",
  "}",
];

/**
 * bash: Enter (and Ctrl+J) in every keymap runs a macro of two private keys,
 * the check (`bind -x`, which sees and may replace READLINE_LINE) and then
 * accept-line. History expansion is applied first, as bash would. A refused
 * line is put in the history as typed and replaced by a command that says why.
 */
const BASH_LINE_CHECK = [
  'if [ -n "${TERMBRIDGE_LINE_CHECK-}" ]; then',
  ...LINE_CHECK_COMMON.map((line) => `  ${line}`),
  "  # Each alias as a field NAME=VALUE. Read-only, so no line can unset it and hide them",
  "  # (alias and unalias still change it).",
  "  readonly BASH_ALIASES",
  "  # 48 random hex digits in __tb_rand, from /dev/urandom with builtins only (no program is looked",
  "  # up, and no variable a line could have replaced, such as SRANDOM, is used).",
  "  __tb_random() {",
  "    local LC_ALL=C __tb_raw __tb_i",
  "    IFS= builtin read -r -d '' -N 40 __tb_raw </dev/urandom 2>/dev/null",
  "    __tb_rand=",
  "    for ((__tb_i = 0; __tb_i < ${#__tb_raw} && __tb_i < 24; __tb_i++)); do",
  '      builtin printf -v __tb_rand \'%s%02x\' "$__tb_rand" "\'${__tb_raw:__tb_i:1}"',
  "    done",
  '    [ "${#__tb_rand}" -eq 48 ]',
  "  }",
  "  __tb_aliases() {",
  "    local __tb_name",
  '    for __tb_name in "${!BASH_ALIASES[@]}"; do __tb_field "$__tb_name=${BASH_ALIASES[$__tb_name]}"; done',
  "  }",
  "  # Refused until the check says otherwise: whatever stops this function half-way (an",
  "  # assignment a line made impossible) leaves the refusal in place, never the line.",
  "  __termbridge_check() {",
  '    local __tb_typed="$READLINE_LINE" __tb_point="$READLINE_POINT" __tb_line="" __tb_h=""',
  "    READLINE_LINE=__termbridge_refused READLINE_POINT=20",
  '    __tb_refusal="termbridge could not check the line"',
  '    __tb_line="$__tb_typed" __tb_h="${histchars:-!^#}"',
  "    # History expansion first, as bash will do it: ! anywhere, ^ (quick substitution) first.",
  '    case "$-" in *H*)',
  '      case "$__tb_line" in *"${__tb_h:0:1}"* | "${__tb_h:1:1}"*)',
  '        if ! __tb_line="$(builtin history -p -- "$__tb_line" 2>/dev/null)"; then',
  '          READLINE_LINE="$__tb_typed" READLINE_POINT="$__tb_point" # bash fails it too',
  "          return 0",
  "        fi ;;",
  "      esac ;;",
  "    esac",
  '    case "$__tb_pending$__tb_line" in',
  '      *[![:space:]]*) __termbridge_ask "$__tb_pending" "$__tb_line" ;;',
  "      *) (exit 40) ;;",
  "    esac",
  '    case "$?" in',
  '      40) __tb_pending= READLINE_LINE="$__tb_typed" READLINE_POINT="$__tb_point" ;;',
  "      41)",
  "        __tb_pending=\"$__tb_pending$__tb_line\"$'\\n'",
  '        READLINE_LINE="$__tb_typed" READLINE_POINT="$__tb_point"',
  "        ;;",
  "      *)",
  "        # Refused in the middle of a continued command: abandon all of it, as Ctrl+C does.",
  '        if [ -n "$__tb_pending" ]; then',
  "          __tb_pending= READLINE_LINE=",
  "          builtin printf '\\ntermbridge: %s\\n' \"$__tb_why\" >&2",
  "          builtin kill -INT $$",
  "          return",
  "        fi",
  '        builtin history -s -- "$__tb_typed"',
  '        __tb_refusal="$__tb_why"',
  "        ;;",
  "    esac",
  "  }",
  '  HISTIGNORE="${HISTIGNORE:+$HISTIGNORE:}__termbridge_refused"',
  "  # The two private keys Enter's macro presses are random per shell: a program that sends",
  "  # keys cannot press the accept key without the check before it.",
  '  __tb_k1="\\C-x\\C-_${RANDOM}${RANDOM}t" __tb_k2="\\C-x\\C-_${RANDOM}${RANDOM}a"',
  "  for __tb_map in emacs vi-insert vi-command; do",
  '    bind -m "$__tb_map" -x "\\"$__tb_k1\\": __termbridge_check"',
  '    bind -m "$__tb_map" "\\"$__tb_k2\\": accept-line"',
  '    bind -m "$__tb_map" "\\"\\C-m\\": \\"$__tb_k1$__tb_k2\\""',
  '    bind -m "$__tb_map" "\\"\\C-j\\": \\"$__tb_k1$__tb_k2\\""',
  "    # Other ways readline runs a line (Ctrl+O, Ctrl+X Ctrl+E, vi's v) would skip the check.",
  '    bind -m "$__tb_map" -u operate-and-get-next',
  '    bind -m "$__tb_map" -u edit-and-execute-command',
  "    # So would insert-comment with an argument (Esc-1 Esc-#, vi's #: it runs the line), and",
  "    # shell-expand-line (Esc Ctrl+E) runs the line's command substitutions.",
  '    bind -m "$__tb_map" -u insert-comment',
  '    bind -m "$__tb_map" -u shell-expand-line',
  "  done",
  "  unset __tb_map __tb_k1 __tb_k2",
  "fi",
];

/**
 * zsh: accept-line is wrapped (the widget Enter runs in every keymap); history
 * expansion is applied first with expand-history. A refused line stays in the
 * history as typed and is replaced by a command that says why.
 */
const ZSH_LINE_CHECK = [
  'if [ -n "${TERMBRIDGE_LINE_CHECK-}" ]; then',
  ...LINE_CHECK_COMMON.map((line) => `  ${line}`),
  "  zmodload -i zsh/parameter 2>/dev/null",
  "  zmodload -i zsh/system 2>/dev/null",
  "  # `#` starts a comment, as in bash: the check reads lines so (a line changing it is refused).",
  "  setopt interactive_comments",
  "  # 48 random hex digits in __tb_rand, from /dev/urandom with builtins only (no program looked up).",
  "  __tb_random() {",
  "    local LC_ALL=C __tb_raw __tb_c",
  "    builtin sysread -s 24 __tb_raw </dev/urandom 2>/dev/null || return 1",
  "    __tb_rand=",
  "    for __tb_c in ${(s::)__tb_raw}; do __tb_rand+=${(l:2::0:)${(L)$(( [##16] #__tb_c ))}}; done",
  "    [[ ${#__tb_rand} -eq 48 ]]",
  "  }",
  "  # Each alias as a field NAME=VALUE, a global one as =NAME=VALUE, a suffix one as ==EXT=VALUE.",
  "  __tb_aliases() {",
  "    local __tb_name",
  "    # A line may unset them (and so hide the aliases): loading the module again brings them back.",
  "    if [[ ${(t)aliases}${(t)galiases}${(t)saliases} != *special*special*special* ]]; then",
  "      builtin zmodload -u zsh/parameter 2>/dev/null; builtin zmodload zsh/parameter 2>/dev/null",
  "      [[ ${(t)aliases}${(t)galiases}${(t)saliases} == *special*special*special* ]] || return 1",
  "    fi",
  '    for __tb_name in "${(@k)aliases}"; do __tb_field "$__tb_name=${aliases[$__tb_name]}"; done',
  '    for __tb_name in "${(@k)galiases}"; do __tb_field "=$__tb_name=${galiases[$__tb_name]}"; done',
  '    for __tb_name in "${(@k)saliases}"; do __tb_field "==$__tb_name=${saliases[$__tb_name]}"; done',
  "  }",
  "  __termbridge_accept_line() {",
  '    local __tb_line=""',
  "    # History expansion first, as zsh will do it (quick substitution, ^a^b, cannot be: refused).",
  "    if [[ -o banghist ]]; then",
  '      [[ $BUFFER == *"${histchars:0:1}"* ]] && zle expand-history',
  '      if [[ -n $histchars && $BUFFER == "${histchars:1:1}"* ]]; then',
  '        __tb_original="$BUFFER" __tb_refusal="quick substitution (^old^new) cannot be checked: use !!:s/old/new/"',
  "        BUFFER=__termbridge_refused",
  '        zle ".$WIDGET"',
  "        return",
  "      fi",
  "    fi",
  '    __tb_line="$BUFFER"',
  '    if [[ "$__tb_pending$__tb_line" == *[![:space:]]* ]]; then',
  '      __termbridge_ask "$__tb_pending" "$__tb_line"',
  '      case "$?" in',
  "        40) __tb_pending= ;;",
  "        41) __tb_pending=\"$__tb_pending$__tb_line\"$'\\n' ;;",
  "        *)",
  '          if [[ -n "$__tb_pending" ]]; then',
  "            __tb_pending=",
  "            zle -I",
  '            builtin print -u2 -r -- "termbridge: $__tb_why"',
  "            zle send-break",
  "            return",
  "          fi",
  '          __tb_original="$BUFFER"',
  '          __tb_refusal="$__tb_why"',
  "          BUFFER=__termbridge_refused",
  "          ;;",
  "      esac",
  "    fi",
  '    zle ".$WIDGET"',
  "  }",
  "  # Every widget that runs the line is checked, Ctrl+O and Esc-a included.",
  "  for __tb_widget in accept-line accept-and-hold accept-line-and-down-history accept-and-infer-next-history; do",
  '    zle -N "$__tb_widget" __termbridge_accept_line',
  "  done",
  "  unset __tb_widget",
  "  # Completion and expansion widgets run the line's substitutions ($(...), backquotes,",
  "  # $((...)), <(...)) to expand them: not while the line holds one.",
  "  __termbridge_expand() {",
  "    if [[ $BUFFER == *'$('* || $BUFFER == *'`'* || $BUFFER == *[\\<\\>]'('* ||",
  "      $BUFFER == *[[:space:]]'=('* || $BUFFER == '=('* ]]; then",
  "      zle -M 'termbridge: not expanded: the line has a substitution, which would run'",
  "      return 1",
  "    fi",
  '    zle "__tb_was_$WIDGET"',
  "  }",
  "  # The widgets as they are now (compinit's completion widgets, when the user's .zshrc ran it),",
  "  # kept under another name and called from the wrapper.",
  "  for __tb_widget in expand-or-complete expand-or-complete-prefix expand-word list-expand \\",
  "    menu-expand-or-complete complete-word menu-complete list-choices; do",
  '    zle -A "$__tb_widget" "__tb_was_$__tb_widget" && zle -N "$__tb_widget" __termbridge_expand',
  "  done",
  "  unset __tb_widget",
  "  # Running a widget by name (Esc-x .accept-line) would skip the check, and so would run-help",
  "  # (Esc-h) and which-command (Esc-?), which accept a line of their own: those keys are unbound",
  "  # in every keymap (zsh does not let these widgets be replaced for key bindings).",
  "  for __tb_km in $(bindkey -l); do",
  "    bindkey -M $__tb_km -L | while IFS= read -r __tb_b; do",
  "      case $__tb_b in",
  '        *" execute-named-cmd" | *" execute-last-named-cmd" | *" run-help" | *" which-command")',
  '          eval "${__tb_b% *} undefined-key" ;;',
  "      esac",
  "    done",
  "  done",
  "  unset __tb_km __tb_b",
  "  # Enter in an incremental search (Ctrl+R) accepts the line it found without the wrapped",
  "  # accept-line: it ends the search instead, and the next Enter runs the line, checked.",
  "  for __tb_b in '^M' '^J' '^O'; do bindkey -M isearch \"$__tb_b\" accept-search; done",
  "  unset __tb_b",
  "  __termbridge_history() { [[ $1 != __termbridge_refused* ]]; }",
  "  add-zsh-hook zshaddhistory __termbridge_history",
  "fi",
];

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
    "  local __tb_status=$?",
    "  __tb_pending=",
    '  printf \'\\033]133;D;%s\\007\\033]7;file://%s%s\\007\\033]133;A\\007\' "$__tb_status" "${HOSTNAME-}" "$PWD"',
    "  case \"${PS1-}\" in *'133;B'*) ;; *) PS1=\"${PS1-}\"'\\[\\033]133;B\\007\\]' ;; esac",
    '  return "$__tb_status"',
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
  "  __tb_pending=",
  '  printf \'\\033]133;D;%s\\007\\033]7;file://%s%s\\007\\033]133;A\\007\' "$s" "${HOST-}" "$PWD"',
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
  const env: Record<string, string> = { ZDOTDIR: zdotdir };
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
