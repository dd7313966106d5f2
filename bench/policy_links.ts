/**
 * The cost of looking at links and directories among a command's arguments
 * (a deny rule in force, path-like arguments, directories given to programs
 * termbridge does not list): checkLine p50 and p90 of four such lines, 4000
 * checks after 500 warm-up ones, each text varied so the parser's cache is
 * not timed.
 *
 *     node_modules/.bin/bun bench/policy_links.ts [TREE]
 *     node_modules/.bin/deno run -A bench/policy_links.ts [TREE]
 *
 * TREE (this repository by default) is the checkout whose policy is loaded,
 * so two builds can be compared in the same run.
 * @module
 */

import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tree = resolve(process.argv[2] ?? ROOT);
const { createPolicy } = await import(`${tree}/lib/policy/mod.ts`);
const policy = createPolicy({ deny: ["touch", "rm -rf"], ask: ["git push"] });
const context = { cwd: tree, env: { HOME: "/root", PATH: "/usr/local/bin:/usr/bin:/bin" } };
const LINES = [
  "cp -r lib/policy dist/out && node build/x.js --out dist/y",
  "perf stat ./node_modules/.bin/deno check main.ts",
  "tar czf /tmp/x.tgz lib tests bench",
  "make -C lib check && npm run build -- --outdir ./dist/missing/path",
];
const line = (i: number) => `${LINES[i % LINES.length]} ${i}`;
for (let i = 0; i < 500; i++) await policy.checkLine(line(i), context);
const times: number[] = [];
for (let i = 0; i < 4000; i++) {
  const started = performance.now();
  await policy.checkLine(line(i), context);
  times.push(performance.now() - started);
}
times.sort((a, b) => a - b);
const at = (q: number) => times[Math.floor(times.length * q)].toFixed(3);
console.log(`${tree}: checkLine p50 ${at(0.5)} ms, p90 ${at(0.9)} ms`);
