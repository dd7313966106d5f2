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
import type { Node, Parser } from "web-tree-sitter";
import { runtime } from "../runtime/mod.ts";

export type { Node as SyntaxNode } from "web-tree-sitter";

/** A loaded parser: parses a line into its syntax tree's root node. */
export interface ShellParser {
  /**
   * Parses `source` as bash; `hasError` tells whether some of it could not be parsed.
   * The node is valid until the next `parse`.
   */
  parse(source: string): Node;
  /** How long loading took, in milliseconds. */
  loadMs: number;
}

let loading: Promise<ShellParser> | null = null;
let loaded: ShellParser | null = null;

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
  let previous: { delete(): void } | null = null;
  return {
    loadMs: performance.now() - started,
    parse(source) {
      previous?.delete(); // Trees live in WebAssembly memory: free the last one.
      const tree = parser.parse(source);
      if (tree === null) {
        throw new PolicyError("Cannot parse the command line: the parser gave no tree");
      }
      previous = tree;
      return tree.rootNode;
    },
  };
}

/** A `.wasm` file: embedded in the executable, else from the package that ships it. */
async function wasmFile(name: string, specifier: string): Promise<Uint8Array> {
  const embedded = await runtime.embeddedFile(name);
  if (embedded !== null) return embedded;
  return new Uint8Array(await readFile(fileURLToPath(import.meta.resolve(specifier))));
}
