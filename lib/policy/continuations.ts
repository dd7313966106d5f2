/**
 * Backslash-newline continuations removed from a line as bash removes them
 * before it reads words (`tou\<newline>ch` is `touch`): not inside single
 * quotes or comments, nor in the body of a here-document whose delimiter is
 * quoted (where the body is literal and its lines end where bash ends them).
 * @module
 */

import { delimiterWord, quoteRemoved } from "./heredocs.ts";

/** A here-document announced on the current line, whose body starts after it. */
interface Pending {
  delimiter: string;
  quoted: boolean;
  /** `<<-`: leading tabs are removed from each body line. */
  tabs: boolean;
}

/** The line with its continuations removed (see the module's note). */
export function joinContinuations(text: string): string {
  if (!text.includes("\\\n")) return text;
  let out = "";
  let quote: "'" | '"' | null = null;
  let comment = false;
  let arithmetic = 0;
  let pending: Pending[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === "\n" && quote === null) {
      comment = false;
      out += char;
      if (pending.length > 0) {
        const bodies = hereDocumentBodies(text, i + 1, pending);
        out += bodies.text;
        i = bodies.end - 1;
        pending = [];
      }
    } else if (comment) {
      out += char;
    } else if (char === "\\" && quote !== "'") {
      if (text[i + 1] !== "\n") out += char + (text[i + 1] ?? "");
      i++; // A continuation disappears.
    } else if (quote !== null) {
      if (char === quote) quote = null;
      out += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      out += char;
    } else if (char === "#" && (out === "" || /[\s;&|()<>]$/.test(out))) {
      comment = true;
      out += char;
    } else if (char === "(" && text[i + 1] === "(") {
      arithmetic++;
      out += "((";
      i++;
    } else if (char === ")" && text[i + 1] === ")" && arithmetic > 0) {
      arithmetic--;
      out += "))";
      i++;
    } else if (char === "<" && text.startsWith("<<", i) && arithmetic === 0) {
      const operator = /^<<(<|-)?[ \t]*/.exec(text.slice(i))![0];
      out += operator;
      i += operator.length - 1;
      if (operator[2] === "<") continue; // A here-string.
      const word = delimiterWord(text.slice(i + 1));
      if (word !== "") {
        pending.push({
          delimiter: quoteRemoved(word),
          quoted: /['"\\]/.test(word),
          tabs: operator[2] === "-",
        });
      }
    } else {
      out += char;
    }
  }
  return out;
}

/**
 * The bodies of the here-documents `pending` announced, from `start`: each
 * up to its delimiter line, literal when its delimiter is quoted, else with
 * continuations removed (bash joins the lines before it compares them).
 */
function hereDocumentBodies(
  text: string,
  start: number,
  pending: Pending[],
): { text: string; end: number } {
  let out = "";
  let at = start;
  for (const document of pending) {
    while (at < text.length) {
      let line = "";
      let next = at;
      for (;;) {
        const newline = text.indexOf("\n", next);
        const end = newline < 0 ? text.length : newline;
        line += text.slice(next, end);
        next = newline < 0 ? text.length : newline + 1;
        // An unquoted body's line ending in an unescaped backslash goes on.
        const trailing = /\\+$/.exec(line)?.[0].length ?? 0;
        if (document.quoted || trailing % 2 === 0 || newline < 0) {
          if (newline >= 0) line += "\n";
          break;
        }
        line = line.slice(0, -1);
      }
      out += line;
      at = next;
      const bare = line.replace(/\n$/, "");
      if ((document.tabs ? bare.replace(/^\t+/, "") : bare) === document.delimiter) break;
    }
  }
  return { text: out, end: at };
}
