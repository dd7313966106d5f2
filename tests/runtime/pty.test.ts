/**
 * The runtime's pseudo-terminals (`runtime.spawnPty`), under whichever
 * runtime runs the tests: descriptors per terminal, and a view of the read
 * buffer that is reused from one read to the next.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { runtime } from "../../lib/runtime/mod.ts";
import type { PtyProcess } from "../../lib/runtime/mod.ts";

const env = { PATH: runtime.env().PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" };

/** How many descriptors this process has open. */
const openFiles = () => readdirSync("/proc/self/fd").length;

/** Starts `argv` in a PTY; the output is collected as text. */
function start(argv: string[], output: string[] = []): PtyProcess {
  const decoder = new TextDecoder();
  return runtime.spawnPty({
    argv,
    env,
    cols: 80,
    rows: 24,
    onData: (bytes) => output.push(decoder.decode(bytes, { stream: true })),
  });
}

/** Resolves once `condition` holds, checking every 10 ms. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe("runtime: pty", () => {
  it("runtime: each terminal costs at most two descriptors (master and the child's handle)", async () => {
    // The poll loop's own descriptors come with the first terminal, once it has read.
    const output: string[] = [];
    const first = start(["sh", "-c", "echo ready; exec sleep 30"], output);
    await until(() => output.join("").includes("ready"));
    const before = openFiles();
    const more = Array.from({ length: 40 }, () => start(["sleep", "30"]));
    const perTerminal = (openFiles() - before) / more.length;
    for (const pty of [first, ...more]) runtime.kill(pty.pid, "SIGKILL");
    await Promise.all([first, ...more].map((pty) => pty.exited));
    await Promise.all([first, ...more].map((pty) => pty.close()));
    assert.ok(perTerminal <= 2, `${perTerminal} descriptors per terminal`);
    assert.ok(openFiles() <= before - 2, "closing gives every descriptor back");
  });

  it("runtime: output arrives whole and in order, the terminal is the child's, at the size given", async () => {
    const output: string[] = [];
    const pty = start(["sh", "-c", "seq 1 20000; tty; stty size"], output);
    assert.deepEqual(await pty.exited, { exitCode: 0, signal: null });
    await pty.close();
    const lines = output.join("").split("\r\n");
    assert.deepEqual(lines.slice(0, 20000), Array.from({ length: 20000 }, (_, i) => `${i + 1}`));
    assert.match(lines[20000], /^\/dev\/pts\/\d+$/);
    assert.equal(lines[20001], "24 80");
  });

  it("runtime: stdin, stdout and stderr are the terminal opened read-write, as a login gives them", async () => {
    // tmux writes its picture to the descriptor its client got as stdin: with a read-only
    // stdin it drew nothing (bench/server.ts's tmux attach showed "", issue 16).
    const output: string[] = [];
    const script =
      'for fd in 0 1 2; do sed -n "s/^flags:[[:space:]]*/fd$fd=/p" /proc/self/fdinfo/$fd; done;' +
      " echo written-to-stdin >&0";
    const pty = start(["sh", "-c", script], output);
    assert.deepEqual(await pty.exited, { exitCode: 0, signal: null });
    await pty.close();
    const text = output.join("");
    for (const fd of [0, 1, 2]) {
      const flags = new RegExp(`fd${fd}=(\\d+)`).exec(text)?.[1];
      assert.ok(flags !== undefined, `no flags for fd ${fd} in ${JSON.stringify(text)}`);
      assert.equal(parseInt(flags, 8) & 3, 2, `fd ${fd} is not O_RDWR (flags ${flags})`);
    }
    assert.match(text, /written-to-stdin/);
  });

  it("runtime: input written to the master reaches the program, and Ctrl+C its foreground group", async () => {
    const output: string[] = [];
    const pty = start(["sh", "-c", "read line; echo got:$line; exec sleep 30"], output);
    pty.write(new TextEncoder().encode("hello\r"));
    await until(() => output.join("").includes("got:hello"));
    pty.write(new Uint8Array([3]));
    assert.deepEqual(await pty.exited, { exitCode: null, signal: "SIGINT" });
    await pty.close();
  });

  it("runtime: 150 terminals at once each get their output and their input (one poll loop)", async () => {
    const encoder = new TextEncoder();
    const outputs = Array.from({ length: 150 }, () => [] as string[]);
    const ptys = outputs.map((output, i) =>
      start(["sh", "-c", `echo hi-${i}; read x; echo got-$x; exec sleep 30`], output)
    );
    try {
      await until(() => outputs.every((output, i) => output.join("").includes(`hi-${i}`)));
      ptys.forEach((pty, i) => pty.write(encoder.encode(`v${i}\r`)));
      await until(() => outputs.every((output, i) => output.join("").includes(`got-v${i}`)));
    } finally {
      for (const pty of ptys) runtime.kill(pty.pid, "SIGKILL");
      await Promise.all(ptys.map((pty) => pty.exited));
      await Promise.all(ptys.map((pty) => pty.close()));
    }
  });
});
