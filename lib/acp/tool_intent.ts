/**
 * What an agent's tool call says it will do, read from its `rawInput` (not
 * its title, which is for people): the commands it runs (a shell line, or
 * an argv array as codex-acp sends) and the files it reads or writes. Used
 * to check a permission request against the policy and to audit what the
 * agent reports having run.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import { isAbsolute, resolve } from "node:path";

/** A command a tool call runs: a line a shell runs, or a program and its arguments. */
export interface IntendedCommand {
  line?: string;
  argv?: string[];
  /** Its working directory, when the tool call names one. */
  cwd?: string;
}

/** A file a tool call reads or writes (absolute: relative paths are resolved against the cwd). */
export interface IntendedPath {
  access: "read" | "write";
  path: string;
  /** UTF-8 bytes it writes, when the tool call carries the content. */
  bytes?: number;
}

/** Everything a tool call says it will do; both lists empty when it says nothing checkable. */
export interface ToolIntent {
  /** The agent's own tool name when it reports one (`Bash`, `Write`...). */
  tool?: string;
  commands: IntendedCommand[];
  paths: IntendedPath[];
}

/** Keys of `rawInput` that name a file. */
const PATH_KEYS = ["file_path", "path", "notebook_path", "filePath", "filepath", "target_file"];
/** Tool kinds that change files. */
const WRITE_KINDS = new Set<string>(["edit", "delete", "move"]);
/** Tool kinds that read files. */
const READ_KINDS = new Set<string>(["read", "search"]);

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? value as Record<string, unknown>
    : undefined;
}

/** The tool name an adapter reports in `_meta` (claude-agent-acp: `_meta.claudeCode.toolName`). */
export function toolNameOf(toolCall: { _meta?: unknown }): string | undefined {
  const name = record(record(record(toolCall._meta)?.claudeCode))?.toolName;
  return typeof name === "string" ? name : undefined;
}

/** The command in a tool call's input: `command` (a line or an argv array) or `cmd`. */
export function commandOf(input: Record<string, unknown> | undefined): IntendedCommand | undefined {
  if (input === undefined) return undefined;
  const command = input.command ?? input.cmd;
  const cwdValue = input.cwd ?? input.workdir;
  const cwd = typeof cwdValue === "string" && cwdValue !== "" ? { cwd: cwdValue } : {};
  if (typeof command === "string" && command.trim() !== "") return { line: command, ...cwd };
  if (
    Array.isArray(command) && command.length > 0 && command.every((w) => typeof w === "string")
  ) {
    return { argv: command as string[], ...cwd };
  }
  return undefined;
}

function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

function contentBytes(input: Record<string, unknown>): number | undefined {
  const content = input.content ?? input.new_string ?? input.new_source;
  return typeof content === "string" ? new TextEncoder().encode(content).length : undefined;
}

/** The files a tool call reads or writes, from its input, its `changes` (codex patches) and its locations. */
function pathsOf(
  toolCall: acp.ToolCallUpdate,
  input: Record<string, unknown> | undefined,
  cwd: string,
): IntendedPath[] {
  const kind = toolCall.kind ?? "";
  const writes = WRITE_KINDS.has(kind) ||
    ["Write", "Edit", "MultiEdit", "NotebookEdit"].includes(toolNameOf(toolCall) ?? "");
  const access: "read" | "write" | undefined = writes
    ? "write"
    : READ_KINDS.has(kind)
    ? "read"
    : undefined;
  const found = new Map<string, IntendedPath>();
  const add = (path: unknown, as: "read" | "write" | undefined, bytes?: number) => {
    if (typeof path !== "string" || path === "" || as === undefined) return;
    const full = absolute(path, cwd);
    const key = `${as}:${full}`;
    if (!found.has(key)) {
      found.set(key, { access: as, path: full, ...(bytes === undefined ? {} : { bytes }) });
    }
  };
  if (input !== undefined) {
    for (const key of PATH_KEYS) add(input[key], access, writes ? contentBytes(input) : undefined);
    // codex-acp patches: `changes` maps each path to its change.
    const changes = record(input.changes);
    for (const path of Object.keys(changes ?? {})) add(path, "write");
  }
  for (const location of toolCall.locations ?? []) add(location.path, access);
  for (const root of searchRoots(toolNameOf(toolCall), input, cwd)) add(root, "read");
  return [...found.values()];
}

/**
 * What Claude's Grep and Glob read beyond a `path`: without one they search
 * the session's directory, and a Glob whose pattern is absolute
 * (`/etc/ssh/*.pub`) reads from the pattern's fixed part (`/etc/ssh`),
 * wherever `path` points.
 */
function searchRoots(
  tool: string | undefined,
  input: Record<string, unknown> | undefined,
  cwd: string,
): string[] {
  if ((tool !== "Grep" && tool !== "Glob") || input === undefined) return [];
  const roots = typeof input.path === "string" && input.path !== "" ? [] : [cwd];
  const pattern = input.pattern;
  if (tool === "Glob" && typeof pattern === "string" && isAbsolute(pattern)) {
    const fixed = pattern.split("/").findIndex((segment) => /[*?[{]/.test(segment));
    roots.push(fixed === -1 ? pattern : pattern.split("/").slice(0, fixed).join("/") || "/");
  }
  return roots;
}

/**
 * What `toolCall` says it will do. `cwd` is the session's directory, for
 * relative paths and commands that name none.
 */
export function toolIntent(toolCall: acp.ToolCallUpdate, cwd: string): ToolIntent {
  const input = record(toolCall.rawInput);
  const tool = toolNameOf(toolCall);
  const command = commandOf(input);
  const commandCwd = command?.cwd ?? cwd;
  return {
    ...(tool === undefined ? {} : { tool }),
    commands: command === undefined ? [] : [{ ...command, cwd: absolute(commandCwd, cwd) }],
    paths: pathsOf(toolCall, input, cwd),
  };
}
