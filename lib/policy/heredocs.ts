/**
 * Here-documents and backquotes as bash reads them, where the parser reads
 * them otherwise: the delimiter bash waits for (quote-removed), the body's
 * backquote substitutions (the parser sees none), and the text inside a
 * backquote substitution with its escapes removed (`` `a \`b\`` `` runs `b`).
 * @module
 */

import type { SyntaxNode } from "./parser.ts";
import type { Word } from "./words.ts";

/** What a here-document gives its command and runs itself. */
export interface HereDocument {
  /** The text on standard input, as bash passes it; dynamic when it expands anything. */
  stdin: Word;
  /** Backquote substitutions in the body, as the lines they run. */
  code: string[];
  /** Why what the here-document does cannot be known (null when it can). */
  unknown: string | null;
}

/**
 * The here-document of a `heredoc_redirect` node as bash reads it. An
 * unquoted body has its backslash escapes removed and its backquotes found; a
 * delimiter bash ends on another line than the parser did (`E"O"F` ends at
 * `EOF`) makes the whole line unknown.
 */
export function hereDocument(node: SyntaxNode): HereDocument {
  const children = node.namedChildren.filter((c): c is SyntaxNode => c !== null);
  const start = children.find((c) => c.type === "heredoc_start");
  const end = children.find((c) => c.type === "heredoc_end");
  const source = node.text;
  const at = (index: number) => index - node.startIndex;
  const word = start === undefined ? "" : delimiterWord(source.slice(at(start.startIndex)));
  const quoted = /['"\\]/.test(word);
  let unknown: string | null = null;
  if (/\$['"]/.test(word)) {
    unknown = `the here-document delimiter ${word} is read differently by bash and the parser`;
  } else if (end === undefined || end.text !== quoteRemoved(word)) {
    unknown =
      `the here-document delimiter ${word} ends its text elsewhere than the parser reads, so what the line runs cannot be known`;
  }
  // The body: from the line after the one holding `<<`, to the delimiter's line.
  const bodyStart = start === undefined ? -1 : source.indexOf("\n", at(start.endIndex));
  const bodyEnd = end === undefined ? source.length : at(end.startIndex);
  let body = bodyStart < 0 || bodyStart >= bodyEnd ? "" : source.slice(bodyStart + 1, bodyEnd);
  if (/^<<-/.test(source)) body = body.replace(/^\t+/gm, "");
  const expands = children.some((c) =>
    c.type === "heredoc_body" &&
    c.namedChildren.some((part) => part !== null && part.type !== "heredoc_content")
  );
  if (quoted) return { stdin: { text: body, dynamic: expands }, code: [], unknown };
  const { segments, unclosed } = backquoted(body);
  if (unclosed && unknown === null) {
    unknown = "a backquote in a here-document is not closed, so what it runs cannot be known";
  }
  return {
    stdin: { text: unescapeBody(body), dynamic: expands || segments.length > 0 || unclosed },
    code: segments,
    unknown,
  };
}

/** The delimiter word at the start of `text`, as written (up to an unquoted blank or operator). */
export function delimiterWord(text: string): string {
  let i = 0;
  let quote: string | null = null;
  for (; i < text.length; i++) {
    const char = text[i];
    if (quote !== null) {
      if (char === "\\" && quote === '"') i++;
      else if (char === quote) quote = null;
    } else if (char === "\\") i++;
    else if (char === "'" || char === '"') quote = char;
    else if (/[\s;&|<>()]/.test(char)) break;
  }
  return text.slice(0, Math.min(i, text.length));
}

/** A word with its quotes and escapes removed, as bash removes them from a here-document delimiter. */
export function quoteRemoved(word: string): string {
  let out = "";
  let quote: string | null = null;
  for (let i = 0; i < word.length; i++) {
    const char = word[i];
    if (quote === "'") {
      if (char === "'") quote = null;
      else out += char;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === "\\" && '$`"\\'.includes(word[i + 1] ?? "")) out += word[++i];
      else out += char;
    } else if (char === "\\") out += word[++i] ?? "";
    else if (char === "'" || char === '"') quote = char;
    else out += char;
  }
  return out;
}

/** An unquoted here-document's body as bash passes it: `\$`, `` \` ``, `\\` and `\`-newline unescaped. */
function unescapeBody(body: string): string {
  return body.replace(/\\(\n|[$`\\])/g, (_, char: string) => char === "\n" ? "" : char);
}

/**
 * The backquote substitutions in text read as a double-quoted string is (an
 * unquoted here-document's body): each as the line it runs, with the escapes
 * a backquote removes. `unclosed` when one has no end.
 */
export function backquoted(text: string): { segments: string[]; unclosed: boolean } {
  const segments: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      i++;
      continue;
    }
    if (text[i] !== "`") continue;
    let j = i + 1;
    while (j < text.length && text[j] !== "`") j += text[j] === "\\" ? 2 : 1;
    if (j >= text.length) return { segments, unclosed: true };
    segments.push(unescapeBackquoted(text.slice(i + 1, j), false));
    i = j;
  }
  return { segments, unclosed: false };
}

/**
 * The text inside a backquote substitution as bash runs it: a backslash
 * before `$`, a backquote or a backslash is removed (`` \`touch m\` `` is a
 * nested substitution), and before `"` too inside double quotes.
 */
export function unescapeBackquoted(text: string, inDoubleQuotes: boolean): string {
  return text.replace(inDoubleQuotes ? /\\([$`\\"])/g : /\\([$`\\])/g, "$1");
}
