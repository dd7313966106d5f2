/**
 * Variables that arithmetic evaluates, and variables a line builds from
 * several values. bash evaluates a variable named in arithmetic (`$((z))`,
 * `let z`, `declare -i z`) as an expression, running the substitutions in an
 * array subscript of its value; a value the line puts together from pieces
 * (`x='a[$'; y='(touch m)]'; z=$x$y`) may hold one that no piece holds.
 * `LineArithmetic` gathers both over a whole line and says, when it ends,
 * which quoted texts to check as run.
 * @module
 */

import type { Analysis } from "./analysis_types.ts";
import type { SyntaxNode } from "./parser.ts";

/** What a parsed line says about arithmetic and the values it builds. */
export interface ArithmeticNames {
  /** Names (and other identifiers) in the text arithmetic evaluates. */
  evaluated: string[];
  /** Variables given a value built from more than one value (`z=$x$y`, `z+=...`, `printf -v z`). */
  assembled: string[];
  /** Text arithmetic evaluates that joins values itself (`$(( $x$y ))`, `let "$*"`), if any. */
  joined: string | null;
}

/**
 * Expansions arithmetic text joins: one next to another or to a parenthesis
 * or backquote (`$x$y`, `${x}(`), or one that joins several (`$*`, `${a[@]}`).
 */
const JOINS = /(\$\w+|\$\{[^}]*\})[$(`]|\$[*@]|\$\{[*@]|\[[*@]\]\}/;

/** Whether arithmetic text joins values (a length, `${#a[@]}`, is a number). */
function joins(text: string): boolean {
  return JOINS.test(text.replace(/\$\{#[^}]*\}/g, "0"));
}

/** Node types whose text bash evaluates as arithmetic. */
const ARITHMETIC = new Set(["arithmetic_expansion"]);

/** `[[ ]]` operators whose operands are evaluated as arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/** Expansions whose value is whole and plain: one parameter, as it is. */
const PLAIN = new Set(["simple_expansion"]);

/** Node types whose value is a number or the output of a program (known only when it runs). */
const OPAQUE = new Set(["arithmetic_expansion", "command_substitution", "process_substitution"]);

/** The names arithmetic evaluates and the variables built from pieces, in a parsed line. */
export function arithmeticNames(root: SyntaxNode): ArithmeticNames {
  const found: ArithmeticNames = { evaluated: [], assembled: [], joined: null };
  const evaluate = (text: string) => {
    found.evaluated.push(...identifiers(text));
    if (found.joined === null && joins(text)) found.joined = text;
  };
  const visit = (node: SyntaxNode) => {
    const type = node.type;
    if (type === "c_style_for_statement") {
      // The `((...))` before the body.
      const body = node.childForFieldName("body");
      evaluate(node.text.slice(0, body === null ? undefined : body.startIndex - node.startIndex));
    } else if (
      ARITHMETIC.has(type) || (type === "compound_statement" && node.text.startsWith("(("))
    ) {
      evaluate(node.text);
    } else if (type === "subscript") {
      evaluate(node.text.slice(node.text.indexOf("[")));
    } else if (type === "test_operator" && ARITHMETIC_TESTS.has(node.text)) {
      evaluate(node.parent?.text ?? "");
    } else if (type === "expansion") {
      // `${s:OFFSET:LENGTH}` evaluates OFFSET and LENGTH; `${z:=VALUE}` assigns z.
      const offset = /^\$\{[^}:]*:([^-=?+][^]*)$/.exec(node.text)?.[1];
      if (offset !== undefined) evaluate(offset);
      const assigned = /^\$\{(\w+):?=/.exec(node.text)?.[1];
      if (assigned !== undefined && node.namedChildren.slice(1).some((c) => c && built(c))) {
        found.assembled.push(assigned);
      }
    } else if (type === "variable_assignment") {
      const name = node.childForFieldName("name");
      const value = node.childForFieldName("value");
      const base = name?.type === "subscript" ? name.namedChild(0)?.text : name?.text;
      const append = name !== null && node.text.slice(name.text.length).startsWith("+=");
      if (base !== undefined && (append || (value !== null && built(value)))) {
        found.assembled.push(base);
      }
    } else if (type === "declaration_command") {
      // `declare -i z`: every later assignment to z is evaluated.
      if (node.namedChildren.some((c) => c?.type === "word" && /^[-+]\w*i/.test(c.text))) {
        for (const child of node.namedChildren) {
          if (child?.type === "variable_name" || child?.type === "word") evaluate(child.text);
          else if (child?.type === "variable_assignment") {
            evaluate(child.childForFieldName("name")?.text ?? "");
          }
        }
      }
    } else if (type === "for_statement") {
      const values = node.childrenForFieldName("value");
      const name = node.childForFieldName("variable")?.text;
      if (name !== undefined && values.some((v) => v !== null && built(v))) {
        found.assembled.push(name);
      }
    } else if (type === "command") command(node, found);
    else if (type === "redirected_statement") readDocument(node, found);
    for (const child of node.namedChildren) if (child !== null) visit(child);
  };
  visit(root);
  // A subscript anywhere, quoted too: bash evaluates it wherever it takes a
  // variable's name (`[[ -v b[z] ]]`, `read 'b[z]'`, `printf -v 'b[z]'`).
  for (const subscript of root.text.matchAll(/[A-Za-z_]\w*\[([^\]]*)\]/g)) evaluate(subscript[1]);
  return found;
}

/** Builtins that set the variables their words name from their input. */
const READERS = new Set(["read", "mapfile", "readarray"]);

/** `let EXPR`, `printf -v NAME`, `read NAME <<< "$x$y"`. */
function command(node: SyntaxNode, found: ArithmeticNames): void {
  const words = node.namedChildren.filter((c): c is SyntaxNode =>
    c !== null && c.type !== "variable_assignment" && !c.type.endsWith("redirect")
  ).map((c) => c.text);
  const name = words.findIndex((w) => w !== "builtin" && w !== "command");
  const program = words[name];
  if (program === "let") {
    const text = words.slice(name + 1).join(" ");
    found.evaluated.push(...identifiers(text));
    if (found.joined === null && joins(text)) found.joined = text;
  }
  const variable = words.findIndex((w, i) => i > name && /^-[a-zA-Z]*v$/.test(w));
  if ((program === "printf" || program === "print") && variable > 0) {
    found.assembled.push(...identifiers(words[variable + 1] ?? ""));
  }
  if (READERS.has(program ?? "")) {
    const fed = node.namedChildren.some((c) =>
      c?.type === "herestring_redirect" && c.namedChildren.some((v) => v !== null && built(v))
    );
    if (fed) found.assembled.push(...words.slice(name + 1).filter((w) => !/^-/.test(w)));
  }
}

/** `read z <<EOF` with expansions in the document: what z is given is put together. */
function readDocument(node: SyntaxNode, found: ArithmeticNames): void {
  const body = node.childForFieldName("body");
  if (body?.type !== "command") return;
  const name = body.childForFieldName("name")?.text ?? "";
  if (!READERS.has(name)) return;
  const fed = node.namedChildren.some((c) =>
    c?.type === "heredoc_redirect" && /\$/.test(c.text) && !/^<<-?\s*["'\\]/.test(c.text)
  );
  if (!fed) return;
  for (const word of body.namedChildren) {
    if (word !== null && word.type !== "command_name" && !/^-/.test(word.text)) {
      found.assembled.push(word.text);
    }
  }
}

/**
 * Whether a value node is put together from more than one value, one of
 * them a parameter (`$x$y`, `"a[$x"`, `${x/a/b}`); a single plain expansion
 * (`$x`), a number (`$((n+1))`) or a program's output is not.
 */
function built(node: SyntaxNode): boolean {
  if (OPAQUE.has(node.type)) return false;
  // `$*` and `$@` join the positional parameters (with IFS's first character).
  if (PLAIN.has(node.type)) return /^\$[*@]$/.test(node.text);
  if (node.type === "expansion") return !/^\$\{\w+\}$/.test(node.text);
  const parts = node.namedChildren.filter((c): c is SyntaxNode => c !== null);
  if (node.type === "array") return parts.some(built);
  const expansions = parts.filter((c) => PLAIN.has(c.type) || c.type === "expansion");
  if (expansions.some(built)) return true;
  if (expansions.length === 0) return parts.some(built);
  // Text beside the expansion: a literal piece, or a quoted one (`"a[$x"` reads as one string).
  return parts.length > 1 || node.text !== expansions[0].text &&
      node.text !== `"${expansions[0].text}"`;
}

/** The identifiers in a text (names arithmetic would look up). */
export function identifiers(text: string): string[] {
  return text.match(/[A-Za-z_]\w*/g) ?? [];
}

/**
 * Every name arithmetic may evaluate: those it names, and the names in their
 * values (`w=z; echo $((w))` evaluates z too). A name whose value the line
 * does not give (read from input, set at run time) may hold any text the
 * line feeds (`read r <<< z`), so the names in those are added.
 * @param values the texts the line sets or feeds (assignments, here-strings, `for` lists)
 */
export function evaluatedNames(
  names: string[],
  variables: Map<string, (string | null)[]>,
  values: { text: string; dynamic: boolean }[],
): Set<string> {
  const found = new Set<string>();
  const pending = [...names];
  let fed = false;
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (found.has(name)) continue;
    found.add(name);
    const given = variables.get(name);
    if (given === undefined || given.includes(null)) {
      if (fed) continue;
      fed = true;
      for (const value of values) if (!value.dynamic) pending.push(...identifiers(value.text));
    }
    for (const value of given ?? []) if (value !== null) pending.push(...identifiers(value));
  }
  return found;
}

/** Quoted text shaped as an array subscript holding a substitution (`a[$(cmd)]`). */
const SUBSCRIPT = /\[[^\]]*(\$\(|`)/;

/** A quoted text with substitutions, where the line holds it. */
export interface QuotedText {
  text: string;
  via: string[];
  depth: number;
}

/**
 * What a line's arithmetic may evaluate, gathered from each text of the line
 * (at any depth) as it is read, and judged when the whole line is read.
 */
export class LineArithmetic {
  /** Some part of the line evaluates arithmetic. */
  evaluates = false;
  /** Quoted text with substitutions, run if arithmetic evaluates it. */
  readonly #quoted: QuotedText[] = [];
  /** Names arithmetic evaluates in the line, at any depth. */
  readonly #evaluated: string[] = [];
  /** Variables the line gives a value built from several values, at any depth. */
  readonly #assembled: { name: string; via: string[] }[] = [];
  #builtChecked = false;

  /**
   * Reads the names a parsed text evaluates and the variables it builds;
   * returns why it cannot be checked when arithmetic joins values itself.
   */
  read(root: SyntaxNode, via: string[]): string | null {
    const names = arithmeticNames(root);
    this.#evaluated.push(...names.evaluated);
    this.#assembled.push(...names.assembled.map((name) => ({ name, via })));
    if (names.joined === null) return null;
    return `arithmetic evaluates "${names.joined}", which joins several values: a subscript with a substitution may form where they meet, which cannot be checked`;
  }

  /** Keeps quoted texts with substitutions, checked when the line ends. */
  quote(quoted: { text: string; via: string[] }[], depth: number): void {
    this.#quoted.push(...quoted.map((q) => ({ ...q, depth })));
  }

  /** Quoted texts are waiting to be checked (checking others turned them up). */
  get pending(): boolean {
    return this.#quoted.length > 0;
  }

  /**
   * Once the line evaluates arithmetic (checked once): a value it gives a
   * variable that holds a substitution (`z=a[\$'(touch m)]'`, one word of
   * several quoted pieces) is kept to be checked as run; returns a variable
   * arithmetic evaluates whose value the line builds from several values
   * (`z=$x$y; echo $((z))`), unknown as a subscript with a substitution may
   * form only where the pieces meet.
   */
  builtValues(line: Pick<Analysis, "variables" | "values">): Analysis["unknowns"][number] | null {
    if (!(this.evaluates || this.#evaluated.length > 0) || this.#builtChecked) return null;
    this.#builtChecked = true;
    for (const values of line.variables.values()) {
      for (const text of values) {
        if (text !== null && /\$\(|`/.test(text)) this.#quoted.push({ text, via: [], depth: 0 });
      }
    }
    const evaluated = evaluatedNames(this.#evaluated, line.variables, line.values);
    const built = this.#assembled.find(({ name }) => evaluated.has(name));
    if (built === undefined) return null;
    return {
      reason:
        `arithmetic evaluates "${built.name}", whose value the line builds from several values: a subscript in it may run a substitution, which cannot be checked`,
      via: built.via,
    };
  }

  /**
   * The quoted texts to check as run now: when the line evaluates arithmetic
   * anywhere, every one; else those shaped as a subscript holding a
   * substitution (bash evaluates a subscript wherever a variable name is taken).
   */
  takeQuoted(): QuotedText[] {
    return this.#quoted.splice(0).filter(({ text }) => this.evaluates || SUBSCRIPT.test(text));
  }
}
