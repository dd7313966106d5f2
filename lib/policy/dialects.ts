/**
 * Shells that read a string otherwise than bash, whose grammar the parser
 * knows. dash (`/bin/sh` on Debian) and the other POSIX shells have no
 * `$'...'`, `&>`, `[[ ]]`, brace expansion...: where bash reads one quoted
 * word or a redirection, dash may read code (`sh -c 'command -v &>/dev/null
 * touch m'` runs `touch m` in dash). A string such a shell reads is unknown
 * when it holds one of those constructs; a string without any is read alike
 * by both, and is checked as it is. An interactive zsh reading its standard
 * input takes `#` for a word, not a comment (interactive_comments is off).
 * Wherever a line is read (a zsh session's too), single quotes inside a
 * double-quoted `${x-...}` group for bash and are plain characters for dash
 * and zsh (`quotedOperand`).
 * @module
 */

import type { Word } from "./words.ts";

/**
 * Who reads a string: bash (as the parser does), a POSIX shell that may be
 * dash, or an interactive zsh reading standard input (no `#` comments).
 */
export type Dialect = "bash" | "posix" | "interactive-zsh";

/** Shells of the POSIX family that are not bash (`sh` is dash here, bash elsewhere). */
const POSIX_SHELLS = new Set([
  "sh",
  "dash",
  "ash",
  "posh",
  "ksh",
  "ksh93",
  "mksh",
  "lksh",
  "oksh",
  "pdksh",
  "yash",
]);

/**
 * Programs whose strings are read as bash reads them: bash itself, zsh and
 * its builtins that run code (zsh reads most of bash's constructs as bash
 * does; its own are checked wherever they stand), and env (`env -S` splits
 * a string into words; no shell reads it). Every other program that hands
 * a string to a shell (`watch`, `sg`, `flock -c`, `script -c`, `su -c`,
 * `parallel`) gives it to /bin/sh, `$SHELL` or a user's login shell, any of
 * which may be dash.
 */
const BASH_READERS = new Set(["bash", "rbash", "zsh", "emulate", "sched", "zpty", "env"]);

/**
 * The dialect a wrapper's string is read in.
 * @param name the wrapper or shell, as found (`sh`, `watch`, `bash`)
 * @param words the wrapper's words (a zsh's options say whether it is interactive)
 * @param stdin whether the shell reads the string from its standard input (not `-c`)
 */
export function dialectOf(name: string, words: Word[], stdin: boolean): Dialect {
  if (name === "zsh" && stdin && interactiveZsh(words)) return "interactive-zsh";
  return POSIX_SHELLS.has(name) || !BASH_READERS.has(name) ? "posix" : "bash";
}

/** A zsh started interactive (`-i`, `-o interactive`, `--interactive`): the options before its operands. */
function interactiveZsh(words: Word[]): boolean {
  for (let i = 1; i < words.length; i++) {
    const { text, dynamic } = words[i];
    if (dynamic) return true; // Options known only when the line runs may be any.
    if (text === "--" || text === "-" || !/^[-+]/.test(text)) return false;
    if (text === "--interactive" || /^-[a-zA-Z]*i/.test(text)) return true;
    if (/^-[a-zA-Z]*o$/.test(text) && /^interactive$/i.test(words[i + 1]?.text ?? "")) {
      return true;
    }
  }
  return false;
}

/** A word in command position: at the start, after an operator, or after a keyword that takes a command. */
const COMMAND_START = String
  .raw`(?:^|[;&|(){}\n\`!]|\b(?:then|do|else|elif|if|while|until|time))[ \t]*`;

/**
 * Constructs bash reads otherwise than dash, found in the text wherever they
 * stand (quoted ones too: a string is looked at before anything is unquoted).
 */
const BASH_ONLY: [RegExp, string][] = [
  [/\$'/, "$'...' (ANSI-C quoting)"],
  [/\$"/, '$"..." (translated strings)'],
  [/&>/, "&> (a redirection of both outputs)"],
  [/\|&/, "|& (a pipe of both outputs)"],
  [/<<</, "<<< (here-strings)"],
  [/[<>]\(/, "<(...) and >(...) (process substitution)"],
  [/\$\[/, "$[...] (arithmetic)"],
  [new RegExp(`${COMMAND_START}\\[\\[(?=\\s|$)`), "[[ ... ]] (tests)"],
  // Not `$((` (arithmetic expansion in both) nor `$(((` (arithmetic of a parenthesis).
  [/(?<!\$|\$\(|["'\\])\(\(/, "(( ... )) (arithmetic commands)"],
  [new RegExp(`${COMMAND_START}(?:function|coproc)(?=\\s)`), "function and coproc"],
  [/\{[^\s{}]*(,|\.\.)[^\s{}]*\}/, "{a,b} and {1..3} (brace expansion)"],
  [/;&/, ";& and ;;& (case fall-through)"],
  [/\{[A-Za-z_]\w*\}[<>]/, "{NAME}> (descriptors held in variables)"],
  [
    new RegExp(`${COMMAND_START}(?:\\S+=\\S*[ \\t]+)*[A-Za-z_]\\w*(?:\\[[^\\]]*\\])?\\+?=\\(`),
    "NAME=(...) (arrays)",
  ],
  [
    new RegExp(`${COMMAND_START}(?:\\S+=\\S*[ \\t]+)*[A-Za-z_]\\w*(?:\\[[^\\]]*\\]\\+?|\\+)=`),
    "NAME[i]=... and NAME+=... (dash runs such a word as a command)",
  ],
];

/**
 * `${...}` forms POSIX has: `${NAME}`, `${#NAME}`, and the operators
 * `-` `=` `?` `+` (with or without `:`), `%`, `%%`, `#`, `##`. Others
 * (`${x:0:1}`, `${x//a/b}`, `${!x}`, `${x[0]}`, `${x^^}`, ksh's `${ cmd;}`)
 * are bash's or another shell's.
 */
const POSIX_EXPANSION = /^\$\{(?:#?[A-Za-z_]\w*|#?\d+|#?[@*#?$!-])(?:\}|:?[-=?+]|%%?|##?)/;

/**
 * bash's builtins and keywords that dash does not have: dash runs a file of
 * that name from PATH instead (`sh -c 'help m'` runs `./a/help` if a
 * directory on PATH has one).
 */
const BASH_ONLY_BUILTINS = new Set([
  "bind",
  "builtin",
  "caller",
  "compgen",
  "complete",
  "declare",
  "dirs",
  "disown",
  "enable",
  "fc",
  "help",
  "history",
  "let",
  "logout",
  "mapfile",
  "popd",
  "pushd",
  "readarray",
  "select",
  "shopt",
  "source",
  "suspend",
  "typeset",
]);

/**
 * Why a POSIX shell (dash) may run something else than bash reads in `text`,
 * or null when the text holds nothing they read apart.
 * @param programs the first words of the text's commands, as bash reads them
 */
export function posixReading(text: string, programs: Word[]): string | null {
  // Both shells drop a backslash-newline first: `&\<newline>>` is bash's `&>`.
  for (const version of new Set([text, text.replace(/\\\n/g, "")])) {
    const construct = bashOnly(version);
    if (construct !== null) return differently(construct);
  }
  const builtin = programs.find((word) => !word.dynamic && BASH_ONLY_BUILTINS.has(word.text));
  if (builtin !== undefined) {
    return `dash has no builtin "${builtin.text}": it runs a file of that name from PATH, which cannot be known`;
  }
  return null;
}

/** The first construct of bash's in `text` that dash reads otherwise, or null. */
function bashOnly(text: string): string | null {
  for (const [pattern, construct] of BASH_ONLY) {
    if (pattern.test(text)) return construct;
  }
  for (const at of text.matchAll(/\$\{/g)) {
    const rest = text.slice(at.index);
    if (!POSIX_EXPANSION.test(rest)) {
      return `${/^\$\{[^}\s]{0,20}\}?/.exec(rest)?.[0]} (bash's parameter expansion)`;
    }
  }
  return null;
}

function differently(construct: string): string {
  return `the string is read by a POSIX shell (sh is dash here), which reads ${construct} otherwise than bash, so what it runs cannot be known`;
}

/**
 * Why an interactive zsh reading `text` from standard input may run more
 * than bash reads, or null: with interactive_comments off (its default) a
 * word starting with `#` is a word, and what follows on the line is code.
 */
export function interactiveZshReading(text: string): string | null {
  if (!/(^|[\s;&|()<>])#/.test(text)) return null;
  return "an interactive zsh reading its input does not take # as a comment (unless interactive_comments is set), so what follows it may run";
}

/** Why the shell that reads `text` in `dialect` may run other than bash reads, or null. */
export function dialectReading(dialect: Dialect, text: string, programs: Word[]): string | null {
  if (dialect === "posix") return posixReading(text, programs);
  if (dialect === "interactive-zsh") return interactiveZshReading(text);
  return null;
}

/**
 * Why a single-quoted operand of a `${x-...}` inside double quotes is read
 * apart, or null: bash takes the quotes as grouping (a `}` or `"` inside
 * them ends nothing), dash and zsh as plain characters, so that
 * `"${x-'}" ; touch m ; : "'}"` is one word to bash and runs `touch m` in
 * dash and zsh (a zsh session's lines are read with bash's grammar too).
 * @param text what the quotes hold
 */
export function quotedOperand(text: string): string | null {
  if (!/[}"]/.test(text)) return null;
  return `in "\${x-'...'}" within double quotes, dash and zsh take the single quotes as plain characters and end the expansion or the string at its } or ", where bash does not, so what runs cannot be known`;
}
