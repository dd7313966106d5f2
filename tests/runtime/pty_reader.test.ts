/**
 * The PTY reader (masters read on a worker into a ring, parsed on the
 * JavaScript thread), through `runtime.spawnPty` on the test's runtime: a
 * flood against a slow consumer (the ring fills and wraps), a master closed
 * in the middle of a flood and its number reused, and input larger than the
 * kernel takes at once.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import type { PtyProcess } from "../../lib/runtime/mod.ts";

const env = { PATH: runtime.env().PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" };

/** Starts `argv` in a PTY with `onData`. */
function start(argv: string[], onData: (bytes: Uint8Array) => void): PtyProcess {
  return runtime.spawnPty({ argv, env, cols: 80, rows: 24, onData });
}

/** Resolves once `condition` holds, checking every 10 ms. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Busy-waits `ms` milliseconds: a consumer slower than the program. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* waiting on purpose */ }
}

describe("runtime: pty reader", () => {
  it("runtime: a flood read faster than it is consumed arrives whole and in order", async () => {
    // ~11 MB on the wire: the 1 MiB ring fills and wraps many times; on Deno the JavaScript
    // thread reads the first 8 MiB itself, then hands the master over to the worker mid-flood.
    const count = 1_500_000;
    const decoder = new TextDecoder();
    let partial = "";
    let next = 1;
    let wrong: string | undefined;
    let chunks = 0;
    const pty = start(["seq", "1", String(count)], (bytes) => {
      if (++chunks % 8 === 0) spin(3);
      const lines = (partial + decoder.decode(bytes, { stream: true })).split("\r\n");
      partial = lines.pop()!;
      for (const line of lines) {
        if (wrong === undefined && line !== String(next)) wrong = `line ${next} was "${line}"`;
        next++;
      }
    });
    try {
      assert.deepEqual(await pty.exited, { exitCode: 0, signal: null });
    } finally {
      await pty.close();
    }
    assert.equal(wrong, undefined);
    assert.equal(partial, "");
    assert.equal(next, count + 1);
  });

  it("runtime: a master closed during a flood sends nothing to the next terminal given its number", async () => {
    for (let round = 0; round < 5; round++) {
      let flooded = 0;
      const flood = start(["yes", "flood"], (bytes) => {
        flooded += bytes.length;
        spin(2); // A slow consumer: the ring is full when the master is closed.
      });
      await until(() => flooded > 256 * 1024);
      runtime.kill(flood.pid, "SIGKILL");
      await flood.close(); // The number is free now; the next master likely gets it.
      const output: string[] = [];
      const decoder = new TextDecoder();
      const fresh = start(
        ["echo", `fresh-${round}`],
        (bytes) => output.push(decoder.decode(bytes)),
      );
      assert.deepEqual(await fresh.exited, { exitCode: 0, signal: null });
      await fresh.close();
      await flood.exited; // Its end of output never comes (closed first): the grace timer ends it.
      assert.equal(output.join(""), `fresh-${round}\r\n`);
    }
  });

  it("runtime: input larger than the kernel takes at once is written whole, in order", async () => {
    const output: string[] = [];
    const decoder = new TextDecoder();
    const size = 1_000_000;
    const input = new Uint8Array(size).map((_, i) => 0x61 + (i % 26));
    const md5 = createHash("md5").update(input).digest("hex");
    const pty = start(
      ["sh", "-c", "stty raw -echo; echo ready; head -c 1000000 | md5sum"],
      (bytes) => output.push(decoder.decode(bytes, { stream: true })),
    );
    try {
      await until(() => output.join("").includes("ready"));
      pty.write(input);
      assert.deepEqual(await pty.exited, { exitCode: 0, signal: null });
    } finally {
      await pty.close();
    }
    assert.equal(output.join(""), `ready\n${md5}  -\n`); // raw: no CR added
  });

  it("runtime: a short output waiting behind another terminal's flood is handed on first", async () => {
    // On Deno the JavaScript thread reads the first 8 MiB itself: a flood starts the worker.
    let warm = 0;
    const warmUp = start(
      ["head", "-c", String(9 * 1024 * 1024), "/dev/zero"],
      (b) => warm += b.length,
    );
    await warmUp.exited;
    await warmUp.close();
    const dir = mkdtempSync(join(tmpdir(), "termbridge-reader-"));
    const floodDone = join(dir, "flood-done"), lineDone = join(dir, "line-done");
    const size = 512 * 1024;
    let flooded = 0, line = "";
    let floodedWhenLine = -1;
    const flood = start(
      ["sh", "-c", `head -c ${size} /dev/zero | tr '\\0' a; touch '${floodDone}'`],
      (bytes) => flooded += bytes.length,
    );
    const short = start(
      [
        "sh",
        "-c",
        `i=0; until [ -e '${floodDone}' ] || [ $i = 500 ]; do sleep 0.01; i=$((i+1)); done; sleep 0.1; echo B-LINE; touch '${lineDone}'`,
      ],
      (bytes) => {
        if (line === "") floodedWhenLine = flooded;
        line += new TextDecoder().decode(bytes);
      },
    );
    try {
      // The JavaScript thread is busy meanwhile: the worker reads the flood, then the line,
      // into the ring, one behind the other.
      const deadline = performance.now() + 10_000;
      while (!existsSync(lineDone) && performance.now() < deadline) spin(10);
      spin(100);
      await until(() => (flooded === size && line.includes("\n")) || performance.now() > deadline);
    } finally {
      await Promise.all([flood.exited, short.exited]); // Both end by themselves.
      await Promise.all([flood.close(), short.close()]);
      rmSync(dir, { recursive: true, force: true });
    }
    assert.ok(warm >= 9 * 1024 * 1024);
    assert.equal(line, "B-LINE\r\n");
    assert.equal(flooded, size);
    assert.ok(
      floodedWhenLine >= 0 && floodedWhenLine < size,
      `the line came after ${floodedWhenLine} bytes of the flood read before it`,
    );
  });

  it("runtime: a handler that throws loses nothing of its own terminal's output or of another's", async () => {
    // One loop reads every terminal: a handler's exception (an emulator bug reached by a program's
    // output stopped every terminal of a process once) is printed, and the reading goes on.
    const decoder = new TextDecoder();
    let thrower = "", other = "";
    let ended = false;
    const first = start(["sh", "-c", "echo one; sleep 0.3; echo two"], (bytes) => {
      thrower += decoder.decode(bytes);
      throw new Error("a handler's own failure (expected in this test)");
    });
    const second = start(["sh", "-c", "sleep 0.5; echo three"], (bytes) => {
      other += decoder.decode(bytes);
    });
    try {
      const deadline = performance.now() + 10_000;
      await until(() =>
        (thrower.includes("two") && other.includes("three")) || performance.now() > deadline
      );
      ended = thrower.includes("two") && other.includes("three");
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
    assert.ok(ended, `the output after the failure: ${JSON.stringify({ thrower, other })}`);
    assert.match(thrower, /one\r\n(.|\n)*two/);
  });
});
