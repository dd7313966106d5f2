/**
 * The cost of the guard's check of one file write (`fs/write_text_file`, a
 * recording): `Guard.checkWrite` of an existing file and of a new one in the
 * working directory, with the audit log on (it has three rotated files
 * beside it) and a user config, as `openSafety` makes the guard: p50 and p90
 * of 4000 checks after 500 warm-up ones.
 *
 *     node_modules/.bin/bun bench/write_check.ts [TREE]
 *     node_modules/.bin/deno run -A bench/write_check.ts [TREE]
 *
 * TREE (this repository by default) is the checkout whose guard is loaded,
 * so two builds can be compared in the same run.
 * @module
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import process from "node:process";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const tree = resolve(process.argv[2] ?? ROOT);
const { openSafety } = await import(`${tree}/lib/safety/setup.ts`);
const home = mkdtempSync(join(tmpdir(), "tb-bench-write-"));
const cwd = join(home, "ws");
mkdirSync(cwd);
mkdirSync(join(home, ".config", "termbridge"), { recursive: true });
writeFileSync(join(home, ".config", "termbridge", "termbridge.jsonc"), "{}\n");
mkdirSync(join(home, ".state", "termbridge"), { recursive: true });
for (const n of [1, 2, 3]) {
  writeFileSync(join(home, ".state", "termbridge", `audit.jsonl.${n}`), "");
}
writeFileSync(join(cwd, "existing.txt"), "x");
const env = {
  HOME: home,
  XDG_CONFIG_HOME: join(home, ".config"),
  XDG_STATE_HOME: join(home, ".state"),
};
const safety = openSafety("serve", { flags: {}, cwd, env });
const access = { cwd, env, writeRoots: null };
const actor = safety.guard.actor({ session: "bench" });
try {
  for (const name of ["existing.txt", "new.txt"]) {
    const path = join(cwd, name);
    for (let i = 0; i < 500; i++) safety.guard.checkWrite(path, 1, access, actor);
    const times: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const started = performance.now();
      safety.guard.checkWrite(path, 1, access, actor);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.floor(times.length * q)].toFixed(3);
    console.log(`${tree}: checkWrite ${name} p50 ${at(0.5)} ms, p90 ${at(0.9)} ms`);
  }
} finally {
  safety.close();
  rmSync(home, { recursive: true, force: true });
}
