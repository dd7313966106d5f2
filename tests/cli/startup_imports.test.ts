/**
 * A short-lived command (`--version`, `type`, `screen`, the other server
 * subcommands) starts in about a compiled hello world's time only while it
 * loads nothing it does not use (issue 16): the modules main.ts and the
 * subcommands' client import statically must not reach the whole runtime
 * (PTYs, the reader, servers, libc), the terminal emulator, the policy or the
 * sessions. Dynamic `import()`s are where the rest is loaded; this follows
 * only static imports, as the bundle's start-up does.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "../harness.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** Static value imports and re-exports of a module (not `import type`, not `import()`). */
function staticImports(file: string): string[] {
  const source = readFileSync(file, "utf8");
  const found: string[] = [];
  const statement = /^(?:import|export)\s+(?!type\b)(?:[^;]*?\sfrom\s+)?"([^"]+)";/gms;
  for (const match of source.matchAll(statement)) found.push(match[1]);
  return found;
}

/** Every module reached from `entries` through static imports: repository paths and `node:` names. */
function closure(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = entries.map((entry) => join(ROOT, entry));
  while (queue.length > 0) {
    const file = queue.pop()!;
    const name = file.startsWith(ROOT) ? relative(ROOT, file) : file;
    if (seen.has(name)) continue;
    seen.add(name);
    if (!file.startsWith(ROOT)) continue;
    for (const specifier of staticImports(file)) {
      queue.push(specifier.startsWith(".") ? resolve(dirname(file), specifier) : specifier);
    }
  }
  return seen;
}

const HEAVY = [
  "lib/runtime/mod.ts",
  "lib/runtime/pty.ts",
  "lib/runtime/pty_reader.ts",
  "lib/runtime/bun.ts",
  "lib/runtime/deno.ts",
  "lib/terminal/emulator.ts",
  "lib/terminal/terminal.ts",
  "lib/policy/engine.ts",
  "lib/sessions/session.ts",
  "node:fs",
  "node:net",
  "node:tty",
];

describe("start-up: what a short-lived command loads", () => {
  it("main.ts and the subcommands' client reach none of the heavy modules statically", () => {
    // core.ts picks its runtime with a top-level `await import()`: both are loaded at start-up.
    const reached = closure([
      "main.ts",
      "lib/server/commands.ts",
      "lib/runtime/bun_core.ts",
      "lib/runtime/deno_core.ts",
    ]);
    assert.ok(reached.has("lib/runtime/core.ts"), "the walk follows imports (it finds core.ts)");
    assert.ok(reached.has("lib/server/client.ts"), "the walk follows imports (it finds client.ts)");
    assert.deepEqual(HEAVY.filter((module) => reached.has(module)), []);
  });

  it("the walk sees a heavy module where one is imported (the check can fail)", () => {
    assert.ok(closure(["lib/runtime/bun.ts"]).has("lib/runtime/pty.ts"));
    assert.ok(closure(["lib/acp/serve.ts"]).has("lib/terminal/emulator.ts"));
  });
});
