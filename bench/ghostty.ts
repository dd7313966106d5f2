/**
 * ghostty-web (libghostty-vt in WebAssembly) beside our emulator
 * (`@xterm/headless` behind lib/terminal/emulator.ts): parse throughput of
 * the same flood files fed in 64 KiB chunks as a PTY delivers them, the two
 * alternating, `BENCH_ROUNDS` (3) rounds of `BENCH_MB` (50) MB per file.
 * Issue 18's evaluation; see bench/RESULTS.md for why it was not adopted.
 *
 *     node_modules/.bin/bun bench/ghostty.ts
 *     node_modules/.bin/deno run -A bench/ghostty.ts
 * @module
 */

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ghostty } from "ghostty-web";
import { runtime } from "../lib/runtime/mod.ts";
import { Emulator } from "../lib/terminal/emulator.ts";
import { feedAsPty, removeFloodFiles, writeFloodFiles } from "./_inputs.ts";
import { envNumber, fixed, median, progress } from "./_report.ts";

const wasmPath = join(
  dirname(fileURLToPath(import.meta.url)),
  "../node_modules/ghostty-web/ghostty-vt.wasm",
);
const decoder = new TextDecoder();
const loaded: { instance?: WebAssembly.Instance } = {};
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {
  env: {
    log: (at: number, length: number) => {
      const memory = loaded.instance!.exports.memory as WebAssembly.Memory;
      console.error("[ghostty-vt]", decoder.decode(new Uint8Array(memory.buffer, at, length)));
    },
  },
});
loaded.instance = instance;
const ghostty = new Ghostty(instance);
const env = runtime.env();
const megabytes = envNumber(env, "BENCH_MB", 50);
const rounds = envNumber(env, "BENCH_ROUNDS", 3);
const SIZE = { cols: 120, rows: 40 };

progress(`writing the ${megabytes} MB flood files`);
const { dir, files } = writeFloodFiles(megabytes, ["plain", "coloured"]);
try {
  console.log(`ghostty-web 0.4.0 vs @xterm/headless on ${runtime.name} ${runtime.version}`);
  for (const file of files) {
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      progress(`${file.kind}: round ${round} of ${rounds}`);
      // Scrollback in ghostty is a byte budget: about what 1000 lines of 120 cells take.
      const g = ghostty.createTerminal(SIZE.cols, SIZE.rows, { scrollbackLimit: 1000 * 120 * 16 });
      theirs.push(file.bytes / 1e3 / feedAsPty(file, (chunk) => g.write(chunk)));
      g.free();
      const emulator = new Emulator({ ...SIZE, scrollback: 1000 });
      ours.push(file.bytes / 1e3 / feedAsPty(file, (chunk) => emulator.write(chunk)));
      emulator.dispose();
    }
    const list = (rates: number[]) => rates.map((rate) => fixed(rate)).join(", ");
    console.log(
      `${file.kind}: ghostty-web ${fixed(median(theirs))} MB/s (${list(theirs)}), ` +
        `ours ${fixed(median(ours))} MB/s (${list(ours)}): ghostty ${
          fixed(median(theirs) / median(ours), 2)
        }x`,
    );
  }
} finally {
  removeFloodFiles(dir);
}
