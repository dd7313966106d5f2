/**
 * Aliases as the shell expands them, for the analysis of a line: an alias's
 * text followed by the words it makes aliases too (a value ending in a
 * blank), and the aliases replaced wherever they stand (zsh's global ones,
 * those of reserved words).
 * @module
 */

import type { AnalysisContext } from "./analysis_types.ts";

/** A word a shell may alias-expand: no quotes, substitutions or operators in it. */
const PLAIN_WORD = /^([ \t]*)([^\s;&|()<>'"\\$`{}]+)(?=$|[\s;&|()<>])/;

/**
 * An alias's text followed by the rest of the command, as the shell runs it:
 * when the text ends with a blank, the next word is alias-expanded too (bash
 * and zsh), and so on while those end with a blank.
 */
export function expandFollowingAliases(
  alias: string,
  rest: string,
  aliases: Record<string, string>,
): string {
  let text = alias;
  const used = new Set<string>();
  while (/[ \t]$/.test(text)) {
    const next = PLAIN_WORD.exec(rest);
    if (next === null || !Object.hasOwn(aliases, next[2]) || used.has(next[2])) break;
    used.add(next[2]);
    text += next[1] + aliases[next[2]];
    rest = rest.slice(next[0].length);
  }
  return text + rest;
}

/**
 * Words the shell reads as syntax, which it still alias-expands in command
 * position (`alias if='touch m; if'`); the parser sees them as keywords, not
 * commands, so aliases of them are replaced wherever they stand, as global
 * ones are.
 */
const RESERVED = new Set([
  "!",
  "[[",
  "]]",
  "{",
  "}",
  "case",
  "coproc",
  "do",
  "done",
  "elif",
  "else",
  "end",
  "esac",
  "fi",
  "for",
  "foreach",
  "function",
  "if",
  "in",
  "nocorrect",
  "noglob",
  "repeat",
  "select",
  "then",
  "time",
  "until",
  "while",
]);

/**
 * The aliases a line is checked with wherever they stand as a word: zsh's
 * global ones and those of reserved words; undefined when there are none.
 */
export function aliasesAnywhere(
  context: Pick<AnalysisContext, "aliases" | "globalAliases">,
): Record<string, string> | undefined {
  const anywhere: Record<string, string> = { ...context.globalAliases };
  for (const [name, value] of Object.entries(context.aliases ?? {})) {
    if (RESERVED.has(name)) anywhere[name] = value;
  }
  return Object.keys(anywhere).length === 0 ? undefined : anywhere;
}

/** Characters around a word: a global alias is replaced only where it is a whole word. */
const WORD_EDGE = "[\\s;&|()<>{}`]";

/**
 * `text` with every global alias that stands as a whole word replaced by its
 * value, repeatedly (values may hold others; each name once). Quotes are not
 * looked at: a name in quotes is replaced too, which only checks more.
 */
export function expandGlobalAliases(text: string, aliases: Record<string, string>): string {
  const used = new Set<string>();
  for (let round = 0; round < 8; round++) {
    let changed = false;
    for (const [name, value] of Object.entries(aliases)) {
      if (used.has(name) || name === "") continue;
      const word = new RegExp(
        `(^|${WORD_EDGE})${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=$|${WORD_EDGE})`,
        "g",
      );
      const replaced = text.replace(word, (_, before: string) => before + value);
      if (replaced !== text) {
        text = replaced;
        used.add(name);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return text;
}
