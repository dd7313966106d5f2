/**
 * Running `termbridge acp --json` against the scripted agents of
 * `tests/acp/agents/` and reading what it printed.
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../../lib/runtime/mod.ts";
import { isBinaryCurrent } from "../built_binary.ts";
import { scriptArgv, termbridgeArgv } from "../helpers.ts";
import { REPORT_PREFIX } from "./agents/kit.ts";
import { Child, type Finished } from "./child.ts";

/** Argv of a test agent (`"terminal_agent"`) run with the tests' runtime. */
export function agentArgv(name: string): string[] {
  return scriptArgv(new URL(`./agents/${name}.ts`, import.meta.url).pathname);
}

/** Argv of the demo agent of `examples/`. */
export function demoAgentArgv(): string[] {
  return scriptArgv(new URL("../../examples/demo_agent.ts", import.meta.url).pathname);
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Argv of the termbridge under test: `$TERMBRIDGE_BIN` when set; else the
 * compiled `dist/termbridge` when it is newer than every source file (what
 * users run); else this runtime running main.ts.
 */
export function termbridgeUnderTest(): string[] {
  const override = runtime.env().TERMBRIDGE_BIN;
  if (override) return [resolve(override)];
  const binary = join(ROOT, "dist", "termbridge");
  return isBinaryCurrent(ROOT, binary) ? [binary] : termbridgeArgv();
}

/** How to run `termbridge acp`. */
export interface AcpOptions {
  /** The session's directory (`--cwd`). */
  cwd: string;
  /** Each one a `--prompt`. */
  prompts?: string[];
  /** More flags (`--yes`, `--no`, `--auth ID`...). */
  flags?: string[];
  /** `--json` unless false. */
  json?: boolean;
  /** More environment for termbridge (and so for the agent it starts). */
  env?: Record<string, string>;
}

/** Argv of `termbridge acp [--json] FLAGS --cwd DIR -p ... -- AGENT`. */
export function acpArgv(agent: string[], options: AcpOptions): string[] {
  const prompts = (options.prompts ?? []).flatMap((prompt) => ["--prompt", prompt]);
  return [
    ...termbridgeUnderTest(),
    "acp",
    ...(options.json === false ? [] : ["--json"]),
    ...(options.flags ?? []),
    "--cwd",
    options.cwd,
    ...prompts,
    "--",
    ...agent,
  ];
}

/** Starts `termbridge acp [--json] FLAGS --cwd DIR -p ... -- AGENT`. */
export function startAcp(agent: string[], options: AcpOptions): Child {
  return Child.start(acpArgv(agent, options), { env: options.env });
}

/** What a finished `acp --json` run printed, parsed. */
export interface AcpResult extends Finished {
  /** Every stdout line, parsed (the test fails if one is not JSON). */
  events: Record<string, unknown>[];
}

/**
 * Runs `termbridge acp` to its end; `stdin` is written then closed (closed
 * at once without it).
 */
export async function runAcp(
  agent: string[],
  options: AcpOptions & { stdin?: string },
): Promise<AcpResult> {
  const child = startAcp(agent, options);
  try {
    if (options.stdin !== undefined) await child.write(options.stdin);
    await child.closeStdin();
    const finished = await child.finished();
    return { ...finished, events: options.json === false ? [] : parseEvents(child.lines) };
  } finally {
    await child.dispose();
  }
}

/**
 * Parses JSON lines.
 * @throws {Error} naming the first line that is not a JSON object
 */
export function parseEvents(lines: readonly string[]): Record<string, unknown>[] {
  return lines.filter((line) => line !== "").map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      throw new Error(`Expected only JSON lines on stdout, got: ${line.slice(0, 300)}`);
    }
  });
}

/** Every object nested anywhere in `value` (itself included) for which `match` is true. */
export function findDeep(
  value: unknown,
  match: (object: Record<string, unknown>) => boolean,
): Record<string, unknown>[] {
  if (value === null || typeof value !== "object") return [];
  const found = Array.isArray(value) ? [] : match(value as Record<string, unknown>) ? [value] : [];
  const children = Object.values(value as Record<string, unknown>);
  return [
    ...found as Record<string, unknown>[],
    ...children.flatMap((child) => findDeep(child, match)),
  ];
}

/** Every string nested anywhere in `value`. */
function strings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value === null || typeof value !== "object") return [];
  return Object.values(value as Record<string, unknown>).flatMap(strings);
}

/**
 * The agents' reports (see `agents/kit.ts`) found in the events, by name;
 * the first one wins when a renderer repeats text.
 */
export function reportsOf(events: unknown[]): Map<string, unknown> {
  const reports = new Map<string, unknown>();
  for (const text of strings(events)) {
    for (const part of text.split(REPORT_PREFIX).slice(1)) {
      try {
        const { name, value } = JSON.parse(part);
        if (!reports.has(name)) reports.set(name, value);
      } catch {
        // Text that merely contains the prefix.
      }
    }
  }
  return reports;
}

/** The text of every agent_message_chunk, joined in order. */
export function agentText(events: Record<string, unknown>[]): string {
  return findDeep(events, (o) => o.sessionUpdate === "agent_message_chunk")
    .map((update) => (update.content as { text?: string }).text ?? "")
    .join("");
}

/** Runs `body` with a new temporary directory, removed afterwards. */
export async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "tb-acp-"));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
