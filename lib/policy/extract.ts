/**
 * Every simple command a parsed line would run: in pipelines, lists,
 * subshells, groups, `if`/`for`/`while`/`case` bodies, function bodies, and
 * command and process substitutions wherever they appear (arguments, double
 * quotes, assignments, redirections, here-documents).
 * @module
 */

import type { SyntaxNode } from "./parser.ts";
import {
  deferredAssignment,
  expansionAssignment,
  isCodeVariable,
  isNamerefTarget,
} from "./deferred.ts";
import { type Word, wordOf } from "./words.ts";
import { expandedWords } from "./braces.ts";
import { isLookupVariable } from "./lookup.ts";
import { hereDocument, unescapeBackquoted } from "./heredocs.ts";
import { quotedOperand } from "./dialects.ts";

/** A simple command as written, before wrappers are looked through. */
export interface FoundCommand {
  words: Word[];
  via: string[];
  /** Literal text given on standard input by a here-document or here-string. */
  stdin?: Word;
  /** The source text after the program word, when the word could be an alias (plain, unquoted). */
  afterName?: string;
}

/** What a line holds. */
export interface LineContents {
  commands: FoundCommand[];
  /**
   * Why parts of the line cannot be known before it runs; `shape` marks a
   * construct dangerous in itself (a fork bomb), asked about even under the
   * shipped policy alone.
   */
  unknowns: { reason: string; via: string[]; shape?: true }[];
  /** Names of the functions the line defines. */
  functions: string[];
  /** Literal code an assignment leaves for the shell to run later (PROMPT_COMMAND). */
  deferred: { text: Word; via: string[] }[];
  /**
   * Ranges of the source to read again as blanks: `coproc NAME` before a
   * compound command, which the parser takes for a simple command's words.
   */
  blank: { start: number; end: number }[];
  /** The line evaluates arithmetic somewhere (`$((x))`, `let`, `declare -i`, `[[ -eq ]]`). */
  arithmetic: boolean;
  /**
   * Quoted or escaped text holding a substitution (`'a[$(touch m)]'`): run
   * only if arithmetic evaluates it, which may be in another part of the line.
   */
  quoted: { text: string; via: string[] }[];
  /**
   * Code the parser read as plain text but bash runs: a backquote or process
   * substitution in a `${x:-...}` operand, backquotes in a here-document,
   * backquotes escaped inside others. Each is checked as a line of its own.
   */
  code: { text: string; via: string[] }[];
}

/** Node types entered with a note of how their commands are reached. */
const VIA: Record<string, string> = {
  command_substitution: "$(...)",
  process_substitution: "<(...)",
};

/**
 * Collects the simple commands of a parsed line.
 * @param home what `~` expands to
 */
export function extractCommands(root: SyntaxNode, home: string, via: string[] = []): LineContents {
  const contents: LineContents = {
    commands: [],
    unknowns: [],
    functions: [],
    deferred: [],
    blank: [],
    arithmetic: false,
    quoted: [],
    code: [],
  };
  if (root.hasError) {
    contents.unknowns.push({
      reason: "the line is not complete or not valid shell syntax, so what it runs cannot be known",
      via,
    });
  }
  const state: State = {
    contents,
    home,
    functions: [],
    stdin: new Map(),
    extra: new Map(),
    arithmetic: false,
    quotedCode: [],
    escapes: /\\[$`]/.test(root.text),
    source: root.text,
  };
  visit(root, via, state);
  contents.arithmetic = state.arithmetic;
  contents.quoted = state.quotedCode;
  return contents;
}

/** Node types that evaluate arithmetic (more are found by `isArithmetic`). */
const ARITHMETIC = new Set(["arithmetic_expansion", "c_style_for_statement", "subscript"]);

/** `[[ ]]` operators whose operands are evaluated as arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/** Whether a node is a context where bash evaluates its operands as arithmetic. */
function isArithmetic(node: SyntaxNode): boolean {
  const type = node.type;
  if (ARITHMETIC.has(type)) return true;
  if (type === "compound_statement") return node.text.startsWith("((");
  if (type === "test_operator") return ARITHMETIC_TESTS.has(node.text);
  // `${x:OFFSET:LENGTH}` evaluates OFFSET and LENGTH.
  if (type === "expansion") return /^\$\{[^}]*:[^-=?+]/.test(node.text);
  return false; // `let` and `declare -i` are seen with their words.
}

/** Quoted or escaped text that holds a substitution (`'a[$(touch m)]'`), as the shell passes it. */
const QUOTED: Record<string, boolean> = {
  raw_string: true,
  ansi_c_string: true,
  // Double-quoted and plain words hold such text only where the line escapes a `$`.
  word: false,
  string: false,
  // Pieces joined in one word: `'a[$''(touch m)]'` holds what neither piece holds.
  concatenation: true,
};

interface State {
  contents: LineContents;
  home: string;
  functions: string[];
  /** Here-document text for the command node it feeds, by node id. */
  stdin: Map<number, Word>;
  /** Words after a redirection's target, arguments of the command node it follows, by node id. */
  extra: Map<number, SyntaxNode[]>;
  /** The line has a context that evaluates arithmetic. */
  arithmetic: boolean;
  /** Quoted text holding a substitution the shell does not run as it reads it. */
  quotedCode: { text: string; via: string[] }[];
  /** The line escapes a `$` or a backquote somewhere (`\$(...)` is text, not a substitution). */
  escapes: boolean;
  /** The line's text. */
  source: string;
}

function visit(node: SyntaxNode, via: string[], state: State): void {
  const type = node.type;
  if (!state.arithmetic && isArithmetic(node)) state.arithmetic = true;
  const quoted = QUOTED[type];
  if (quoted !== undefined && (quoted || state.escapes) && /[$`]/.test(node.text)) {
    // What the parser reads as a substitution is checked already; text that is not one is kept.
    const word = wordOf(node, state.home);
    const text = word.text;
    if (
      /\$\(|`/.test(text) && node.namedChildren.every((c) => c?.type !== "command_substitution") &&
      !(type === "concatenation" && word.dynamic)
    ) {
      state.quotedCode.push({ text, via });
    }
  }
  if (type === "command") return visitCommand(node, via, state);
  hiddenCode(node, via, state);
  const assigns = type === "expansion" ? expansionAssignment(node.text) : null;
  if (assigns !== null) unknown(state, via, assigns);
  if (type === "expansion" && /@P\}$/.test(node.text)) {
    unknown(
      state,
      via,
      `${node.text} runs the substitutions in the variable's value, which are not checked`,
    );
  } else if (type === "for_statement") {
    const variable = node.childForFieldName("variable")?.text ?? "";
    if (isCodeVariable(variable)) {
      unknown(state, via, `the loop sets ${variable}, which the shell runs or expands later`);
    }
  }
  if (type === "declaration_command" || type === "unset_command") {
    const keyword = node.child(0)?.text ?? type;
    const words: Word[] = [{ text: keyword, dynamic: false }];
    for (const child of node.namedChildren) {
      if (child === null) continue;
      if (child.type === "variable_assignment") noteAssignment(child, via, state);
      else words.push(wordOf(child, state.home));
    }
    // `declare -i n`: later assignments to n are evaluated as arithmetic.
    if (words.some((w, i) => i > 0 && /^[-+]\w*i/.test(w.text))) state.arithmetic = true;
    state.contents.commands.push({ words, via });
  } else if (type === "variable_assignment") {
    noteAssignment(node, via, state);
  } else if (type === "function_definition") {
    const name = node.childForFieldName("name")?.text ?? "";
    state.contents.functions.push(name);
    state.functions.push(name);
    visitChildren(node, via, state);
    state.functions.pop();
    return;
  } else if (type === "redirected_statement") {
    const body = node.childForFieldName("body");
    for (const child of node.namedChildren) {
      if (child?.type === "heredoc_redirect" && body?.type === "command") {
        state.stdin.set(body.id, hereDocument(child).stdin);
      } else if (child?.type === "file_redirect" && body?.type === "command") {
        const extra = extraDestinations(child);
        if (extra.length > 0) {
          state.extra.set(body.id, [...state.extra.get(body.id) ?? [], ...extra]);
        }
      }
    }
  }
  const inner = VIA[type];
  visitChildren(node, inner === undefined ? via : [...via, inner], state);
}

function visitChildren(node: SyntaxNode, via: string[], state: State): void {
  for (const child of node.namedChildren) if (child !== null) visit(child, via, state);
}

function visitCommand(node: SyntaxNode, via: string[], state: State): void {
  const words: Word[] = [];
  let stdin = state.stdin.get(node.id);
  const children = node.namedChildren;
  for (const child of children) {
    const type = child?.type;
    if (child === null || type === "variable_assignment" || type === "comment") continue;
    if (type === "herestring_redirect") {
      const value = child.namedChild(0);
      if (value !== null) stdin = wordOf(value, state.home);
    } else if (type === "file_redirect") {
      for (const extra of extraDestinations(child)) words.push(...expandedWords(extra, state.home));
    } else if (type !== "heredoc_redirect") {
      words.push(...expandedWords(child, state.home));
    }
  }
  for (const extra of state.extra.get(node.id) ?? []) {
    words.push(...expandedWords(extra, state.home));
  }
  if (words.length > 0) {
    const name = words[0].text;
    // `let EXPR`, also behind `builtin` or `command`.
    if (!state.arithmetic && words.some((w) => w.text === "let")) state.arithmetic = true;
    if (!words[0].dynamic && state.functions.includes(name)) {
      state.contents.unknowns.push({
        reason: `the function "${name}" calls itself (the shape of a fork bomb)`,
        via,
        shape: true,
      });
    }
    if (SETS_BY_NAME.has(name) && words.slice(1).some((w) => isCodeVariable(w.text))) {
      unknown(state, via, `"${name}" sets a variable whose value the shell runs later`);
    }
    if (name === "coproc" && COMPOUND.has(words[2]?.text ?? "") && /^\w+$/.test(words[1].text)) {
      const nameWord = children.find((c) => c?.type !== "command_name" && c?.type !== "comment");
      if (nameWord) state.contents.blank.push({ start: node.startIndex, end: nameWord.endIndex });
    }
    const found: FoundCommand = { words, via };
    if (stdin !== undefined) found.stdin = stdin;
    const nameNode = node.childForFieldName("name");
    const plain = nameNode?.namedChild(0);
    if (nameNode && plain?.type === "word" && !/[\\'"]/.test(plain.text)) {
      found.afterName = node.text.slice(nameNode.endIndex - node.startIndex);
    }
    state.contents.commands.push(found);
  }
  // Substitutions inside words, assignments and redirections run too.
  for (const child of children) {
    if (child === null) continue;
    if (child.type === "variable_assignment") noteAssignment(child, via, state);
    else visit(child, via, state);
  }
}

/** An assignment's value may hold substitutions; one to PATH changes what later names run. */
function noteAssignment(node: SyntaxNode, via: string[], state: State): void {
  const name = node.childForFieldName("name")?.text;
  const value0 = node.childForFieldName("value")?.text ?? "";
  // PATH, BASH_CMDS[ls], zsh's path and commands; or a nameref to one (`declare -n r=PATH`).
  if (
    isLookupVariable(name ?? "") ||
    /^["']?\w+(\[[^\]]*\])?["']?$/.test(value0) &&
      isLookupVariable(value0.replace(/^["']|["']$/g, ""))
  ) {
    state.contents.unknowns.push({
      reason: `the line changes ${
        isLookupVariable(name ?? "") ? name?.replace(/\[.*$/s, "") : value0
      }, so which files its programs are cannot be known`,
      via,
    });
  }
  const valueNode = node.childForFieldName("value");
  const value = valueNode ? wordOf(valueNode, state.home) : undefined;
  for (const deferred of deferredAssignment(name ?? "", value)) {
    if (deferred.kind === "code") {
      state.contents.deferred.push({ text: deferred.text, via: [...via, deferred.via] });
    } else unknown(state, via, deferred.reason);
  }
  // A nameref (declare -n r=PS1) sets the variable it names.
  if (value !== undefined && !value.dynamic && isNamerefTarget(value.text)) {
    unknown(state, via, `"${name}" may refer to ${value.text}, which the shell runs later`);
  }
  visitChildren(node, via, state);
}

/** Words that start a compound command (`coproc NAME` takes one). */
const COMPOUND = new Set(["{", "(", "((", "while", "until", "if", "for", "select", "case", "[["]);

/** Builtins that set a variable named by one of their words. */
const SETS_BY_NAME = new Set(["read", "printf", "mapfile", "readarray", "getopts", "let"]);

function unknown(state: State, via: string[], reason: string): void {
  state.contents.unknowns.push({ reason, via });
}

/**
 * Words the parser took for more targets of a redirection: bash redirects to
 * the first word and passes the rest as arguments (`env >/dev/null touch m`
 * runs `env touch m`).
 */
function extraDestinations(redirect: SyntaxNode): SyntaxNode[] {
  const destinations = redirect.childrenForFieldName("destination");
  if (destinations.length < 2) return [];
  return destinations.slice(1).filter((node): node is SyntaxNode => node !== null);
}

/** Plain text that still holds a substitution: a backquote, `$(`, `<(` or `>(`. */
const SUBSTITUTION = /`|[$<>]\(/;

/**
 * Code in a node the parser did not read as code, kept to be checked as a
 * line: a `${x:-...}` operand the parser left as plain text (checked as the
 * argument of `:`, where the same text is read with its substitutions; `""`
 * keeps a leading `#` from starting a comment), a single-quoted operand
 * inside double quotes (where the quotes are literal), an escaped backquote
 * inside another, a here-document's backquotes.
 */
function hiddenCode(node: SyntaxNode, via: string[], state: State): void {
  const type = node.type;
  if ((type === "word" || type === "regex") && node.childCount === 0) {
    if (SUBSTITUTION.test(node.text.replace(/\\[^]/g, ""))) {
      code(state, `: ""${node.text}`, [...via, "${...}"]);
    }
  } else if (
    (type === "raw_string" || type === "ansi_c_string") && node.parent?.type === "expansion" &&
    inDoubleQuotes(node)
  ) {
    // Inside double quotes `'` and `$'` are plain characters: what they hold is expanded.
    const text = node.text.slice(type === "raw_string" ? 1 : 2, -1);
    if (SUBSTITUTION.test(text)) code(state, `: ""${text}`, [...via, "${...}"]);
    const apart = quotedOperand(text);
    if (apart !== null) unknown(state, via, apart);
  } else if (type === "command_substitution" && node.text.startsWith("`")) {
    const text = node.text.slice(1, -1);
    const unescaped = unescapeBackquoted(text, inDoubleQuotes(node));
    if (unescaped !== text) code(state, unescaped, [...via, "`...`"]);
  } else if (type === "heredoc_redirect") {
    const document = hereDocument(node);
    if (document.unknown !== null) unknown(state, via, document.unknown);
    for (const text of document.code) code(state, text, [...via, "<<"]);
  }
}

/** Keeps code to check as a line; the line being read again is code the parser cannot find. */
function code(state: State, text: string, via: string[]): void {
  if (text === state.source) {
    unknown(
      state,
      via,
      "the parser cannot read a substitution in the line, so what it runs cannot be known",
    );
  } else state.contents.code.push({ text, via });
}

/** Whether a node stands inside a double-quoted string (of the same command). */
function inDoubleQuotes(node: SyntaxNode): boolean {
  for (let up = node.parent; up !== null; up = up.parent) {
    if (up.type === "string") return true;
    if (up.type === "command_substitution" || up.type === "process_substitution") return false;
  }
  return false;
}
