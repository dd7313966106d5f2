/**
 * `env -S STRING` splits STRING into words by env's own rules, not the
 * shell's (coreutils' env.c build_argv): blanks and `\_` outside double
 * quotes separate words, `\_` inside them is a space, `\c` ends the string,
 * `#` starting a word starts a comment, `\t` `\n` `\f` `\r` `\v` are those
 * characters, `${NAME}` is the variable's value at run time.
 * @module
 */

/** The words of an `env -S` string, or why they cannot be known before env runs. */
export type EnvSplit = { words: string[] } | { unknown: string };

const BLANKS = " \t\n\v\f\r";
const ESCAPED: Record<string, string> = { f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" };

/**
 * Splits `text` as `env -S` does.
 * @example
 * ```ts
 * splitEnvString("touch\\_m"); // { words: ["touch", "m"] }
 * ```
 */
export function splitEnvString(text: string): EnvSplit {
  const words: string[] = [];
  let current: string | null = null;
  let single = false;
  let double = false;
  const append = (chars: string) => {
    current = (current ?? "") + chars;
  };
  const end = () => {
    if (current !== null) words.push(current);
    current = null;
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "'" && !double) {
      single = !single;
      append("");
      continue;
    }
    if (char === '"' && !single) {
      double = !double;
      append("");
      continue;
    }
    if (BLANKS.includes(char) && !single && !double) {
      end();
      continue;
    }
    if (char === "#" && current === null && !single && !double) break;
    if (char === "\\" && !(single && text[i + 1] !== "\\" && text[i + 1] !== "'")) {
      const next = text[++i];
      if (next === undefined) return { unknown: "env -S is given a string ending in a backslash" };
      if (`"#$'\\`.includes(next)) append(next);
      else if (next === "_") {
        if (double) append(" ");
        else end();
      } else if (next === "c" && !double) {
        end();
        return { words };
      } else if (ESCAPED[next] !== undefined) append(ESCAPED[next]);
      else return { unknown: `env -S is given the sequence "\\${next}", which env refuses` };
      continue;
    }
    if (char === "$" && !single) {
      return { unknown: "env -S expands ${NAME} with a value known only when the line runs" };
    }
    append(char);
  }
  if (single || double) return { unknown: "env -S is given a string with an unterminated quote" };
  end();
  return { words };
}
