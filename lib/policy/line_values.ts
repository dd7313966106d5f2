/**
 * Text a line keeps in variables or feeds to commands rather than passing as
 * arguments: assignment values (`t=/usr/bin/touch`, arrays), `for` lists,
 * here-strings, and here-documents that `read` or `mapfile` reads (others are
 * mostly text for people). An expansion (`valgrind $t`) may pass any
 * of it on, so it is checked as arguments are for the programs rules name.
 * @module
 */

import type { SyntaxNode } from "./parser.ts";
import { type Word, wordOf } from "./words.ts";

/**
 * The values a parsed line sets or reads from its own text, one word per shell word.
 * @param variables filled with the literal values each plain variable is given (`t=tou`, `for t in`)
 */
export function lineValues(
  root: SyntaxNode,
  home: string,
  variables?: Map<string, (string | null)[]>,
): Word[] {
  const values: Word[] = [];
  /** A value given to a plain variable; null when it is known only at run time. */
  const note = (name: string | undefined, node: SyntaxNode | null | undefined) => {
    if (variables === undefined || name === undefined || !/^\w+$/.test(name)) return;
    const word = node === null ? { text: "", dynamic: false } : node && wordOf(node, home);
    const known = variables.get(name) ?? [];
    known.push(word === undefined || word.dynamic ? null : word.text);
    variables.set(name, known);
  };
  const add = (node: SyntaxNode | null) => {
    if (node === null || node.type === "comment") return;
    const word = wordOf(node, home);
    if (word.dynamic) values.push(word);
    else values.push(...split(word.text));
  };
  const visit = (node: SyntaxNode) => {
    const type = node.type;
    if (type === "variable_assignment") {
      const value = node.childForFieldName("value");
      if (value?.type === "array") value.namedChildren.forEach(add);
      else {
        add(value);
        note(node.childForFieldName("name")?.text, value);
      }
    } else if (type === "for_statement" || type === "select_statement") {
      const list = node.childrenForFieldName("value");
      list.forEach(add);
      const name = node.childForFieldName("variable")?.text;
      if (list.length === 0) note(name, undefined); // `for t; do`: the positional parameters.
      for (const item of list) note(name, item);
    } else if (type === "herestring_redirect") {
      add(node.namedChild(0));
    } else if (type === "redirected_statement" && readsInput(node.childForFieldName("body"))) {
      // `read t <<EOF`, `while read t; do ...; done <<EOF`: the text becomes values.
      for (const child of node.namedChildren) {
        if (child?.type !== "heredoc_redirect") continue;
        for (const body of child.namedChildren) {
          if (body?.type !== "heredoc_body") continue;
          for (const text of body.text.split(/\s+/)) {
            if (text !== "") values.push({ text, dynamic: /[$`]/.test(text) });
          }
        }
      }
    }
    for (const child of node.namedChildren) if (child !== null) visit(child);
  };
  visit(root);
  return values;
}

/** Builtins that read their input into variables. */
const READERS = new Set(["read", "mapfile", "readarray"]);

/** Whether a redirected statement reads its input into variables (`read`, `while read`). */
function readsInput(body: SyntaxNode | null): boolean {
  if (body === null) return false;
  if (body.type === "command") return READERS.has(body.childForFieldName("name")?.text ?? "");
  if (body.type === "while_statement" || body.type === "until_statement") {
    return /\b(read|mapfile|readarray)\b/.test(body.text);
  }
  return false;
}

/** A value's words as an unquoted expansion splits them (on blanks). */
function split(text: string): Word[] {
  return text.split(/[ \t\n]+/).filter((t) => t !== "").map((t) => ({ text: t, dynamic: false }));
}
