/**
 * The guard's cost: `terminal/create` + `wait_for_exit` of `true` on a
 * TerminalService with the policy (the shipped rules plus a few) and the audit
 * log on, beside the same with both off, in the same process, rounds
 * alternating so that the machine's load hits both alike. Also the audit
 * log's own cost per event, and the lookup of the program a sent line goes to
 * (`input`: checked as shell only for a shell; issue 15 item 8).
 *
 * Run from the repository root, on either runtime:
 *
 *     node_modules/.bin/bun bench/guard.ts
 *     node_modules/.bin/deno run -A bench/guard.ts
 *
 * `BENCH_ROUNDS` (300) rounds of each, after 30 warm-up rounds.
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuditLog } from "../lib/audit/log.ts";
import { createPolicy, DEFAULT_POLICY_RULES, loadShellParser } from "../lib/policy/mod.ts";
import { runtime } from "../lib/runtime/mod.ts";
import { Guard, refuseAsks } from "../lib/safety/guard.ts";
import { readsShellLines } from "../lib/safety/line_readers.ts";
import { Terminal } from "../lib/terminal/terminal.ts";
import { TerminalService } from "../lib/service/terminal_service.ts";
import {
  envNumber,
  fixed,
  formatTable,
  percentile,
  progress,
  type Row,
  verdict,
} from "./_report.ts";

const SESSION = "bench";
const env = runtime.env();
const rounds = envNumber(env, "BENCH_ROUNDS", 300);
const dir = mkdtempSync(join(tmpdir(), "termbridge-bench-guard-"));

/** Milliseconds of create + waitForExit; release not timed. */
async function run(service: TerminalService, request: { command: string; args?: string[] }) {
  const start = performance.now();
  const id = await service.create({ sessionId: SESSION, ...request });
  await service.waitForExit(SESSION, id);
  const ms = performance.now() - start;
  await service.release(SESSION, id);
  return ms;
}

async function main(): Promise<Row[]> {
  await loadShellParser(); // Once per process; the policy benchmark reports its load time.
  const audit = new AuditLog(join(dir, "audit.jsonl"));
  const on = new TerminalService({
    cwd: dir,
    guard: new Guard({
      mode: "serve",
      policy: createPolicy({
        ...DEFAULT_POLICY_RULES,
        deny: ["curl", "wget", "sudo"],
        read: ["/**"],
        write: ["${cwd}/**", "/tmp/**"],
      }),
      approver: refuseAsks,
      audit,
    }),
  });
  const off = new TerminalService({ cwd: dir });
  const rows: Row[] = [];
  for (
    const [name, request] of [
      ["argv", { command: "true", args: [] as string[] }],
      ["line", { command: "true" }],
    ] as [string, { command: string; args?: string[] }][]
  ) {
    progress(`guard: ${name}: ${rounds} rounds each, alternating`);
    const withGuard: number[] = [];
    const without: number[] = [];
    for (let i = 0; i < rounds + 30; i++) {
      // Which goes first alternates too: the second of a pair may find caches warm.
      const first = i % 2 === 0;
      const a = first ? await run(on, request) : 0;
      const b = await run(off, request);
      const c = first ? a : await run(on, request);
      if (i >= 30) withGuard.push(c), without.push(b);
    }
    const p50 = percentile(withGuard, 50);
    const base = percentile(without, 50);
    rows.push({
      section: "guard",
      measure: `create+wait of true (${name}), policy+audit on, p50 ms`,
      value: fixed(p50, 3),
      baseline: `both off ${fixed(base, 3)}`,
      verdict: verdict(`+${fixed(p50 - base, 3)} ms`, p50 - base < 0.5, "within 0.5 ms"),
    });
    rows.push({
      section: "guard",
      measure: `  p90 ms`,
      value: fixed(percentile(withGuard, 90), 3),
      baseline: `both off ${fixed(percentile(without, 90), 3)}`,
      verdict: "-",
    });
  }
  progress("guard: checkCommand alone");
  const guard = on.guard;
  const checks: [string, { argv?: string[]; line?: string }][] = [
    ["argv", { argv: ["true"] }],
    ["line", { line: "true" }],
  ];
  for (const [name, check] of checks) {
    const checks: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const start = performance.now();
      await guard.checkCommand(
        { origin: "create", ...check, cwd: dir, env },
        { mode: "serve", session: SESSION },
      );
      checks.push(performance.now() - start);
    }
    rows.push({
      section: "guard",
      measure: `guard.checkCommand (${name}) alone, policy+audit, p50 ms`,
      value: fixed(percentile(checks.slice(200), 50), 4),
      baseline: `p99 ${fixed(percentile(checks.slice(200), 99), 4)}`,
      verdict: "-",
    });
  }
  progress("guard: who reads a sent line (input to a program that is not a shell)");
  // The cost item 8 of issue 15 adds to each line sent with `input`: finding the terminal's
  // foreground program (/proc) and deciding whether it is a shell, on a real terminal.
  const cat = Terminal.spawn({ argv: ["cat"], cwd: dir });
  try {
    // cat prints nothing: poll until it has replaced its launcher.
    for (let i = 0; i < 1000 && cat.foreground()?.programs[0] !== "cat"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const lookups: number[] = [];
    for (let i = 0; i < 2200; i++) {
      const start = performance.now();
      const readers = cat.foreground()?.programs ?? [];
      if (readers.some(readsShellLines)) throw new Error("cat taken for a shell");
      lookups.push(performance.now() - start);
    }
    const p50 = percentile(lookups.slice(200), 50);
    rows.push({
      section: "guard",
      measure: "foreground reader of a sent line (/proc lookup + shell test), p50 ms",
      value: fixed(p50, 4),
      baseline: `p99 ${fixed(percentile(lookups.slice(200), 99), 4)}`,
      verdict: verdict(`${fixed(p50, 4)} ms`, p50 < 0.2, "under 0.2 ms per line"),
    });
  } finally {
    await cat.dispose();
  }
  progress("guard: audit record alone");
  const actor = { mode: "serve" as const, session: SESSION, terminal: "term-1" };
  const times: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const start = performance.now();
    audit.record(actor, { event: "start", pid: 1234, command: "true" });
    times.push(performance.now() - start);
  }
  rows.push({
    section: "guard",
    measure: "audit.record (one synchronous O_APPEND write) p50 ms",
    value: fixed(percentile(times, 50), 4),
    baseline: `p99 ${fixed(percentile(times, 99), 4)}`,
    verdict: "-",
  });
  audit.close();
  await Promise.all([on.releaseAll(), off.releaseAll()]);
  return rows;
}

try {
  const rows = await main();
  await runtime.writeStdout(
    `termbridge guard benchmark (${runtime.name} ${runtime.version})\n${formatTable(rows)}\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
