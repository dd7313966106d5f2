/**
 * The file-read benchmark: `fs/read_text_file` of `termbridge serve` on a
 * 300 MB text file (line 1 limit 1, a line in the middle, the whole file:
 * refused above the 16 MiB ceiling),
 * timed from request to answer, with the peak RSS of the serve process,
 * next to `head -n 1` and `sed -n Np` on the same file in the same run.
 *
 *     node_modules/.bin/bun bench/read_file.ts
 *     node_modules/.bin/deno run -A bench/read_file.ts
 *
 * `BENCH_FILE_MB` (300) the file's size, `BENCH_ROUNDS` (20) timed reads per
 * case, `BENCH_TERMBRIDGE=auto|binary|source` which termbridge,
 * `BENCH_BINARY=PATH` another binary (e.g. an older build, to compare).
 * `BENCH_MARKDOWN=1` also prints the table as Markdown.
 * @module
 */

import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";
import {
  envNumber,
  fixed,
  formatMarkdown,
  formatTable,
  median,
  progress,
  type Row,
} from "./_report.ts";
import { parsePreference, termbridgeCommand } from "./_termbridge.ts";

const ENV = process.env as Record<string, string>;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MB = envNumber(ENV, "BENCH_FILE_MB", 300);
const ROUNDS = envNumber(ENV, "BENCH_ROUNDS", 20);
const LINE = 100; // Bytes a line, newline included.

/** Writes a file of `mb` MB of numbered 100-byte lines; returns its line count. */
function makeFile(path: string, mb: number): number {
  const lines = Math.floor((mb * 1e6) / LINE);
  const fd = openSync(path, "w");
  const block = 10_000;
  try {
    for (let start = 0; start < lines; start += block) {
      let text = "";
      for (let n = start; n < Math.min(lines, start + block); n++) {
        text += `line ${String(n + 1).padStart(10, "0")} `.padEnd(LINE - 1, "x") + "\n";
      }
      writeSync(fd, text);
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

/** Peak resident memory of a process (VmHWM), in MB. */
function peakMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) * 1024 / 1e6;
}

/** A running `termbridge serve` answering one request at a time. */
function startServe() {
  const how = termbridgeCommand(
    ROOT,
    ["serve"],
    parsePreference("BENCH_TERMBRIDGE", process.env.BENCH_TERMBRIDGE),
    process.env.BENCH_BINARY,
  );
  const child = spawn(how.command, how.args, { stdio: ["pipe", "pipe", "inherit"] });
  let buffered = "";
  const waiting = new Map<number, (line: string) => void>();
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    let newline: number;
    while ((newline = text.indexOf("\n")) !== -1) { // Only the new text is searched.
      const line = buffered + text.slice(0, newline);
      buffered = "";
      text = text.slice(newline + 1);
      const id = Number(/"id":(\d+)/.exec(line)?.[1]);
      waiting.get(id)?.(line);
      waiting.delete(id);
    }
    buffered += text;
  });
  let next = 1;
  return {
    how,
    pid: child.pid!,
    /** Sends a request; resolves with the answer's length in characters and the time taken. */
    request(params: Record<string, unknown>): Promise<{ ms: number; chars: number; line: string }> {
      const id = next++;
      const started = performance.now();
      return new Promise((done) => {
        waiting.set(
          id,
          (line) => done({ ms: performance.now() - started, chars: line.length, line }),
        );
        child.stdin.write(
          JSON.stringify({ jsonrpc: "2.0", id, method: "fs/read_text_file", params }) + "\n",
        );
      });
    },
    stop: () => new Promise<void>((done) => (child.once("exit", () => done()), child.stdin.end())),
  };
}

/** Median milliseconds of a command run `ROUNDS` times. */
function commandMs(argv: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    spawnSync(argv[0], argv.slice(1), { stdio: ["ignore", "ignore", "inherit"] });
    times.push(performance.now() - started);
  }
  return median(times);
}

const dir = mkdtempSync(join(tmpdir(), "tb-bench-read-"));
try {
  const path = join(dir, "big.txt");
  progress(`writing ${MB} MB to ${path}`);
  const lines = makeFile(path, MB);
  const middle = Math.floor(lines / 2);
  const serve = startServe();
  progress(`serve: ${serve.how.description}`);
  await serve.request({ sessionId: "s", path, line: 1, limit: 1 }); // Warm-up.
  const rows: Row[] = [];
  const timed = async (measure: string, params: Record<string, unknown>, baseline: string) => {
    const times: number[] = [];
    let answer = "";
    for (let i = 0; i < ROUNDS; i++) {
      const { ms, line } = await serve.request({ sessionId: "s", path, ...params });
      times.push(ms);
      answer = line;
    }
    const error = /"message":"([^"]{0,80})/.exec(answer)?.[1];
    rows.push({
      section: "read_text_file",
      measure: `${measure} ms (median of ${ROUNDS})`,
      value: fixed(median(times), 2) + (error ? ` (error: ${error}...)` : ""),
      baseline,
      verdict: `peak RSS ${fixed(peakMb(serve.pid), 0)} MB`,
    });
  };
  const head = commandMs(["head", "-n", "1", path]);
  const sed = commandMs(["sed", "-n", `${middle}p;${middle}q`, path]);
  await timed("line 1, limit 1", { line: 1, limit: 1 }, `head -n 1: ${fixed(head, 2)} ms`);
  await timed(
    `line ${middle}, limit 1`,
    { line: middle, limit: 1 },
    `sed -n ${middle}p: ${fixed(sed, 2)} ms`,
  );
  const whole = await serve.request({ sessionId: "s", path });
  rows.push({
    section: "read_text_file",
    measure: `whole file (${MB} MB) ms, once`,
    value: fixed(whole.ms, 0) +
      (/"error"/.test(whole.line) ? " (refused)" : ` (${whole.chars} chars)`),
    baseline: "-",
    verdict: `peak RSS ${fixed(peakMb(serve.pid), 0)} MB`,
  });
  await serve.stop();
  console.log(formatTable(rows));
  if (process.env.BENCH_MARKDOWN) console.log(`\n${formatMarkdown(rows)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
