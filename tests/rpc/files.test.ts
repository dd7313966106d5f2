/**
 * `fs/read_text_file` and `fs/write_text_file` of `termbridge serve` (the
 * built binary): reads stream and are bounded, and system errors keep their
 * meaning and code.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import {
  chmodSync,
  closeSync,
  ftruncateSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { RawRpc, request, termbridge } from "./_kit.ts";
import { Child } from "../acp/child.ts";

/** Runs `body` with a temporary directory, always removed. */
async function withDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tb-files-"));
  try {
    await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A file of `bytes` bytes (sparse: zeros after `head`), made without writing them. */
function hugeFile(path: string, head: string, bytes: number): void {
  const fd = openSync(path, "w");
  try {
    writeSync(fd, head);
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

/** Peak resident memory of a process (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024;
}

const read = (id: string, path: string, more: Record<string, unknown> = {}) =>
  request(id, "fs/read_text_file", { sessionId: "s", path, ...more });

describe("serve files", () => {
  it("serve: line 1, limit 1 of a 300 MB file answers at once with flat memory; the whole file is refused", async () => {
    await withDir(async (dir) => {
      const path = join(dir, "huge.txt");
      hugeFile(path, "first line\nsecond line\n", 300 * 1024 * 1024);
      const rpc = RawRpc.start("serve");
      try {
        await rpc.send(request("0", "sessions/list"));
        await rpc.answer("0");
        const started = performance.now();
        await rpc.send(read("1", path, { line: 1, limit: 1 }));
        const first = await rpc.answer("1");
        const tookMs = performance.now() - started;
        assert.deepEqual(first.result, { content: "first line\n" }, first.raw);
        assert.ok(tookMs < 3000, `answered in ${Math.round(tookMs)} ms`);
        await rpc.send(read("2", path, { line: 2, limit: 1 }), read("3", path));
        assert.deepEqual((await rpc.answer("2")).result, { content: "second line\n" });
        const whole = await rpc.answer("3");
        assert.equal(whole.error?.code, -32015, whole.raw);
        assert.match(
          whole.error!.message,
          /314572800 bytes, more than the 16777216 allowed.*line and limit/,
        );
        await rpc.send(read("4", path, { line: 3 })); // 300 MB of zeros on one line.
        const rest = await rpc.answer("4");
        assert.equal(rest.error?.code, -32015, rest.raw);
        assert.match(rest.error!.message, /fewer with limit/);
        const peak = peakRss(rpc.child.pid);
        assert.ok(peak < 250 * 1024 * 1024, `peak RSS ${Math.round(peak / 1048576)} MB`);
      } finally {
        await rpc.dispose();
      }
    });
  });

  it("serve: --max-read sets the ceiling of a read", async () => {
    await withDir(async (dir) => {
      const path = join(dir, "a.txt");
      writeFileSync(path, "0123456789\n".repeat(100));
      const rpc = RawRpc.start("serve", ["--max-read", "500"]);
      try {
        await rpc.send(read("1", path), read("2", path, { line: 10, limit: 5 }));
        const refused = await rpc.answer("1");
        assert.equal(refused.error?.code, -32015, refused.raw);
        assert.match(refused.error!.message, /1100 bytes, more than the 500 allowed/);
        assert.deepEqual((await rpc.answer("2")).result, { content: "0123456789\n".repeat(5) });
      } finally {
        await rpc.dispose();
      }
    });
  });

  it("serve: a missing file, a directory, a too-long name each get their own code and words", async () => {
    await withDir(async (dir) => {
      const rpc = RawRpc.start("serve");
      try {
        const cases: Array<[string, string, number, RegExp]> = [
          ["1", read("1", join(dir, "nope.txt")), -32010, /nope\.txt": no such file or directory/],
          ["2", read("2", dir), -32012, /it is a directory, not a file/],
          ["3", read("3", join(dir, "n".repeat(300))), -32013, /the name is too long/],
          [
            "4",
            request("4", "fs/write_text_file", { sessionId: "s", path: dir, content: "x" }),
            -32012,
            /it is a directory/,
          ],
          [
            "5",
            request("5", "fs/write_text_file", {
              sessionId: "s",
              path: join(dir, "no", "f"),
              content: "x",
            }),
            -32010,
            /does not exist/,
          ],
          ["6", read("6", join(dir, "nope.txt", "x")), -32010, /no such file or directory/],
        ];
        for (const [id, line, code, words] of cases) {
          await rpc.send(line);
          const answer = await rpc.answer(id);
          assert.equal(answer.error?.code, code, answer.raw);
          assert.match(answer.error!.message, words);
        }
      } finally {
        await rpc.dispose();
      }
    });
  });

  it("serve: permission denied is -32011, for a user the file does not allow", async () => {
    await withDir(async (dir) => {
      const path = join(dir, "secret.txt");
      writeFileSync(path, "secret\n");
      chmodSync(path, 0o000);
      chmodSync(dir, 0o755);
      // Root reads anything: run termbridge as nobody then (setpriv, util-linux).
      const asNobody = process.getuid?.() === 0
        ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        : [];
      // --no-audit: nobody cannot write the audit log under root's home.
      const child = Child.start([...asNobody, ...termbridge(), "serve", "--no-audit"], {
        cwd: "/",
      });
      try {
        await child.write(`${read("1", path)}\n`);
        const line = await child.waitForLine((l) => l.includes(`"id":1`), "the answer");
        const answer = JSON.parse(line);
        assert.equal(answer.error?.code, -32011, line);
        assert.match(answer.error.message, /secret\.txt": permission denied/);
      } finally {
        await child.dispose();
      }
    });
  });
});
