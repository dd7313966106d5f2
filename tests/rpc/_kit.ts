/**
 * A raw line client of termbridge's JSON-RPC loops (`serve`, `mcp`) for the
 * framing tests: lines written as given, answers matched on their raw text
 * (so ids can be checked digit for digit), the built binary when it is current.
 * @module
 */

import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../../lib/runtime/mod.ts";
import { isBinaryCurrent } from "../built_binary.ts";
import { termbridgeArgv } from "../helpers.ts";
import { Child } from "../acp/child.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * `$TERMBRIDGE_BIN` when set; else `dist/termbridge` when it is newer than
 * every source file; else this runtime running main.ts.
 */
export function termbridge(): string[] {
  const override = runtime.env().TERMBRIDGE_BIN;
  if (override) return [resolve(override)];
  const binary = join(ROOT, "dist", "termbridge");
  return isBinaryCurrent(ROOT, binary) ? [binary] : termbridgeArgv();
}

/** The MCP handshake's first request (id 0). */
export const MCP_INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

/** A request line with the id written exactly as `id` (raw JSON text). */
export function request(id: string, method: string, params?: unknown): string {
  const rest = params === undefined ? "" : `,"params":${JSON.stringify(params)}`;
  return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)}${rest}}`;
}

/** A termbridge mode spoken to with raw lines; always `dispose()` it. */
export class RawRpc {
  readonly child: Child;

  private constructor(child: Child) {
    this.child = child;
  }

  /** Starts `termbridge MODE ARGS...`. */
  static start(mode: "serve" | "mcp", args: string[] = [], env?: Record<string, string>): RawRpc {
    return new RawRpc(Child.start([...termbridge(), mode, ...args], { env }));
  }

  /** Writes lines (a newline after each) in one write. */
  send(...lines: string[]): Promise<void> {
    return this.child.write(lines.map((line) => `${line}\n`).join(""));
  }

  /** The first answer line whose raw id text is `id` (`null` for id null), parsed. */
  async answer(id: string, timeoutMs = 30_000): Promise<AnswerLine> {
    const marker = new RegExp(`"id":${id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[,}]`);
    const line = await this.child.waitForLine(
      (line) => marker.test(line) && /"(result|error)":/.test(line),
      `the answer with id ${id}`,
      timeoutMs,
    );
    return { raw: line, ...JSON.parse(line) };
  }

  /** Every answer line so far with `"id":null`, parsed. */
  nullIdAnswers(): AnswerLine[] {
    return this.child.lines.filter((line) => line.includes(`"id":null`)).map((raw) => ({
      raw,
      ...JSON.parse(raw),
    }));
  }

  /** Closes stdin (kills after a grace) and waits for the end. */
  dispose(): Promise<void> {
    return this.child.dispose();
  }
}

/** An answer line: its raw text and its members. */
export interface AnswerLine {
  raw: string;
  id: unknown;
  // deno-lint-ignore no-explicit-any
  result?: any;
  error?: { code: number; message: string; data?: unknown };
}
