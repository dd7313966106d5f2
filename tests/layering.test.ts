import { describe, it } from "./harness.ts";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { VERSION } from "../lib/cli/usage.ts";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

/**
 * Layers from the bottom; a module may import its own layer and those below.
 * The ground floor: the runtime shim, and the error base and actor type that
 * every room uses (lib/base). The safety rooms sit below the terminal core,
 * which they never import: policy, then config and audit, then the sandbox.
 */
const LAYERS: Record<string, number> = {
  runtime: 0,
  base: 0,
  jsonrpc: 1,
  policy: 1,
  config: 2,
  audit: 2,
  sandbox: 3,
  terminal: 4,
  safety: 4,
  cli: 5,
  service: 5,
  sessions: 6,
  console: 7,
  acp: 8,
  serve: 8,
  mcp: 8,
  repl: 8,
  script: 8,
  // The session server hosts front ends (serve's session methods, MCP, attach) over one set of sessions.
  server: 9,
  // The browser dashboard: one more client of the sessions, beside the server that hosts it.
  web: 9,
};

/** Front ends: thin, and never each other's clients. */
const FRONT_ENDS = new Set(["acp", "serve", "mcp", "repl", "script"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The lib folder a file belongs to (`terminal`), or undefined outside lib/. */
function area(path: string): string | undefined {
  const parts = relative(ROOT, path).split("/");
  return parts[0] === "lib" ? parts[1] : undefined;
}

function relativeImports(path: string): string[] {
  const source = readFileSync(path, "utf8");
  const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)].map((m) => m[1]);
  return specifiers.map((specifier) => resolve(dirname(path), specifier));
}

describe("layering", () => {
  const files = [join(ROOT, "main.ts"), ...sourceFiles(join(ROOT, "lib"))];

  it("layering: only lib/runtime touches Deno or Bun globals", () => {
    const offenders = files.filter((path) => {
      if (area(path) === "runtime") return false;
      const code = readFileSync(path, "utf8").replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, "");
      return /\b(Deno|Bun)\.[A-Za-z_]/.test(code);
    });
    assert.deepEqual(offenders.map((path) => relative(ROOT, path)), []);
  });

  it("layering: imports point down the layers and front ends stay apart", () => {
    const violations: string[] = [];
    for (const path of files) {
      const from = area(path);
      for (const target of relativeImports(path)) {
        const to = area(target);
        const where = `${relative(ROOT, path)} -> ${relative(ROOT, target)}`;
        if (relative(ROOT, target) === "main.ts") {
          violations.push(`${where}: nothing imports main.ts`);
        }
        if (from === undefined || to === undefined || from === to) continue;
        if (!(from in LAYERS) || !(to in LAYERS)) {
          violations.push(`${where}: unknown area, add it to LAYERS`);
        } else if (LAYERS[to] > LAYERS[from]) {
          violations.push(`${where}: imports upward`);
        } else if (FRONT_ENDS.has(from) && FRONT_ENDS.has(to)) {
          violations.push(`${where}: front ends must not import each other`);
        }
      }
    }
    assert.deepEqual(violations, []);
  });

  it("layering: the version in the code is package.json's", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    assert.equal(VERSION, pkg.version);
  });
});
