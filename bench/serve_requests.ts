/**
 * Requests per second through `termbridge serve`'s JSON-RPC loop: `BENCH_N`
 * (2000) `initialize` requests one after another (each sent after the answer
 * before), then the same number written at once (pipelined), for each binary
 * named in `BENCH_BINARIES` (colon-separated; default dist/termbridge),
 * alternating binaries `BENCH_RUNS` (3) times. Prints ms per 1000 requests
 * and the CPU seconds serve used.
 *
 *     BENCH_BINARIES=/tmp/ab/base:/tmp/ab/new node_modules/.bin/bun bench/serve_requests.ts
 * @module
 */

import { readFileSync } from "node:fs";
import { runtime } from "../lib/runtime/mod.ts";

const N = Number(runtime.env().BENCH_N ?? 2000);
const RUNS = Number(runtime.env().BENCH_RUNS ?? 3);
const binaries = (runtime.env().BENCH_BINARIES ?? "dist/termbridge").split(":");
const encoder = new TextEncoder();
const request = (id: number) =>
  encoder.encode(`{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{}}\n`);

/** CPU seconds (user + system) of a process so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function measure(
  binary: string,
): Promise<{ oneByOne: number; pipelined: number; cpu: number }> {
  const child = runtime.spawnPiped({ argv: [binary, "serve", "--no-audit"], env: runtime.env() });
  const stdin = child.stdin.getWriter();
  const stdout = child.stdout.getReader();
  let answered = 0;
  let waiting: (() => void) | undefined;
  let want = 0;
  void (async () => {
    for (;;) {
      const { done, value } = await stdout.read();
      if (done) return;
      for (const byte of value) if (byte === 0x0a) answered++;
      if (answered >= want) waiting?.();
    }
  })();
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      want = count;
      waiting = resolve;
      if (answered >= count) resolve();
    });
  await stdin.write(request(0));
  await until(1);
  let started = performance.now();
  for (let i = 1; i <= N; i++) {
    await stdin.write(request(i));
    await until(i + 1);
  }
  const oneByOne = performance.now() - started;
  started = performance.now();
  const all = new Uint8Array(N * request(0).length + N * 8);
  let at = 0;
  for (let i = 0; i < N; i++) {
    const line = request(N + 1 + i);
    all.set(line, at);
    at += line.length;
  }
  await stdin.write(all.subarray(0, at));
  await until(2 * N + 1);
  const pipelined = performance.now() - started;
  const cpu = cpuSeconds(child.pid);
  await stdin.close();
  await child.exited;
  return { oneByOne: oneByOne * 1000 / N, pipelined: pipelined * 1000 / N, cpu };
}

console.log("| binary | run | one by one, ms per 1000 | pipelined, ms per 1000 | serve CPU s |");
console.log("| ------ | --- | ----------------------- | ---------------------- | ----------- |");
for (let run = 1; run <= RUNS; run++) {
  for (const binary of binaries) {
    const { oneByOne, pipelined, cpu } = await measure(binary);
    console.log(
      `| ${binary} | ${run} | ${oneByOne.toFixed(0)} | ${pipelined.toFixed(0)} | ${
        cpu.toFixed(2)
      } |`,
    );
  }
}
