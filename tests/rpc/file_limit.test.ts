/**
 * Many terminals under a small `ulimit -n` (the built binary under prlimit):
 * termbridge raises its soft limit to the hard one at start-up, and when the
 * limit is still reached it says "too many open files (raise ulimit -n)".
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Child } from "../acp/child.ts";
import { request, termbridge } from "./_kit.ts";

/** `termbridge serve` under `prlimit --nofile=SOFT:HARD`. */
function serveWithLimit(soft: number, hard: number, ...options: string[]): Child {
  return Child.start(["prlimit", `--nofile=${soft}:${hard}`, ...termbridge(), "serve", ...options]);
}

/** Sends a request and returns its parsed answer. */
async function call(child: Child, id: number, method: string, params: unknown) {
  await child.write(`${request(String(id), method, params)}\n`);
  const line = await child.waitForLine(
    (l) => new RegExp(`"id":${id}[,}]`).test(l),
    `the answer to ${id}`,
  );
  return JSON.parse(line);
}

const create = (child: Child, id: number) =>
  call(child, id, "terminal/create", { sessionId: "s", command: "sleep 60" });

/** The soft open-files limit of a process, from /proc. */
function softLimit(pid: number): number {
  const line = readFileSync(`/proc/${pid}/limits`, "utf8").split("\n").find((l) =>
    l.startsWith("Max open files")
  );
  return Number(line?.split(/\s+/)[3]);
}

/**
 * How many descriptors a process keeps open: the fewest of a few readings
 * 20 ms apart, so that one it holds for a moment (a log write) is not counted.
 */
async function openFiles(pid: number): Promise<number> {
  let fewest = Infinity;
  for (let i = 0; i < 5; i++) {
    fewest = Math.min(fewest, readdirSync(`/proc/${pid}/fd`).length);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return fewest;
}

describe("open-files limit", () => {
  it("serve: each terminal costs two descriptors, so 50 fit under ulimit -n 128", async () => {
    const dir = mkdtempSync(join(tmpdir(), "termbridge-fds-"));
    const config = join(dir, "termbridge.jsonc");
    writeFileSync(config, '{ "limits": { "terminals": 60 } }\n');
    const child = serveWithLimit(128, 128, "--config", config);
    try {
      assert.ok((await create(child, 1)).result?.terminalId);
      const before = await openFiles(child.pid);
      for (let id = 2; id <= 50; id++) {
        const answer = await create(child, id);
        assert.ok(answer.result?.terminalId, `terminal ${id}: ${JSON.stringify(answer)}`);
      }
      const perTerminal = ((await openFiles(child.pid)) - before) / 49;
      assert.ok(perTerminal <= 2, `${perTerminal} descriptors per terminal`);
    } finally {
      await child.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("serve: the soft limit is raised to the hard one, so 30 terminals fit under ulimit -n 64", async () => {
    const child = serveWithLimit(64, 4096);
    try {
      await call(child, 0, "sessions/list", {});
      assert.equal(softLimit(child.pid), 4096);
      for (let id = 1; id <= 30; id++) { // Under the default limit of 32 terminals.
        const answer = await create(child, id);
        assert.ok(answer.result?.terminalId, JSON.stringify(answer));
      }
    } finally {
      await child.dispose();
    }
  });

  it("serve: at the hard limit a new terminal is refused with -32014 and the words to fix it", async () => {
    const child = serveWithLimit(48, 48);
    try {
      let refused: { error?: { code: number; message: string } } | undefined;
      const created: string[] = [];
      for (let id = 1; id <= 48 && refused === undefined; id++) {
        const answer = await create(child, id);
        if (answer.error) refused = answer;
        else created.push(answer.result.terminalId);
      }
      assert.ok(refused !== undefined, "some terminal is refused");
      assert.equal(refused.error?.code, -32014, JSON.stringify(refused));
      assert.match(refused.error!.message, /too many open files \(raise ulimit -n\)/);
      assert.ok(created.length > 0);
      // Releasing one makes room again: the loop is alive and recovers.
      await call(child, 100, "terminal/release", { sessionId: "s", terminalId: created[0] });
      const again = await create(child, 101);
      assert.ok(again.result?.terminalId, JSON.stringify(again));
    } finally {
      await child.dispose();
    }
  });
});
