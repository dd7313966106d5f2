/**
 * What a word known only at run time could spell: a glob (`/usr/bin/tou?h`)
 * or a word with expansions (`/usr/bin/${t}ch`) read as a pattern, and
 * whether two patterns could match the same text. Used to ask about a
 * denied program named among another command's arguments by a glob or an
 * expansion, where the name itself is not written out.
 * @module
 */

/** One element of a pattern. */
type Token =
  | { kind: "star" }
  | { kind: "one" }
  | { kind: "class"; regex: RegExp }
  | { kind: "char"; char: string };

/**
 * A word's text as a glob: each expansion or substitution (`$x`, `${x}`,
 * `$(...)`, backquotes, an unexpanded `{a,b}`) becomes `*`, as it may hold any
 * text (slashes too). Quoted glob characters are read as globs: that only
 * widens what the word could spell.
 * @example
 * ```ts
 * wordAsGlob("/usr/bin/${t}ch"); // "/usr/bin/*ch"
 * ```
 */
export function wordAsGlob(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    const next = text[i + 1] ?? "";
    if (char === "\\") {
      out += char + next;
      i++;
    } else if (char === "$" && (next === "(" || next === "{" || next === "[")) {
      i = closing(text, i + 1);
      out += "*";
    } else if (char === "$" && /[A-Za-z_]/.test(next)) {
      while (/[A-Za-z0-9_]/.test(text[i + 1] ?? "")) i++;
      out += "*";
    } else if (char === "$" && /[@*#?$!0-9-]/.test(next)) {
      i++;
      out += "*";
    } else if (char === "`") {
      const end = text.indexOf("`", i + 1);
      i = end < 0 ? text.length : end;
      out += "*";
    } else if (char === "{") {
      i = closing(text, i);
      out += "*";
    } else out += char;
  }
  return out;
}

/** The source texts of the command substitutions in a word (`$(...)`, backquotes). */
export function substitutions(text: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === "$" && text[i + 1] === "(") {
      const end = closing(text, i + 1);
      found.push(text.slice(i + 2, end));
      i = end;
    } else if (text[i] === "`") {
      const end = text.indexOf("`", i + 1);
      found.push(text.slice(i + 1, end < 0 ? undefined : end));
      i = end < 0 ? text.length : end;
    }
  }
  return found;
}

/** The index of the bracket closing the one at `open` (or the end of the text). */
function closing(text: string, open: number): number {
  const pairs: Record<string, string> = { "(": ")", "{": "}", "[": "]" };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const char = text[i];
    if (char === "\\") i++;
    else if (pairs[char] !== undefined) stack.push(pairs[char]);
    else if (char === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return i;
    }
  }
  return text.length;
}

/** The last path component of a pattern (the name a program would be found by). */
export function globBasename(glob: string): string {
  return glob.slice(glob.lastIndexOf("/") + 1);
}

/**
 * Whether some text could match both patterns (`*`, `?`, `[...]`; a
 * backslash escapes). Two bracket classes are assumed to share a character.
 */
export function globsOverlap(a: string, b: string): boolean {
  const x = tokens(a);
  const y = tokens(b);
  const memo = new Map<number, boolean>();
  const width = y.length + 1;
  const overlap = (i: number, j: number): boolean => {
    const key = i * width + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === x.length && j === y.length) result = true;
    else if (i < x.length && x[i].kind === "star") {
      result = overlap(i + 1, j) || (j < y.length && overlap(i, j + 1));
    } else if (j < y.length && y[j].kind === "star") {
      result = overlap(i, j + 1) || (i < x.length && overlap(i + 1, j));
    } else if (i === x.length || j === y.length) result = false;
    else result = sameChar(x[i], y[j]) && overlap(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return overlap(0, 0);
}

function sameChar(a: Token, b: Token): boolean {
  if (a.kind === "char" && b.kind === "char") return a.char === b.char;
  if (a.kind === "char" && b.kind === "class") return b.regex.test(a.char);
  if (a.kind === "class" && b.kind === "char") return a.regex.test(b.char);
  return true;
}

function tokens(glob: string): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === "*") {
      if (out.at(-1)?.kind !== "star") out.push({ kind: "star" });
    } else if (char === "?") out.push({ kind: "one" });
    else if (char === "\\" && i + 1 < glob.length) {
      out.push({ kind: "char", char: glob[++i] });
    } else if (char === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) out.push({ kind: "char", char });
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        let regex: RegExp;
        try {
          regex = new RegExp(`^[${body}]$`, "s");
        } catch {
          regex = /^[^]$/s; // A class not read here: any character.
        }
        out.push({ kind: "class", regex });
        i = end;
      }
    } else out.push({ kind: "char", char });
  }
  return out;
}
