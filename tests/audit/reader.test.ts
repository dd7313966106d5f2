/**
 * The audit log against what an agent can put in it: one huge request cannot
 * rotate earlier events out, a forged or damaged line does not stop
 * `termbridge audit`, and no field can forge a line or reach the reader's
 * terminal as a control sequence.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuditLog, MAX_FIELD_CHARS } from "../../lib/audit/log.ts";
import { parseRecord, readAuditLines } from "../../lib/audit/reader.ts";
import { termbridgeArgv } from "../helpers.ts";
import { Child } from "../acp/child.ts";

function withDir<T>(body: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "tb-audit-reader-"));
  return Promise.resolve(body(dir)).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** `termbridge audit --audit FILE ARGS`, with its stdout, stderr and exit code. */
async function auditCommand(file: string, args: string[] = []) {
  const child = Child.start([...termbridgeArgv(), "audit", "--audit", file, ...args]);
  await child.closeStdin();
  return await child.finished();
}

describe("audit reader", () => {
  it("audit: a 17 MB command is kept as its first 64 KiB and marked; earlier events stay", async () => {
    await withDir((dir) => {
      const path = join(dir, "audit.jsonl");
      const log = new AuditLog(path);
      const cwd = "/tmp";
      log.record({ mode: "serve" }, { event: "note", what: "THE-EVIDENCE" });
      const line = "true #" + "x".repeat(17_000_000);
      for (let i = 0; i < 4; i++) {
        log.record({ mode: "serve" }, {
          event: "command",
          origin: "create",
          line,
          argv: Array(100_000).fill("y".repeat(100)),
          cwd,
          decision: "allow",
          rule: null,
          reason: "r",
        });
      }
      log.close();
      const lines = readAuditLines(path);
      assert.match(lines[0], /THE-EVIDENCE/);
      const record = parseRecord(lines[1]) as Record<string, unknown>;
      assert.equal(record.truncated, true);
      assert.equal(record.line, line.slice(0, MAX_FIELD_CHARS) + "…");
      const argv = record.argv as string[];
      assert.match(argv.at(-1)!, /^… \d+ more$/);
      assert.ok(argv.join("").length < MAX_FIELD_CHARS + 200);
      assert.equal(record.cwd, cwd);
    });
  });

  it("audit: a malformed line is skipped and counted; the events around it are printed", async () => {
    await withDir(async (dir) => {
      const path = join(dir, "audit.jsonl");
      const log = new AuditLog(path);
      log.record({ mode: "serve", session: "s" }, { event: "note", what: "before" });
      log.close();
      appendFileSync(
        path,
        '{"event":"command"}\n{"time":"t","mode":"serve","event":"command"}\nnot json\n',
      );
      const after = new AuditLog(path);
      after.record({ mode: "serve", session: "s" }, { event: "release" });
      after.close();
      const { status, stdout, stderr } = await auditCommand(path);
      assert.equal(status.exitCode, 0, stderr);
      const printed = stdout.trimEnd().split("\n");
      assert.equal(printed.length, 2, stdout);
      assert.match(printed[0], /serve s note .*before/);
      assert.match(printed[1], /serve s released$/);
      assert.match(stderr, /skipped 3 lines that are not an audit event/);
    });
  });

  it("audit: newlines, ESC and C1 in any field are printed as escapes, one event a line", async () => {
    await withDir(async (dir) => {
      const path = join(dir, "audit.jsonl");
      const forged = '\n2026-01-01T00:00:00.000Z serve s/term-9 create "rm -rf /": deny';
      const log = new AuditLog(path);
      log.record({ mode: "serve", session: "s\x1b[2J", terminal: "t\u009b1m" }, {
        event: "start",
        pid: 1,
        command: `echo hi${forged}\x1b]0;PWNED\x07`,
      });
      log.record({ mode: "serve", session: "s" }, {
        event: "command",
        origin: "create",
        line: "x",
        cwd: `/tmp${forged}`,
        env: ["A\nB"],
        decision: "deny",
        rule: { list: "deny", pattern: "p\x1b[31m\u2028" } as never,
        reason: "r",
      });
      log.close();
      const { stdout } = await auditCommand(path);
      const printed = stdout.trimEnd().split("\n");
      assert.equal(printed.length, 2, stdout);
      // deno-lint-ignore no-control-regex -- no control character may be printed
      assert.ok(!/[\x00-\x1f\x7f-\x9f\u2028]/.test(printed.join("")), stdout);
      assert.match(printed[0], /s\\u001b\[2J\/t\\u009b1m started pid 1: echo hi\\n2026-01-01/);
      assert.match(
        printed[1],
        /in \/tmp\\n2026-01-01.* env A\\nB: deny \(deny "p\\u001b\[31m\\u2028"\)/,
      );
    });
  });
});
