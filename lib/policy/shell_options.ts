/**
 * Shell options that change how the shell reads the lines after them, and
 * zsh's prompt expansion of arguments. The parser reads every line with `#`
 * starting a comment and braces as bash expands them; a line that turns
 * interactive_comments off (`shopt -u interactive_comments`, zsh's `unsetopt
 * interactivecomments`, `bash -i +O interactive_comments`) makes an
 * interactive shell run what follows a `#`, and zsh's brace_ccl makes
 * `{t}ouch` the word `touch`. `print -P` expands prompt sequences, and with
 * prompt_subst (which a user's start-up file may set) runs the substitutions
 * in its arguments. Each is unknown.
 * @module
 */

import type { Deferred } from "./deferred.ts";
import type { ShellState } from "./types.ts";
import type { Word } from "./words.ts";

/** The options that change how lines are read, by their zsh name (lower case, no `_`). */
const READING_OPTIONS: Record<string, { harmful: "on" | "off"; why: string }> = {
  interactivecomments: {
    harmful: "off",
    why:
      "turns interactive_comments off: an interactive shell then runs what follows a # on its later lines",
  },
  braceccl: {
    harmful: "on",
    why:
      "turns zsh's brace_ccl on: {abc} then expands to a b c ({t}ouch is touch), so later words cannot be known",
  },
};

/** The option a name means and whether it is set (`no_brace_ccl` unsets brace_ccl), or null. */
function optionNamed(name: string, set: boolean): { option: string; set: boolean } | null {
  const normal = name.toLowerCase().replace(/[_-]/g, "");
  if (normal in READING_OPTIONS) return { option: normal, set };
  if (normal.startsWith("no") && normal.slice(2) in READING_OPTIONS) {
    return { option: normal.slice(2), set: !set };
  }
  return null;
}

/** Why setting (`set`) the option named `name` changes how later lines are read, or null. */
function change(name: string, set: boolean, command: string): Deferred[] {
  const named = optionNamed(name, set);
  if (named === null) return [];
  const option = READING_OPTIONS[named.option];
  if ((option.harmful === "on") !== named.set) return [];
  return [{ kind: "unknown", reason: `"${command}" ${option.why}` }];
}

/**
 * Why a command (wrappers looked through) changes how the shell reads later
 * text: `setopt`, `unsetopt`, `set -o`/`+o`, `shopt -u`, `emulate -R`, a
 * shell started with such options; none when it does not.
 */
export function readingChanges(words: Word[]): Deferred[] {
  const name = words[0]?.text ?? "";
  const rest = words.slice(1);
  const shown = words.map((w) => w.text).join(" ");
  if (name === "setopt" || name === "unsetopt") {
    return setoptOptions(rest, name === "unsetopt", shown);
  }
  if (name === "set") return setOptions(rest, shown);
  if (name === "shopt") {
    const unset = rest.some((w) => /^-[a-z]*u/.test(w.text));
    if (!unset) return [];
    if (rest.some(built)) return dynamic(shown);
    return rest.flatMap((w) => /^-/.test(w.text) ? [] : change(w.text, false, shown));
  }
  if (name === "emulate") {
    // `-R` resets every option to the mode's (interactive_comments off for zsh).
    if (rest.some((w) => w.dynamic)) return []; // Asked about as flags built at run time.
    if (rest.some((w) => /^-[a-zA-Z]*R/.test(w.text))) {
      return [{
        kind: "unknown",
        reason:
          `"${shown}" resets the shell's options (interactive_comments among them), which changes how later lines are read`,
      }];
    }
    // `emulate [-lL] MODE [-o NAME]... [-c CODE]`: the flags come after the mode.
    const mode = rest.findIndex((w) => !/^-/.test(w.text));
    return mode < 0 ? [] : setOptions(rest.slice(mode + 1), shown);
  }
  if (name === "bash" || name === "zsh" || name === "sh") return shellOptions(rest, shown);
  return [];
}

/**
 * zsh's `setopt` and `unsetopt`, as zsh reads them: a flag word's letters
 * act one way (`-` sets with setopt, `+` unsets; unsetopt the other way
 * round), `k` being interactive_comments and `o` taking a name (attached or
 * the next word); the names after the flags follow the command alone
 * (`setopt +k braceccl` sets brace_ccl). `-m` names patterns: asked.
 */
function setoptOptions(rest: Word[], unset: boolean, shown: string): Deferred[] {
  const found: Deferred[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (built(word)) return dynamic(shown);
    if (!/^[-+]./.test(word.text)) {
      found.push(...change(word.text, !unset, shown));
      continue;
    }
    const set = (word.text[0] === "-") !== unset;
    for (let j = 1; j < word.text.length; j++) {
      const letter = word.text[j];
      if (letter === "m") return dynamic(shown);
      if (letter === "k") found.push(...change("interactivecomments", set, shown));
      if (letter !== "o") continue;
      let option = word.text.slice(j + 1);
      if (option === "") {
        const next = rest[++i];
        if (next === undefined) break;
        if (built(next)) return dynamic(shown);
        option = next.text;
      }
      found.push(...change(option, set, shown));
      break;
    }
  }
  return found;
}

/** `set -o NAME`, `set +o NAME`, zsh's `set +k` (interactive_comments by its letter). */
function setOptions(rest: Word[], shown: string): Deferred[] {
  const found: Deferred[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (built(word)) return dynamic(shown); // `set $x`: may be `+o NAME`.
    if (word.text === "--" || word.text === "-" || !/^[-+]/.test(word.text)) break;
    if (/^\+[a-zA-Z]*k/.test(word.text)) found.push(...change("interactivecomments", false, shown));
    if (/^[-+][a-zA-Z]*o$/.test(word.text) && rest[i + 1] !== undefined) {
      if (built(rest[i + 1])) return dynamic(shown);
      found.push(...change(rest[i + 1].text, word.text[0] === "-", shown));
      i++;
      continue;
    }
    // `set -obraceccl`, `emulate zsh -obraceccl`: the name attached to -o.
    const attached = ATTACHED_NAME.exec(word.text);
    if (attached !== null) found.push(...change(attached[2], attached[1] === "-", shown));
  }
  return found;
}

/** Option letters ending in `o` with an option's name attached: `-obraceccl`, `+xobraceccl`. */
const ATTACHED_NAME = /^([-+])[a-zA-Z]*?o([a-zA-Z_]{2,})$/;

/** A shell's own options: bash's `+O interactive_comments`, `-o`/`+o NAME`, zsh's `--braceccl`. */
function shellOptions(rest: Word[], shown: string): Deferred[] {
  const found: Deferred[] = [];
  for (let i = 0; i < rest.length; i++) {
    const { text, dynamic } = rest[i];
    if (dynamic || text === "--" || text === "-" || !/^[-+]/.test(text)) break;
    const long = /^--(no-?)?([a-z_-]+)$/.exec(text);
    if (long !== null) found.push(...change(long[2], long[1] === undefined, shown));
    const valued = /^([-+])[a-zA-Z]*[oO]$/.exec(text);
    const attached = /^([-+])o([a-z_]+)$/.exec(text);
    if (attached !== null) found.push(...change(attached[2], attached[1] === "-", shown));
    else if (valued !== null && rest[i + 1] !== undefined) {
      found.push(...change(rest[i + 1].text, valued[1] === "-", shown));
      i++;
    }
  }
  return found;
}

/** A word known only when the line runs: an expansion, or a glob (`interactive_comment*` may match a file the line makes). */
function built(word: Word): boolean {
  return word.dynamic || /[*?[]/.test(word.text);
}

function dynamic(shown: string): Deferred[] {
  return [{
    kind: "unknown",
    reason:
      `"${shown}" sets options known only when the line runs, which may change how later lines are read`,
  }];
}

/**
 * zsh's `options` array (`options[braceccl]=on`, `options=(braceccl on)`):
 * why assigning `value` to `name` changes how later lines are read, or null.
 */
export function optionAssignment(name: string, value: Word | undefined): Deferred | null {
  const subscript = /^options\[(.*)\]\+?$/.exec(name)?.[1];
  const whole = name === "options" || name === "options+";
  if (subscript === undefined && !whole) return null;
  const text = subscript ?? value?.text ?? "";
  const normal = text.toLowerCase().replace(/[_-]/g, "");
  // A name built at run time may be any option: the subscript, or the first of an array's pairs.
  const built = subscript !== undefined ? /[$`]/.test(text) : /^\(\s*["']?[$`]/.test(text);
  if (!built && !Object.keys(READING_OPTIONS).some((option) => normal.includes(option))) {
    return null;
  }
  return {
    kind: "unknown",
    reason: `"${name}=" sets zsh options, which may change how later lines are read`,
  };
}

/** Text prompt expansion runs as code under prompt_subst: a parameter, command or arithmetic substitution. */
const PROMPT_CODE = /[$`]/;

/** print's options that take the next word as their value. */
const PRINT_VALUES = "uCvxXf";

/**
 * zsh's `print -P`: its arguments are prompt-expanded, and with prompt_subst
 * (set in the line or by a start-up file) the substitutions in them run.
 * Unknown when an argument holds one or is built at run time.
 */
export function promptArguments(words: Word[]): Deferred[] {
  if (words[0]?.text !== "print") return [];
  let prompt = false;
  /** A word built at run time where an option may stand (`print $flags ...`): it may be -P. */
  let maybe: Word | undefined;
  for (let i = 1; i < words.length; i++) {
    const { text, dynamic } = words[i];
    if (dynamic) maybe = words[i];
    if (dynamic || text === "--" || text === "-" || !/^-[a-zA-Z]+$/.test(text)) break;
    // A letter that takes a value takes the rest of the group (`-vPROMPT`), else the next word.
    for (let j = 1; j < text.length; j++) {
      if (text[j] === "P") prompt = true;
      if (!PRINT_VALUES.includes(text[j])) continue;
      if (j === text.length - 1) i++;
      break;
    }
  }
  if (!prompt && maybe !== undefined) {
    // Only text that is code itself: the word may as well be what is printed.
    const code = words.slice(1).find((w) => w !== maybe && !w.dynamic && PROMPT_CODE.test(w.text));
    if (code !== undefined) return [promptCode(code)];
  }
  if (!prompt) return [];
  const code = words.slice(1).find((w) => w.dynamic || PROMPT_CODE.test(w.text));
  return code === undefined ? [] : [promptCode(code)];
}

function promptCode(code: Word): Deferred {
  return {
    kind: "unknown",
    reason:
      `print -P expands "${code.text}" as a prompt, which with prompt_subst runs its substitutions (not checked)`,
  };
}

/**
 * A brace that may open a group brace_ccl expands: any `{` but the one of
 * `${` (zsh takes `{t","}`, `{t..}` and `{t${x}}` as classes too).
 */
function classBrace(line: string, i: number): boolean {
  return line[i] === "{" && !(line[i - 1] === "$" && line[i - 2] !== "\\");
}

/** A `#` at the start of a word, where a comment would start. */
function wordHash(line: string, i: number): boolean {
  return line[i] === "#" && (i === 0 || /[\s;&|()<>]/.test(line[i - 1]));
}

/**
 * Whether `line` has a character `at` accepts outside quotes: backslashes,
 * '...', $'...' and "..." are followed, and with `comments` an unquoted `#`
 * starting a word skips to the end of its line. Where the scan cannot follow
 * the shell (a command substitution inside double quotes, whose quoting
 * starts again; a backtick, whose backslashes are read twice; a
 * here-document; a quote left open), every character from there on counts:
 * such lines are asked about, as before quotes were followed.
 */
function hasUnquoted(
  line: string,
  at: (line: string, i: number) => boolean,
  comments: boolean,
): boolean {
  const anyFrom = (from: number) => {
    for (let i = from; i < line.length; i++) if (at(line, i)) return true;
    return false;
  };
  if (line.includes("<<")) return anyFrom(0);
  for (let i = 0; i < line.length;) {
    const c = line[i];
    if (c === "`") return anyFrom(i);
    if (c === "\\") {
      i += 2;
    } else if (comments && wordHash(line, i)) {
      const end = line.indexOf("\n", i);
      if (end < 0) return false;
      i = end;
    } else if (at(line, i)) {
      return true;
    } else if (c === "'" || c === '"' || (c === "$" && line[i + 1] === "'")) {
      // $'...' has escapes; '...' has none.
      const quoted = c === "$" ? quotedEnd(line, i + 1, true) : quotedEnd(line, i, c === '"');
      if (quoted.end === undefined) return anyFrom(quoted.unsure);
      i = quoted.end;
    } else {
      i++;
    }
  }
  return false;
}

/**
 * Where the quoted text opening at `open` ends (the index after its quote),
 * or where a scan of it stops being sure: a quote left open, a command
 * substitution inside double quotes.
 */
function quotedEnd(
  line: string,
  open: number,
  escapes: boolean,
): { end?: number; unsure: number } {
  const close = line[open];
  for (let j = open + 1; j < line.length; j++) {
    const c = line[j];
    if (escapes && c === "\\") j++;
    else if (c === close) return { end: j + 1, unsure: j + 1 };
    else if (close === '"' && (c === "`" || (c === "$" && line[j + 1] === "("))) {
      return { unsure: j };
    }
  }
  return { unsure: open };
}

/**
 * Why the shell that reads `line` reads it otherwise than the parser, with
 * the reading options it has on now (a start-up file, or an earlier line the
 * user approved, set them): zsh's brace_ccl and a brace it may expand, or
 * interactive_comments off and a `#` starting a word. None when neither applies.
 */
export function readingStateUnknowns(
  line: string,
  state: ShellState | undefined,
): { reason: string; via: string[] }[] {
  const unknowns: { reason: string; via: string[] }[] = [];
  if (state?.braceCcl && hasUnquoted(line, classBrace, !state.commentsOff)) {
    unknowns.push({
      reason:
        "zsh's brace_ccl is on in this shell: {abc} expands to a b c ({t}ouch is touch), so the words of the line cannot be known",
      via: [],
    });
  }
  if (state?.commentsOff && hasUnquoted(line, wordHash, false)) {
    unknowns.push({
      reason:
        "interactive_comments is off in this shell: what follows a # runs, so the line cannot be read as the shell reads it",
      via: [],
    });
  }
  return unknowns;
}
