/**
 * The audit log file: one parseable JSON line per event with the common
 * fields, private to its owner, rotated at its size, read back oldest first.
 * @module
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { AuditLog } from "../../lib/audit/log.ts";
import { formatRecord, parseRecord, readAuditLines } from "../../lib/audit/reader.ts";

function withDir(body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "tb-audit-"));
  try {
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("audit: each event is one JSON line with time, mode, instance and ids; the file is 0600", () => {
  withDir((dir) => {
    const path = join(dir, "nested", "audit.jsonl");
    const log = new AuditLog(path);
    log.record({ mode: "serve", session: "s", terminal: "term-1" }, {
      event: "start",
      pid: 42,
      command: "echo hi",
    });
    log.record({ mode: "mcp", session: "default" }, { event: "release" });
    log.close();
    const lines = readFileSync(path, "utf8").split("\n");
    assert.equal(lines.pop(), "");
    const [first, second] = lines.map((line) => JSON.parse(line));
    assert.equal(first.mode, "serve");
    assert.equal(first.session, "s");
    assert.equal(first.terminal, "term-1");
    assert.equal(first.instance, process.pid);
    assert.equal(first.pid, 42);
    assert.ok(!Number.isNaN(Date.parse(first.time)));
    assert.equal(second.terminal, undefined);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.match(formatRecord(first), /serve s\/term-1 started pid 42: echo hi$/);
  });
});

test("audit: the log rotates at its size and is read back oldest first", () => {
  withDir((dir) => {
    const path = join(dir, "audit.jsonl");
    const log = new AuditLog(path, { rotateBytes: 1000 });
    for (let i = 0; i < 60; i++) {
      log.record({ mode: "run" }, { event: "note", what: `event ${i}` });
    }
    log.close();
    assert.ok(existsSync(`${path}.1`), "no rotated file");
    assert.ok(statSync(path).size < 1000 + 200);
    const numbers = readAuditLines(path).map((line) => Number(/event (\d+)/.exec(line)![1]));
    // Rotated generations beyond the kept ones are gone; what is kept is in order, newest last.
    assert.equal(numbers.at(-1), 59);
    assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b));
    assert.equal(parseRecord("not json"), null);
  });
});
