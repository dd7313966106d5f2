/**
 * Code a command stores for the shell to run later, outside the line being
 * checked: `trap CODE SIG`, `complete -C CMD`, `-F FUNCTION` and `-W LIST`
 * (expanded at each completion), `mapfile -C CODE`, `bind -x`,
 * `alias NAME=CODE` (when the same line also runs NAME: `sh -c` and `zsh -c`
 * expand aliases on later lines), `fc` and zsh's `r`, which run lines from
 * the history (where a refused line stays), zsh's `autoload` and `compctl`,
 * and variables the shell runs or expands (prompts, mail messages,
 * PROMPT_COMMAND). The analyser checks literal code as a line of its own and
 * treats the rest as unknown.
 * @module
 */

import { isLookupVariable } from "./lookup.ts";
import type { Word } from "./words.ts";
import { optionAssignment, promptArguments, readingChanges } from "./shell_options.ts";

/** What a builtin's words store or run later. */
export type Deferred =
  /** `alias`: the name it defines (a non-interactive sh or zsh expands it on later lines). */
  | { kind: "code"; text: Word; via: string; alias?: string }
  | { kind: "unknown"; reason: string };

/**
 * Options of the builtins that store or run a string, with which of their
 * options take a value: `code` ones are code (`-C`; zsh's bashcompinit runs
 * `-F`'s value as a command, bash calls that function); `expanded` ones are
 * word lists the shell expands, command substitutions included (`-W`); a
 * `globbed` one is a pattern zsh globs, whose qualifiers can run code (`-G`).
 */
const CALLBACK_OPTIONS: Record<
  string,
  { values: string; code: string; expanded?: string; globbed?: string }
> = {
  complete: { values: "oAGWFCXPS", code: "CF", expanded: "W", globbed: "G" },
  compgen: { values: "oAGWFCXPS", code: "CF", expanded: "W", globbed: "G" },
  mapfile: { values: "dnOsucC", code: "C" },
  readarray: { values: "dnOsucC", code: "C" },
};

/** Text the shell would run or expand as code: a substitution of any kind. */
const SUBSTITUTION = /[$`]|[<>]\(/;

/**
 * The code `words` (a simple command, wrappers already looked through) leave
 * for the shell to run later, or why it cannot be known.
 */
export function deferredCode(words: Word[]): Deferred[] {
  return [...readingChanges(words), ...promptArguments(words), ...laterCode(words)];
}

/** What `words` keep for the shell to run later (trap, alias, complete -C...). */
function laterCode(words: Word[]): Deferred[] {
  const name = words[0]?.text;
  if (name === "trap") return trapCode(words);
  if (name === "alias") return aliasCode(words);
  if (name === "fc" || name === "r") {
    if (name === "fc" && words.slice(1).some((w) => /^-[a-zA-Z]*l/.test(w.text))) return [];
    return [{
      kind: "unknown",
      reason:
        `${name} runs lines from the history (a refused line stays there) without checking them`,
    }];
  }
  if (name === "bind" && words.slice(1).some((w) => w.dynamic || /^-[a-zA-Z]*x/.test(w.text))) {
    return [{ kind: "unknown", reason: "bind -x makes a key run a command that is not checked" }];
  }
  const attached = attachedName(words);
  if (attached !== null) return [attached];
  const zsh = zshDeferred(words);
  if (zsh !== null) return zsh;
  const options = CALLBACK_OPTIONS[name ?? ""];
  if (options === undefined) return [];
  const found: Deferred[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word.dynamic) {
      found.push({ kind: "unknown", reason: `${name} is given options built at run time` });
      break;
    }
    if (word.text === "--" || !/^-./.test(word.text)) break;
    for (let j = 1; j < word.text.length; j++) {
      const option = word.text[j];
      if (!options.values.includes(option)) continue;
      // `-C CODE`, `-xC CODE`, or `-CCODE`.
      const rest = word.text.slice(j + 1);
      const value = rest !== "" ? { text: rest, dynamic: false } : words[++i];
      const via = `${name} -${option}`;
      if (value === undefined) break;
      if (options.code.includes(option)) {
        found.push({ kind: "code", text: value, via });
      } else if (option === options.globbed && (value.dynamic || /[$`(]/.test(value.text))) {
        found.push({ kind: "unknown", reason: `${via} is given a pattern that may run code` });
      } else if (option === options.expanded && (value.dynamic || SUBSTITUTION.test(value.text))) {
        // The list is expanded as the words of `: LIST` would be.
        found.push({
          kind: "code",
          text: { text: `: ${value.text}`, dynamic: value.dynamic },
          via,
        });
      }
      break;
    }
  }
  return found;
}

/** Options that take the name of a variable to set, by builtin (`printf -v NAME`, `read -a NAME`). */
const NAME_OPTIONS: Record<string, string> = { printf: "v", print: "v", read: "a" };

/**
 * `printf -vPS1 ...`, `read -aPS1`: the name attached to its option, when it
 * is a variable the shell runs later (or is built at run time).
 */
function attachedName(words: Word[]): Deferred | null {
  const option = NAME_OPTIONS[words[0]?.text ?? ""];
  if (option === undefined) return null;
  const attached = new RegExp(`^-[a-zA-Z]*?${option}(.+)$`);
  for (const word of words.slice(1)) {
    if (word.text === "--" || !word.text.startsWith("-")) break;
    const name = attached.exec(word.text)?.[1];
    if (name !== undefined && (word.dynamic || isCodeVariable(name))) {
      return {
        kind: "unknown",
        reason: `"${words[0].text}" may set a variable whose value the shell runs later`,
      };
    }
  }
  return null;
}

/**
 * zsh's builtins that keep code for later or load it from files: `autoload`
 * (and `functions -u`), `compctl`, and those that set a variable named by a
 * word (`print -v`, `vared`, `zstyle -s`...), which may be one the shell runs;
 * null when `words` is none of them.
 */
function zshDeferred(words: Word[]): Deferred[] | null {
  const name = words[0]?.text ?? "";
  const rest = words.slice(1);
  const operands = rest.filter((w) => w.dynamic || !/^[-+]/.test(w.text));
  if (
    name === "autoload" ||
    (name === "functions" && rest.some((w) => /^[-+][a-zA-Z]*u/.test(w.text))) ||
    ((name === "typeset" || name === "declare") &&
      rest.some((w) => /^[-+][a-zA-Z]*f/.test(w.text)) &&
      rest.some((w) => /^[-+][a-zA-Z]*u/.test(w.text)))
  ) {
    if (operands.length === 0) return [];
    return [{
      kind: "unknown",
      reason: `${name} loads function code from files that are not checked`,
    }];
  }
  const styled = name === "zstyle" ? zstyleCode(words) : [];
  if (styled.length > 0) return styled;
  if (name === "compdef" && rest[0]?.text !== "-d") {
    // `compdef [-ane] FUNCTION NAME...`: FUNCTION may be code, evaluated when completing.
    const code = rest.find((w) => w.dynamic || !/^-/.test(w.text));
    return code === undefined ? [] : [{ kind: "code", text: code, via: "compdef" }];
  }
  if (name === "compctl") {
    if (rest.some((w) => w.dynamic || /[$`(]/.test(w.text))) {
      return [{
        kind: "unknown",
        reason: "compctl keeps strings the shell expands (substitutions included) when completing",
      }];
    }
    return [];
  }
  if (name === "zmodload" && rest.some((w) => w.dynamic || /^[./~]/.test(w.text))) {
    return [{ kind: "unknown", reason: "zmodload loads a module from a file" }];
  }
  // zsh's `set -A NAME VALUE...` sets an array (a prompt's first element is the prompt).
  const arraySet = name === "set" && rest.some((w) => /^[-+][a-zA-Z]*A/.test(w.text));
  const tied = arraySet || (name === "typeset" || name === "declare" || name === "local" ||
        name === "export" || name === "readonly" || name === "private") &&
      rest.some((w) => /^[-+][a-zA-Z]*T/.test(w.text));
  // `print -v NAME`: a name built at run time may be any.
  const printTo = name === "print" &&
    rest.some((w, i) => /^-[a-zA-Z]*v$/.test(w.text) && rest[i + 1]?.dynamic);
  if (printTo || ((tied || SETS_BY_NAME.has(name)) && rest.some((w) => isCodeVariable(w.text)))) {
    return [{
      kind: "unknown",
      reason: `"${name}" may set a variable whose value the shell runs later`,
    }];
  }
  return null;
}

/**
 * Styles whose values zsh's completion system and functions run: `command`
 * (evaluated by `_call_program`), programs (`pager`, browsers, mime handlers).
 */
const CODE_STYLES = new Set([
  "command",
  "call-command",
  "pager",
  "handler",
  "filter",
  "x-browsers",
  "tty-browsers",
]);

/**
 * `zstyle -e PATTERN STYLE CODE...`: CODE is evaluated when the style is
 * looked up; a style that names a program or code has each value checked as
 * a line (and all of them joined, as `command` is evaluated).
 */
function zstyleCode(words: Word[]): Deferred[] {
  let i = 1;
  const evaluated = words[i]?.text === "-e";
  if (evaluated || words[i]?.text === "-" || words[i]?.text === "--") i++;
  else if (words[i] === undefined || /^-/.test(words[i].text)) return []; // Look-ups, listing.
  const style = words[i + 1];
  const values = words.slice(i + 2);
  if (style === undefined || values.length === 0) return [];
  const text = {
    text: values.map((w) => w.text).join(" "),
    dynamic: values.some((w) => w.dynamic),
  };
  if (evaluated) return [{ kind: "code", text, via: "zstyle -e" }];
  if (!style.dynamic && !CODE_STYLES.has(style.text)) return [];
  const via = `zstyle ${style.text}`;
  const each: Deferred[] = values.map((value) => ({ kind: "code", text: value, via }));
  return values.length > 1 ? [...each, { kind: "code", text, via }] : each;
}

/**
 * zsh's builtins (and those of its modules) that set a variable named by one
 * of their words; bash's are seen by the extractor.
 */
const SETS_BY_NAME = new Set([
  "print",
  "vared",
  "zstyle",
  "zpty",
  "strftime",
  "zformat",
  "sysread",
  "zparseopts",
  "getln",
  "zstat",
  "zselect",
  "ztcp",
  "zsocket",
  "integer",
  "float",
  "private",
  "ztie",
  "pcre_match",
  "stat",
  "syserror",
  "sysopen",
  "zsystem",
  "zcurses",
]);

/** `trap [-lp] [[CODE] SIGNAL...]`: CODE runs when a signal (or EXIT, DEBUG, ERR, RETURN) comes. */
function trapCode(words: Word[]): Deferred[] {
  let i = 1;
  if (words[i]?.text === "--") i++;
  if (words[i] !== undefined && /^-[lp]+$/.test(words[i].text)) return [];
  const code = words[i];
  // One word alone resets that signal; "-" resets the ones named.
  if (code === undefined || words.length - i < 2 || (!code.dynamic && code.text === "-")) {
    return [];
  }
  return [{ kind: "code", text: code, via: "trap" }];
}

/** `alias NAME=CODE`: the shell runs CODE where NAME is typed later. */
function aliasCode(words: Word[]): Deferred[] {
  const found: Deferred[] = [];
  for (const word of words.slice(1)) {
    const at = word.text.indexOf("=");
    if (word.dynamic && at < 0) {
      found.push({ kind: "unknown", reason: "alias is given a definition built at run time" });
    } else if (at > 0) {
      found.push({
        kind: "code",
        text: { text: word.text.slice(at + 1), dynamic: word.dynamic },
        via: `alias ${word.text.slice(0, at)}`,
        alias: word.text.slice(0, at),
      });
    }
  }
  return found;
}

/**
 * Variables whose value the shell runs, expands or sources later (in an
 * interactive shell, or a child): bash's and zsh's names for the prompts and
 * the mail messages (expanded with substitutions), code run for a bare
 * redirection (zsh's NULLCMD), function bodies and aliases set through
 * arrays (zsh's `functions`, `aliases`; bash's BASH_ALIASES), files or
 * directories of code, and the options a started bash takes (SHELLOPTS).
 */
const CODE_VARIABLES: Record<string, "code" | "prompt" | "file" | "options" | "keys"> = {
  PROMPT_COMMAND: "code",
  PS0: "prompt",
  PS1: "prompt",
  PS2: "prompt",
  PS3: "prompt",
  PS4: "prompt",
  // zsh: other names of the prompts, expanded with substitutions under prompt_subst.
  PROMPT: "prompt",
  PROMPT2: "prompt",
  PROMPT3: "prompt",
  PROMPT4: "prompt",
  prompt: "prompt",
  RPROMPT: "prompt",
  RPROMPT2: "prompt",
  RPS1: "prompt",
  RPS2: "prompt",
  SPROMPT: "prompt",
  PROMPT_EOL_MARK: "prompt",
  // `FILE?MESSAGE`: the message is expanded, substitutions included, when mail comes.
  MAIL: "prompt",
  MAILPATH: "prompt",
  mailpath: "prompt",
  // zsh runs `$NULLCMD > f` for `> f`, `$READNULLCMD < f` for `< f`.
  NULLCMD: "code",
  READNULLCMD: "code",
  // zsh/parameter: `functions[NAME]=BODY` defines NAME.
  functions: "code",
  dis_functions: "code",
  // Aliases set through arrays (bash's BASH_ALIASES, zsh/parameter's): their text is run.
  BASH_ALIASES: "code",
  aliases: "code",
  galiases: "code",
  saliases: "code",
  BASH_ENV: "file",
  // readline's key bindings (bash's line editor): a key bound to accept-line runs a line.
  INPUTRC: "keys",
  ENV: "file",
  // Options every bash started with them sets: `keyword` makes `ls PATH=DIR` find ls in DIR.
  SHELLOPTS: "options",
  BASHOPTS: "options",
  ZDOTDIR: "file",
  FPATH: "file",
  fpath: "file",
  MODULE_PATH: "file",
  module_path: "file",
};

/**
 * What an assignment of `value` to the variable `name` leaves for the shell
 * to run later: PROMPT_COMMAND's code, a prompt's substitutions (PS0-PS4),
 * the file BASH_ENV or ENV names.
 */
export function deferredAssignment(name: string, value: Word | undefined): Deferred[] {
  const option = optionAssignment(name, value);
  if (option !== null) return [option];
  const kind = CODE_VARIABLES[name.replace(/\[.*$/, "")];
  if (kind === undefined) return [];
  const base = name.replace(/\[.*$/, "");
  if (kind === "file") {
    return [{ kind: "unknown", reason: `${base} names files of code a shell will run unchecked` }];
  }
  if (kind === "keys") {
    return [{
      kind: "unknown",
      reason: `${base} names a file of key bindings for the shells the line starts, ` +
        "which can make a key run a line without termbridge's check",
    }];
  }
  if (kind === "options") {
    return [{
      kind: "unknown",
      reason:
        `${base} sets options of the shells the line starts, which change how they read commands`,
    }];
  }
  if (value === undefined) return [];
  if (kind === "code") {
    if (value.dynamic) {
      return [{ kind: "unknown", reason: `${base} is given code built at run time` }];
    }
    return [{ kind: "code", text: value, via: base }];
  }
  // `$name[i]` too: zsh evaluates the subscript as arithmetic, which runs substitutions in values.
  if (value.dynamic || /\$([({[]|\w+\[)|`/.test(value.text)) {
    return [{
      kind: "unknown",
      reason: `${base} holds substitutions the shell runs at each prompt, which are not checked`,
    }];
  }
  return [];
}

/**
 * Why a parameter expansion that assigns (`${NAME:=VALUE}`, `${NAME=VALUE}`,
 * zsh's `${NAME::=VALUE}`, bash's indirect `${!REF:=VALUE}`) leaves code for
 * the shell to run later, or null when it does not.
 */
export function expansionAssignment(text: string): string | null {
  const match = /^\$\{(!?)([A-Za-z_]\w*)(\[[^\]]*\])?:{0,2}=/.exec(text);
  if (match === null) return null;
  if (match[1] === "!") {
    return `${text} assigns a variable named at run time, which may be one the shell runs later`;
  }
  if (isLookupVariable(match[2])) {
    return `${text} assigns ${match[2]}, so which files the line's programs are cannot be known`;
  }
  if (!isCodeVariable(match[2])) return null;
  return `${text} assigns ${match[2]}, whose value the shell runs or expands later`;
}

/**
 * Whether a nameref to `text` (bash's `declare -n r=PS1`) would set one of
 * the variables above: bash's are upper case; zsh's lower-case names
 * (`prompt`, `functions`) have no namerefs to reach them.
 */
export function isNamerefTarget(text: string): boolean {
  return isCodeVariable(text) && !/^[a-z]/.test(text);
}

/** Whether a word names one of the variables above (as `read`, `printf -v` or a nameref would set it). */
export function isCodeVariable(text: string): boolean {
  return CODE_VARIABLES[text.replace(/[[+=].*$/, "")] !== undefined;
}
