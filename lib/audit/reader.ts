/**
 * Reading the audit log back: every file (rotated ones first), filtered by
 * time, one line per event in words for people.
 * @module
 */

import { existsSync, readFileSync } from "node:fs";
import { ROTATE_KEEP } from "./log.ts";
import type { AuditRecord } from "./types.ts";

/** The log's files, oldest first. */
export function auditFiles(path: string): string[] {
  const rotated = Array.from({ length: ROTATE_KEEP }, (_, i) => `${path}.${ROTATE_KEEP - i}`);
  return [...rotated, path].filter((file) => existsSync(file));
}

/**
 * A line of the log, parsed; null for a line that is not an event (not JSON,
 * or without a string `time`, `mode` and `event`).
 */
export function parseRecord(line: string): AuditRecord | null {
  try {
    const value = JSON.parse(line);
    if (typeof value !== "object" || value === null) return null;
    const { time, mode, event } = value as Record<string, unknown>;
    const named = [time, mode, event].every((field) => typeof field === "string");
    return named ? value as AuditRecord : null;
  } catch {
    return null; // A torn or foreign line: the caller skips it and says how many.
  }
}

/** Control characters (C0, DEL, C1), line and paragraph separators, bidi controls. */
const UNPRINTABLE =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every control character written as a JSON escape (`\n`,
 * `\u001b`): a printed event stays one line, and nothing in it reaches the
 * reader's terminal as a control sequence.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => {
    const named: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };
    return named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/**
 * One event in words (see {@link formatRecord}), printable; null when the
 * record lacks what its kind needs (a forged or damaged line).
 */
export function describeRecord(record: AuditRecord): string | null {
  try {
    return printable(formatRecord(record));
  } catch {
    return null; // A field of the wrong type: counted as malformed by the caller.
  }
}

/** Reads every line of the log's files. */
export function readAuditLines(path: string): string[] {
  return auditFiles(path).flatMap((file) =>
    readFileSync(file, "utf8").split("\n").filter((line) => line !== "")
  );
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/**
 * One event in words: `TIME MODE SESSION/TERMINAL what happened`, ` (truncated)`
 * at the end when a field was cut. Print it through {@link printable}.
 * @throws {TypeError} when a field the kind needs is missing or of the wrong type
 */
export function formatRecord(record: AuditRecord): string {
  return describe(record) + (record.truncated === true ? " (truncated)" : "");
}

function describe(record: AuditRecord): string {
  const who = [record.session, record.terminal].filter((x) => x !== undefined).join("/");
  const head = `${record.time} ${record.mode}${who ? ` ${who}` : ""}${
    record.client ? ` (${record.client})` : ""
  }`;
  switch (record.event) {
    case "command": {
      const what = record.line ?? (record.argv ?? []).map((a) => quote(a)).join(" ");
      const rule = record.rule === null
        ? ""
        : record.rule.list === "default"
        ? " (default)"
        : ` (${record.rule.list} "${record.rule.pattern}")`;
      const env = record.env?.length ? ` env ${record.env.join(",")}` : "";
      const shell = record.shell === true && record.origin !== "typed"
        ? " (seen by the shell)"
        : "";
      return `${head} ${record.origin} ${
        record.line === undefined ? what : quote(what)
      }${shell} in ${record.cwd}${env}: ${record.decision}${rule}`;
    }
    case "approval":
      return `${head} ${record.approved ? "approved" : "refused"} ${
        quote(record.subject)
      } by ${record.by}`;
    case "permission":
      return `${head} agent asked ${
        quote(record.title ?? record.toolCallId)
      }: ${record.answer} by ${record.by} (${record.reason})`;
    case "agent_command": {
      const what = record.line ?? (record.argv ?? []).map((a) => quote(a)).join(" ");
      return `${head} agent ran ${record.line === undefined ? what : quote(what)}${
        record.cwd ? ` in ${record.cwd}` : ""
      }: ${record.decision} by ${record.by} (${record.reason})`;
    }
    case "agent_command_end":
      return `${head} agent command ${record.toolCallId} ${record.status}${
        record.exitCode === null ? "" : ` with code ${record.exitCode}`
      }${record.signal ? ` (${record.signal})` : ""}`;
    case "start":
      return `${head} started pid ${record.pid}: ${record.command}`;
    case "exit":
      return `${head} exited ${
        record.signal ?? `code ${record.exitCode}`
      } after ${record.durationMs} ms, ${record.outputBytes} bytes of output`;
    case "kill":
      return `${head} killed${record.signal ? ` (${record.signal})` : ""}${
        record.reason ? `: ${record.reason}` : ""
      }`;
    case "release":
      return `${head} released`;
    case "limit":
      return `${head} ${record.limit} hit: ${record.message}`;
    case "read":
    case "write":
      return `${head} ${record.event} ${record.path}: ${record.decision}${
        record.bytes === null ? "" : `, ${record.bytes} bytes`
      }${record.rule ? ` (${record.rule})` : ""}`;
    default: {
      const { time: _t, mode: _m, instance: _i, event, ...rest } = record as AuditRecord;
      return `${head} ${event} ${JSON.stringify(rest)}`;
    }
  }
}
