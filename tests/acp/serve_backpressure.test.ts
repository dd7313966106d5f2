/**
 * `termbridge serve` and a client that sends requests but does not read the
 * answers: termbridge stops reading requests once about a MiB of answers is
 * unsent, instead of holding every answer (red team f13: 200 unread answers
 * of an 8 MB output held 1.7 GB).
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { termbridgeArgv, waitUntil } from "../helpers.ts";

const encoder = new TextEncoder();

function line(id: number, method: string, params: unknown): Uint8Array {
  return encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
}

/** Resident memory of a process in MiB. */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

describe("serve backpressure", () => {
  it("serve: a client that reads no answers stops being read; reading again answers all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tb-backpressure-"));
    const marker = join(dir, "marker");
    const child = runtime.spawnPiped({
      argv: [...termbridgeArgv(), "serve", "--no-audit", "--cwd", dir],
      env: runtime.env(),
      stderr: "pipe",
    });
    const stdin = child.stdin.getWriter();
    const stdout = child.stdout.getReader();
    void new Response(child.stderr).text();
    try {
      // Answer 1 is read, so the terminal's output exists before the flood.
      await stdin.write(line(1, "terminal/create", {
        sessionId: "s",
        command: "head -c 2000000 /dev/zero | tr '\\0' a | fold -w 100; echo done",
      }));
      let text = "";
      const decoder = new TextDecoder();
      const answered = (id: number) => text.includes(`"id":${id},`);
      while (!answered(1)) text += decoder.decode((await stdout.read()).value);
      await stdin.write(
        line(2, "terminal/wait_for_exit", { sessionId: "s", terminalId: "term-1" }),
      );
      while (!answered(2)) text += decoder.decode((await stdout.read()).value);
      text = text.slice(text.lastIndexOf("\n") + 1);
      const before = rssMiB(child.pid);
      const flood = 100; // 100 answers of 2 MB each: 200 MB if all were held.
      const requests = [];
      for (let i = 0; i < flood; i++) {
        requests.push(line(10 + i, "terminal/output", { sessionId: "s", terminalId: "term-1" }));
      }
      requests.push(line(500, "terminal/create", { sessionId: "s", command: `touch ${marker}` }));
      // Written without waiting: termbridge stops reading, so the pipe fills up.
      const written = Promise.all(requests.map((request) => stdin.write(request)));
      written.catch(() => {}); // Reported below if it matters.
      await new Promise((resume) => setTimeout(resume, 3000));
      const held = rssMiB(child.pid) - before;
      assert.equal(existsSync(marker), false, "the request after the flood was read");
      assert.ok(held < 100, `termbridge grew ${held.toFixed(0)} MiB holding unread answers`);
      // Reading again: every request is answered, the last one too.
      const ids = new Set<number>();
      while (!ids.has(500)) {
        const chunk = await stdout.read();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
        const lines = text.split("\n");
        text = lines.pop()!;
        for (const answer of lines) ids.add(JSON.parse(answer).id);
      }
      await written;
      assert.equal(ids.size, flood + 1);
      await waitUntil(() => existsSync(marker), "the marker", 10_000);
    } finally {
      await stdin.close().catch(() => {}); // Gone already.
      while (!(await stdout.read()).done) { /* Drained so that serve can exit. */ }
      await child.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
