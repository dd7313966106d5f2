/**
 * Lines that would switch the typed-line check off or around it: they
 * rebind keys, change the hooks' own state (also through a name computed
 * when the line runs), or change how the shell reads a line behind the
 * check's back. Refused before the policy is asked.
 * @module
 */

import { analyseLine } from "../policy/analyse.ts";
import { loadShellParser } from "../policy/parser.ts";
import type { Word } from "../policy/words.ts";
import type { TypedLine } from "./typed_lines.ts";

/** Builtins that rebind keys, remove functions or switch builtins off: the check's own machinery. */
const MACHINERY = new Set(["bind", "bindkey", "zle", "unfunction", "enable", "disable", "unhash"]);

/** Names a function must not take: the builtins and keywords the hooks themselves use. */
const HOOK_WORDS = new Set([
  "[",
  "alias",
  "bind",
  "bindkey",
  "builtin",
  "case",
  "command",
  "eval",
  "exec",
  "history",
  "kill",
  "local",
  "print",
  "printf",
  "read",
  "return",
  "set",
  "test",
  "typeset",
  "unset",
  "zle",
]);

/** Names of the hooks' own state, and readline's, which a line must not touch. */
const HOOK_NAMES = /__tb_|__termbridge|TERMBRIDGE_|READLINE_/;

/**
 * zsh's tables of the shell's own state (zsh/parameter): assigning to one
 * replaces a function (the check's own), an alias, an option or the file a
 * command name runs.
 */
const SHELL_TABLES =
  /(^|[\s;&|({])(dis_)?(functions|functions_source|builtins|aliases|galiases|saliases|reswords|options|parameters|modules|commands|widgets|keymaps)(\[[^\]]*\])?\+?=/;

/** Builtins that set variables named by their arguments. */
const SETTERS = new Set([
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "integer",
  "float",
  "unset",
  "read",
  "mapfile",
  "readarray",
  "getopts",
  "let",
  "printf",
  "vared",
  "zparseopts",
  "sysread",
]);

/**
 * Traps that run around each command, or when a function returns, which can
 * skip the check's own commands (bash's extdebug, zsh's err_exit in a DEBUG
 * trap) or undo what they did.
 */
const HOOKING_TRAP = /^(SIG)?(DEBUG|RETURN|ERR|ZERR)$/i;

/** zsh's trap functions of those (`TRAPDEBUG() { ... }`). */
const HOOKING_TRAP_FUNCTION = /^TRAP(DEBUG|RETURN|ERR|ZERR)$/i;

/**
 * bash's options that hand the DEBUG and RETURN traps to functions (the
 * check is one) and let a DEBUG trap skip the next command: extdebug,
 * functrace (`set -T`).
 */
const TRACE_OPTIONS =
  /(^|[\s;&|(])(shopt\s+(-[a-z]*\s+)*[^;&|]*\bextdebug\b|set\s+(-[a-zA-Z]*\s+)*-[a-zA-Z]*T|set\s+[^;&|]*[-+]o\s+functrace\b|shopt\s+[^;&|]*-o[^;&|]*\bfunctrace\b)/;

/**
 * bash: lines that turn readline off (`set +o emacs`, `set +o vi`, `shopt -u
 * -o emacs`), where the check lives; also in quoted text (code kept for
 * later, such as PROMPT_COMMAND's). `shopt` naming either is refused whatever
 * it does.
 */
const BASH_EDITOR =
  /(^|[^\w-])(set\s+([^;&|\n]*\s)?\+[a-zA-Z]*o[a-zA-Z]*\s+['"]?(emacs|vi)\b|shopt\s+[^;&|\n]*\b(emacs|vi)\b)/;

/**
 * zsh: lines that name the ZLE option (`unsetopt zle`, `setopt NO_ZLE`, `set
 * +o zle`, `emulate sh -o no_zle`), read as zsh reads option names (case and
 * underscores ignored), or its flag (`set +Z`).
 */
const ZSH_EDITOR_NAME =
  /(^|[^\w-])((un)?setopt\b[^;&|\n]*|(set|emulate)\b[^;&|\n]*[-+]o\s*['"]?)\b(no)?zle\b/;
const ZSH_EDITOR_FLAG = /(^|[^\w-])((un)?setopt|set|emulate)\s+([^;&|\n]*\s)?[-+][a-zA-Z]*Z/;

/** Why a line would turn the shell's line editor off (or may), or null. */
function turnsEditorOff(typed: TypedLine): string | null {
  const off = isZsh(typed)
    ? ZSH_EDITOR_NAME.test(typed.line.replaceAll("_", "").toLowerCase()) ||
      ZSH_EDITOR_FLAG.test(typed.line)
    : BASH_EDITOR.test(typed.line);
  return off ? EDITOR_REASON : null;
}

const EDITOR_REASON =
  "it changes whether the shell's line editor is on, and the check lives in the line editor";

/**
 * How a command may change the line editor's option, as the parser reads
 * its words (quotes removed, so `set +o 'em'acs` too, and code kept for
 * later: a trap's, an alias's): "named" when it names it, "unknown" when an
 * option is named only when the line runs (zsh's `setopt $o`, bash's `set +o
 * $o`), else null.
 */
function editorOption(first: string, args: Word[], zsh: boolean): "named" | "unknown" | null {
  if (zsh) {
    if (!["setopt", "unsetopt", "set", "emulate"].includes(first)) return null;
    if (args.some((word) => word.dynamic)) return "unknown";
    const named = args.some((word) =>
      /^(no)?zle$/.test(word.text.replaceAll("_", "").toLowerCase()) ||
      /^[-+]([a-zA-Z]*Z|o(no)?zle$)/.test(word.text.replaceAll("_", ""))
    );
    return named ? "named" : null;
  }
  if (first === "shopt") {
    if (args.some((word) => word.dynamic)) return "unknown";
    return args.some((word) => /^(emacs|vi)$/.test(word.text)) ? "named" : null;
  }
  if (first !== "set") return null;
  const afterO = args.filter((_word, i) => /^\+[a-zA-Z]*o/.test(args[i - 1]?.text ?? ""));
  if (afterO.some((word) => word.dynamic)) return "unknown";
  return afterO.some((word) => /^(emacs|vi)$/.test(word.text)) ? "named" : null;
}

/** An argument that assigns to a name written in the line (`NAME=`, `NAME[...]+=`). */
const STATIC_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

/**
 * Questions about interactive_comments that cannot change it, in a line
 * lower-cased and without `_`: bash's `shopt [-p] [-q] NAME...` and zsh's
 * `[[ -o NAME ]]` / `[[ ! -o NAME ]]`.
 */
const COMMENTS_QUESTIONS = [
  /(^|[\s;&|(!{])shopt(\s+-[pq]+)*(\s+[a-z0-9]+)*?\s+interactivecomments(?=$|[\s;&|)}])/g,
  /\[\[\s+(!\s+)?-o\s+interactivecomments\s+\]\]/g,
];

/** Whether a line (lower-cased, without `_`) names interactive_comments other than to ask about it. */
function changesComments(line: string): boolean {
  const rest = COMMENTS_QUESTIONS.reduce((text, question) => text.replace(question, " "), line);
  return rest.includes("interactivecomments");
}

/** Why a line would switch the check off or around it, or null. */
export async function tampersWithCheck(typed: TypedLine): Promise<string | null> {
  const named = HOOK_NAMES.exec(typed.line);
  if (named !== null) return `it names "${named[0]}"`;
  // `#` starts a comment only with interactive_comments (zsh's is off by default and
  // termbridge's start-up file turns it on): the check reads the line that way.
  if (
    changesComments(typed.line.toLowerCase().replaceAll("_", "")) ||
    /(^|[\s;&|(])(set|setopt|unsetopt)\s+[-+][a-zA-Z]*k/.test(typed.line)
  ) {
    return "it changes how the shell reads # comments";
  }
  const editor = turnsEditorOff(typed);
  if (editor !== null) return editor;
  const table = SHELL_TABLES.exec(typed.line);
  if (table !== null) return `it changes the shell's "${table[3]}" table`;
  if (/\$\{\([^)]*P[^)]*\)[^}]*=/.test(typed.line)) {
    return "it assigns through a name held in another variable (zsh's P flag)";
  }
  const analysis = analyseLine(await loadShellParser(), typed.line, {
    cwd: typed.cwd,
    path: typed.path,
    home: "",
    aliases: typed.aliases,
    globalAliases: typed.globalAliases,
    suffixAliases: typed.suffixAliases,
  });
  const shadow = analysis.functions.find((name) =>
    HOOK_WORDS.has(name) || HOOKING_TRAP_FUNCTION.test(name)
  );
  if (shadow !== undefined) return `it defines a function named "${shadow}"`;
  if (!isZsh(typed) && TRACE_OPTIONS.test(typed.line)) {
    return "it lets DEBUG and RETURN traps into functions (extdebug, functrace)";
  }
  for (const command of analysis.commands) {
    const words = withoutPrefixes(command.words);
    if (words.length === 0) continue;
    const [first, ...rest] = words.map((word) => word.text);
    const hidden = words.find((word) => !word.dynamic && HOOK_NAMES.test(word.text));
    if (hidden !== undefined) return `it names "${HOOK_NAMES.exec(hidden.text)?.[0]}"`;
    if (MACHINERY.has(first)) return `it runs "${first}"`;
    const editor = editorOption(first, words.slice(1), isZsh(typed));
    if (editor === "unknown") {
      return `it sets options named only when the line runs ("${first}"), which may turn the line editor off`;
    }
    if (editor === "named") return EDITOR_REASON;
    // bash `hash -p FILE NAME`, zsh `hash NAME=FILE`: NAME would run a file the check cannot see.
    if (first === "hash" && rest.some((word) => /^-[a-z]*p/.test(word) || word.includes("="))) {
      return 'it binds a command name to a file ("hash")';
    }
    if (first === "unset" && rest.some((word) => /^-[a-z]*f/.test(word))) {
      return 'it runs "unset -f"';
    }
    if (first === "trap" && setsHookingTrap(words.slice(1))) {
      return "it sets a DEBUG, RETURN or ERR trap, which runs around the check's own commands";
    }
    // bash's trace attribute hands the DEBUG and RETURN traps to a function.
    if (
      ["declare", "typeset"].includes(first) && !isZsh(typed) &&
      rest.some((word) => /^-[a-zA-Z]*t/.test(word))
    ) {
      return `it gives functions the trace attribute ("${first} -t")`;
    }
    // zsh: -m makes the names patterns (typeset -m '_?tb_why' names the check's own).
    if (
      PATTERN_SETTERS.has(first) && isZsh(typed) &&
      rest.some((word) => /^[-+][a-zA-Z]*m/.test(word))
    ) {
      return `it names variables by a pattern ("${first} -m")`;
    }
    if (SETTERS.has(first) && setsUnknownName(first, words.slice(1))) {
      return `it sets a variable whose name is known only when the line runs, or a nameref ("${first}")`;
    }
  }
  return null;
}

/** Builtins whose `-m` makes their names patterns (zsh). */
const PATTERN_SETTERS = new Set([
  "declare",
  "typeset",
  "local",
  "export",
  "readonly",
  "integer",
  "float",
  "unset",
  "private",
]);

/** Whether the line is zsh's. */
function isZsh(typed: TypedLine): boolean {
  return typed.shell === "zsh" || typed.shell.endsWith("/zsh");
}

/**
 * Whether `trap ARGS` sets (not resets: `trap - SIG`) a hooking trap, or names
 * its signals only when the line runs.
 */
function setsHookingTrap(args: Word[]): boolean {
  const operands = args[0]?.text === "--" ? args.slice(1) : args;
  if (operands.length < 2 || operands[0].text.startsWith("-") && operands[0].text !== "-") {
    return false; // trap, trap -p, trap -l
  }
  if (operands[0].text === "-" && !operands[0].dynamic) return false;
  return operands.slice(1).some((word) => word.dynamic || HOOKING_TRAP.test(word.text));
}

/** The command's words from its real name on (`builtin declare ...` is `declare ...`). */
function withoutPrefixes(words: Word[]): Word[] {
  let at = 0;
  while (
    at < words.length && ["builtin", "command", "noglob", "nocorrect", "-"].includes(words[at].text)
  ) {
    at++;
    while (at < words.length && /^-[a-zA-Z]+$/.test(words[at].text)) at++; // command -p
  }
  return words.slice(at);
}

/**
 * Whether a setter's arguments name a variable the line computes, or make a
 * name refer to another variable (bash's `declare -n`, whose target the
 * parser does not show).
 */
function setsUnknownName(setter: string, args: Word[]): boolean {
  if (setter === "printf") {
    const v = args.findIndex((word) => word.text === "-v");
    return v !== -1 && (args[v + 1]?.dynamic ?? false);
  }
  const declaring = ["declare", "typeset", "local"].includes(setter);
  if (declaring && args.some((word) => /^-[a-zA-Z]*n/.test(word.text))) return true;
  // A plain name is known whatever the analysis says of it (`unset PWD`).
  return args.some((word) =>
    word.dynamic && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(word.text) &&
    (setter === "unset" || !STATIC_NAME.test(word.text))
  );
}
