/**
 * The lines the human renderers print: tool calls, plans, diffs, terminal
 * summaries, permission decisions and conversation events. Pure functions of
 * their input and a {@linkcode Style}; agent text is sanitized here.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { Style } from "./style.ts";
import { sanitize } from "./text.ts";
import type { ConversationEvent, FileActivity, PermissionDecision } from "./types.ts";

/** How a terminal ended, as a summary line reports it. */
export interface ExitInfo {
  exitCode: number | null;
  signal: string | null;
  /** Time from start to exit, when known. */
  durationMs?: number;
  /**
   * The status of the tool call that ran it, for a `_meta` terminal whose
   * exit the agent never reported (neither code nor signal known).
   */
  status?: "completed" | "failed" | "unreported";
}

/** Most lines of a diff shown before "... N more lines". */
export const DIFF_LINES = 40;

/** Most lines of a tool call's text content shown. */
export const TOOL_TEXT_LINES = 8;

/** A duration for people: `"0.4s"`, `"12.0s"`, `"3m05s"`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) ms = 0;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}

/** `"exit 0 in 1.2s"`, `"killed by SIGTERM after 2.0s"`, `"ended after 1.0s"`. */
export function formatExit(exit: ExitInfo): string {
  const took = exit.durationMs === undefined ? undefined : formatDuration(exit.durationMs);
  if (exit.exitCode !== null) return `exit ${exit.exitCode}${took ? ` in ${took}` : ""}`;
  if (exit.signal !== null) return `killed by ${exit.signal}${took ? ` after ${took}` : ""}`;
  if (exit.status === "unreported") {
    return `no exit reported: the agent stopped${took ? ` after ${took}` : ""}`;
  }
  return `${exit.status ?? "ended"}${took ? ` after ${took}` : ""}`;
}

/** Whether an exit counts as a success (exit code 0, or a tool call that completed). */
export function succeeded(exit: ExitInfo): boolean {
  return exit.exitCode === 0 ||
    (exit.exitCode === null && exit.signal === null && exit.status === "completed");
}

/** `"▸ term-3 $ make"`: a terminal no tool call shows, as it starts. */
export function formatBriefStart(style: Style, id: string, command?: string): string {
  const what = command === undefined ? "" : ` $ ${sanitize(command)}`;
  return `  ${style.dim("▸")} ${style.bold(sanitize(id))}${style.dim(what)}`;
}

/** `"▪ term-3 exit 0 in 1.2s  $ make"`: a terminal no tool call shows, as it ends. */
export function formatBriefExit(
  style: Style,
  id: string,
  exit: ExitInfo,
  command?: string,
): string {
  const paint = succeeded(exit) ? style.green : style.red;
  const what = command === undefined ? "" : `  $ ${sanitize(command)}`;
  return `  ${paint("▪")} ${style.bold(sanitize(id))} ${paint(formatExit(exit))}${style.dim(what)}`;
}

const STATUS_WORDS: Record<string, string> = {
  pending: "pending",
  in_progress: "running",
  completed: "completed",
  failed: "failed",
};

/** What a tool call line shows. */
export interface ToolCallSummary {
  title: string;
  kind?: string | null;
  status?: string | null;
}

/** `"● Run tests (execute) running"`, the bullet coloured by status. */
export function formatToolCall(style: Style, call: ToolCallSummary): string {
  const status = call.status ?? "pending";
  const word = STATUS_WORDS[status] ?? sanitize(String(status));
  const paint = status === "completed"
    ? style.green
    : status === "failed"
    ? style.red
    : style.yellow;
  const kind = call.kind ? ` ${style.dim(`(${sanitize(String(call.kind))})`)}` : "";
  return `${paint("●")} ${style.bold(sanitize(call.title))}${kind} ${paint(word)}`;
}

/** The whole plan as a checklist: `[x]` done, `[~]` in progress, `[ ]` pending. */
export function formatPlan(style: Style, entries: readonly acp.PlanEntry[]): string[] {
  const lines = [style.bold("Plan:")];
  for (const entry of entries) {
    const content = sanitize(String(entry?.content ?? "")).replace(/\n/g, " ");
    if (entry?.status === "completed") lines.push(`  ${style.green("[x]")} ${style.dim(content)}`);
    else if (entry?.status === "in_progress") lines.push(`  ${style.yellow("[~]")} ${content}`);
    else lines.push(`  [ ] ${content}`);
  }
  return lines;
}

function splitLines(text: string): string[] {
  const lines = sanitize(text).split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * A short unified-style diff: the path, then the changed region (common
 * leading and trailing lines left out) as `-` and `+` lines, at most
 * `maxLines` of them. A new file shows only `+` lines.
 */
export function formatDiff(style: Style, diff: acp.Diff, maxLines = DIFF_LINES): string[] {
  const path = sanitize(String(diff.path ?? "?"));
  const created = diff.oldText === undefined || diff.oldText === null;
  const before = created ? [] : splitLines(String(diff.oldText));
  const after = typeof diff.newText === "string" && diff.newText !== ""
    ? splitLines(diff.newText)
    : [];
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head && tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  ) tail++;
  const removed = before.slice(head, before.length - tail);
  const added = after.slice(head, after.length - tail);
  const lines = [
    `  ${style.cyan("✎")} ${style.bold(path)}${created ? style.dim(" (new file)") : ""}`,
  ];
  if (removed.length === 0 && added.length === 0) return [...lines, style.dim("    (no changes)")];
  if (!created) {
    lines.push(style.cyan(`    @@ -${head + 1},${removed.length} +${head + 1},${added.length} @@`));
  }
  const shownRemoved = Math.min(removed.length, Math.max(maxLines - added.length, maxLines >> 1));
  const shownAdded = Math.min(added.length, maxLines - shownRemoved);
  for (const line of removed.slice(0, shownRemoved)) lines.push(style.red(`    - ${line}`));
  for (const line of added.slice(0, shownAdded)) lines.push(style.green(`    + ${line}`));
  const more = removed.length + added.length - shownRemoved - shownAdded;
  if (more > 0) lines.push(style.dim(`    ... ${more} more line${more === 1 ? "" : "s"}`));
  return lines;
}

/** A content block as text: its text, or a short bracketed note for images, audio and resources. */
export function contentText(block: unknown): string {
  if (typeof block !== "object" || block === null) return "";
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case "text":
      return typeof b.text === "string" ? sanitize(b.text) : "";
    case "image":
      return "[image]";
    case "audio":
      return "[audio]";
    case "resource_link":
      return `[link: ${sanitize(String(b.title ?? b.name ?? ""))} ${
        sanitize(String(b.uri ?? ""))
      }]`;
    case "resource": {
      const resource = (b.resource ?? {}) as Record<string, unknown>;
      return `[resource: ${sanitize(String(resource.uri ?? ""))}]`;
    }
    default:
      return "";
  }
}

/** A tool call's text content, indented and dimmed, at most `maxLines` lines. */
export function formatToolText(style: Style, text: string, maxLines = TOOL_TEXT_LINES): string[] {
  const lines = splitLines(text);
  if (lines.length === 1 && lines[0] === "") return [];
  const shown = lines.slice(0, maxLines).map((line) => style.dim(`    ${line}`));
  const more = lines.length - maxLines;
  if (more > 0) shown.push(style.dim(`    ... ${more} more line${more === 1 ? "" : "s"}`));
  return shown;
}

/** `"? Permission: Edit a.ts -> Allow once (by --yes)"`. */
export function formatPermission(
  style: Style,
  decision: PermissionDecision,
  title: string,
): string {
  const choice = decision.outcome === "selected" && decision.option !== undefined
    ? sanitize(String(decision.option.name))
    : "cancelled";
  const rejected = decision.option?.kind === "reject_once" ||
    decision.option?.kind === "reject_always";
  const paint = decision.outcome !== "selected" || rejected ? style.red : style.green;
  const note = decision.note === undefined ? "" : `: ${sanitize(decision.note)}`;
  return `${style.yellow("?")} Permission: ${sanitize(title)} -> ${paint(choice)} ${
    style.dim(`(by ${decision.source}${note})`)
  }`;
}

/** The lines of a conversation event. */
export function formatEvent(style: Style, event: ConversationEvent): string[] {
  switch (event.type) {
    case "agent": {
      const version = event.version ? ` ${sanitize(event.version)}` : "";
      return [
        style.dim(`Agent: ${sanitize(event.name)}${version} (ACP v${event.protocolVersion})`),
        ...event.enclosure === undefined ? [] : [style.dim(`  runs ${sanitize(event.enclosure)}`)],
      ];
    }
    case "session":
      return [style.dim(`Session ${sanitize(event.sessionId)} in ${sanitize(event.cwd)}`)];
    case "prompt":
      return splitLines(event.text).map((line) => style.bold(`> ${line}`));
    case "stop":
      return [style.dim(`■ Turn ended: ${sanitize(event.stopReason)}`)];
    case "file_read":
      return [formatFileRead(style, event)];
    case "file_written":
      if (event.error !== undefined) {
        return [
          `${style.red("✗")} Write ${sanitize(event.path)} failed: ${
            style.red(sanitize(event.error))
          }`,
        ];
      }
      return [
        `${style.cyan("✎")} Wrote ${sanitize(event.path)} ${style.dim(`(${event.bytes} bytes)`)}`,
      ];
    case "notice":
      return splitLines(event.message).map((line) => style.yellow(`! ${line}`));
    case "warning":
      return splitLines(event.message).map((line, i) =>
        style.yellow(i === 0 ? `Warning: ${line}` : `  ${line}`)
      );
    case "error":
      return splitLines(event.message).map((line) => style.red(`Error: ${line}`));
    default:
      return [];
  }
}

/** `"↧ Read /a/b.ts lines 10-29 (20 lines, 512 bytes)"`, or the error of a failed read. */
function formatFileRead(style: Style, event: Extract<FileActivity, { type: "file_read" }>): string {
  const first = event.line ?? 1;
  const range = event.limit !== undefined
    ? ` lines ${first}-${first + event.limit - 1}`
    : event.line !== undefined
    ? ` from line ${first}`
    : "";
  const what = `${sanitize(event.path)}${range}`;
  if (event.error !== undefined) {
    return `${style.red("✗")} Read ${what} failed: ${style.red(sanitize(event.error))}`;
  }
  const lines = `${event.lines} line${event.lines === 1 ? "" : "s"}`;
  return `${style.cyan("↧")} Read ${what} ${style.dim(`(${lines}, ${event.bytes} bytes)`)}`;
}
