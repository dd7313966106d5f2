/**
 * The shell parser: tree-sitter's bash grammar, run as WebAssembly
 * (`web-tree-sitter` + `tree-sitter-bash`). Loaded once, on first use, so
 * start-up does not pay for it. The two `.wasm` files come from the compiled
 * executable when termbridge runs as one (the Makefile embeds them), else from
 * `node_modules`.
 * @module
 */

import { PolicyError } from "./errors.ts";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Node, Parser, Tree } from "web-tree-sitter";
import { runtime } from "../runtime/mod.ts";

export type { Node as SyntaxNode } from "web-tree-sitter";

/** A loaded parser: parses a line into its syntax tree's root node. */
export interface ShellParser {
  /**
   * Parses `source` as bash; `hasError` tells whether some of it could not be parsed.
   * The node is valid until four other texts have been parsed; parsing the same text again
   * gives the same tree without parsing it again.
   */
  parse(source: string): Node;
  /** How long loading took, in milliseconds. */
  loadMs: number;
}

let loading: Promise<ShellParser> | null = null;
let loaded: ShellParser | null = null;
let parses = 0;

/** How many texts were parsed since start-up (a text parsed again from the recent trees is not counted). */
export function shellParses(): number {
  return parses;
}

/** The parser if it is already loaded, else null (never starts loading). */
export function loadedShellParser(): ShellParser | null {
  return loaded;
}

/**
 * The shell parser, loading it on the first call.
 * @throws {Error} when the WebAssembly files cannot be found or loaded
 */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= load().then((parser) => loaded = parser, (error) => {
    loading = null;
    throw new PolicyError(`Cannot load the shell parser (tree-sitter-bash): ${error.message}`);
  });
  return loading;
}

async function load(): Promise<ShellParser> {
  const started = performance.now();
  const { Language, Parser } = await import("web-tree-sitter");
  await Parser.init({
    wasmBinary: await wasmFile("tree-sitter.wasm", "web-tree-sitter/tree-sitter.wasm"),
  });
  const bash = await Language.load(
    await wasmFile("tree-sitter-bash.wasm", "tree-sitter-bash/tree-sitter-bash.wasm"),
  );
  const parser: Parser = new Parser();
  parser.setLanguage(bash);
  // The last few trees, by their text: one line is checked several times in a row (exec's own
  // check, then the typed-line check's tamper, completeness and policy checks), and parsed once.
  // The same text always gives the same tree, and nothing edits a tree, so sharing it is exact.
  const recent = new Map<string, Tree>();
  return {
    loadMs: performance.now() - started,
    parse(source) {
      const known = recent.get(source);
      if (known !== undefined) {
        recent.delete(source); // Most recently used last.
        recent.set(source, known);
        return known.rootNode;
      }
      const tree = parser.parse(source);
      parses++;
      if (tree === null) {
        throw new PolicyError("Cannot parse the command line: the parser gave no tree");
      }
      recent.set(source, tree);
      for (const [text, old] of recent) {
        if (recent.size <= RECENT_TREES) break;
        old.delete(); // Trees live in WebAssembly memory: free the oldest.
        recent.delete(text);
      }
      return tree.rootNode;
    },
  };
}

/** How many parsed trees are kept for a text parsed again. */
const RECENT_TREES = 4;

/** A `.wasm` file: embedded in the executable, else from the package that ships it. */
async function wasmFile(name: string, specifier: string): Promise<Uint8Array> {
  const embedded = await runtime.embeddedFile(name);
  if (embedded !== null) return embedded;
  return new Uint8Array(await readFile(fileURLToPath(import.meta.resolve(specifier))));
}
