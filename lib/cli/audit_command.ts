/**
 * `termbridge audit`: the audit log, readably (or as JSONL), optionally since
 * a time and following new events as they are written.
 * @module
 */

import { closeSync, openSync, readSync, statSync } from "node:fs";
import { resolveAuditPath } from "../config/config.ts";
import { describeRecord, parseRecord, readAuditLines } from "../audit/reader.ts";
import { runtime } from "../runtime/mod.ts";
import { parseModeArgs } from "./args.ts";
import { startSafety } from "./safety_options.ts";
import { UsageError } from "./usage.ts";

const HELP = `Usage: termbridge audit [OPTIONS]

Shows the audit log: every command requested (argv or line, cwd, the names of
the environment variables it set), the policy's verdict and the rule, each
approval and who gave it, starts (pid), exits (code or signal, duration,
bytes of output), kills, releases, limits hit and file reads and writes.

Options:
  --since T              only events from T on: an ISO time (2026-01-31T12:00)
                         or an age such as 30s, 10m, 2h, 1d
  -f, --follow           keep printing new events as they are written (Ctrl+C ends)
  --json                 print the log's own JSON lines
  --audit FILE           read FILE (default: audit.path, else
                         $XDG_STATE_HOME/termbridge/audit.jsonl)
  --config FILE          a termbridge.jsonc naming audit.path
  -h, --help             show this help
`;

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * The time `--since` names.
 * @throws {UsageError} when it is neither an ISO time nor an age
 */
function parseSince(text: string, now = Date.now()): number {
  const age = /^(\d+(?:\.\d+)?)([smhd])$/.exec(text);
  if (age) return now - Number(age[1]) * UNITS[age[2]];
  const time = Date.parse(text);
  if (Number.isNaN(time)) {
    throw new UsageError(
      `Cannot use --since ${
        JSON.stringify(text)
      }: expected an ISO time such as 2026-01-31T12:00 or an age such as 10m`,
    );
  }
  return time;
}

/** Runs `termbridge audit`. */
export async function auditMain(args: string[]): Promise<number> {
  const { values } = parseModeArgs("audit", args, {
    since: { type: "string" },
    follow: { type: "boolean", short: "f" },
    json: { type: "boolean" },
    audit: { type: "string" },
    config: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    await runtime.writeStdout(HELP);
    return 0;
  }
  const since = values.since === undefined ? undefined : parseSince(values.since);
  // Only to learn the path: the log itself is read, never opened for writing here.
  const safety = await startSafety("cli", { config: values.config, "no-audit": true });
  const path = values.audit ?? safety.loaded.config.audit?.path;
  const file = resolveAuditPath(path, runtime.env(), runtime.cwd());
  let skipped = 0;
  const show = (line: string): string | null => {
    const record = parseRecord(line);
    if (since !== undefined && record !== null && Date.parse(record.time) < since) return null;
    if (values.json) return line;
    const shown = record === null ? null : describeRecord(record);
    if (shown === null) skipped++;
    return shown;
  };
  const shown = readAuditLines(file).map(show).filter((l) => l !== null);
  if (shown.length > 0) await runtime.writeStdout(shown.join("\n") + "\n");
  await reportSkipped(skipped);
  if (!values.follow) return 0;
  return await follow(file, (line) => {
    skipped = 0;
    const text = show(line);
    void reportSkipped(skipped);
    return text;
  });
}

/** Tells stderr how many lines were not events (damaged, or not written by termbridge). */
async function reportSkipped(count: number): Promise<void> {
  if (count === 0) return;
  await runtime.writeStderr(
    `termbridge audit: skipped ${count} line${count === 1 ? "" : "s"} that ${
      count === 1 ? "is" : "are"
    } not an audit event (--json prints them as they are)\n`,
  );
}

/** Prints lines appended to `file` until a signal ends it; a rotation starts over at the new file. */
async function follow(file: string, show: (line: string) => string | null): Promise<number> {
  let offset = sizeOf(file);
  let partial = "";
  let stopped = false;
  const stops = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((signal) =>
    runtime.onSignal(signal, () => stopped = true)
  );
  const decoder = new TextDecoder();
  try {
    while (!stopped) {
      await new Promise((done) => setTimeout(done, 200));
      const size = sizeOf(file);
      if (size < offset) offset = 0; // Rotated: the new file starts empty.
      if (size === offset) continue;
      const fd = openSync(file, "r");
      const buffer = new Uint8Array(size - offset);
      try {
        readSync(fd, buffer, 0, buffer.length, offset);
      } finally {
        closeSync(fd);
      }
      offset = size;
      // One decoder for the whole follow: a character cut between two reads stays whole.
      const lines = (partial + decoder.decode(buffer, { stream: true })).split("\n");
      partial = lines.pop() ?? "";
      const shown = lines.filter((l) => l !== "").map(show).filter((l) => l !== null);
      if (shown.length > 0) await runtime.writeStdout(shown.join("\n") + "\n");
    }
  } finally {
    stops.forEach((stop) => stop());
  }
  return 0;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0; // Not written yet.
  }
}
