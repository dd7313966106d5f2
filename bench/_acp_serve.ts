/**
 * The `termbridge serve` child of the ACP benchmark: started from the
 * compiled binary or from source, spoken to over its stdin/stdout, its RSS
 * read from /proc, and stopped by closing its stdin.
 * @module
 */

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import * as acp from "@agentclientprotocol/sdk";
import { type ExitStatus, type PipedProcess, runtime } from "../lib/runtime/mod.ts";
import { settleWithin } from "../lib/base/timing.ts";

/** Which termbridge to start: the binary when it exists (`auto`), or one of them. */
export type ServePreference = "auto" | "binary" | "source";

/** A running `termbridge serve` and the ACP stream over its stdio. */
export interface ServeChild {
  readonly pid: number;
  /** The command line that started it. */
  readonly argv: string[];
  /** What runs the service, for the report: `"dist/termbridge (bun 1.4.5)"`... */
  readonly description: string;
  /** The runtime the service runs on (`"bun"` for the binary), or `"unknown"`. */
  readonly runtimeName: string;
  /** ndjson over the child's stdin (our writable) and stdout (our readable). */
  readonly stream: acp.Stream;
  readonly exited: Promise<ExitStatus>;
  /**
   * Closes the child's stdin (serve exits 0 at end of input) and waits up to
   * `graceMs`; then SIGTERM, then SIGKILL. Resolves with how it ended and
   * whether closing stdin was enough.
   */
  stop(graceMs?: number): Promise<{ status: ExitStatus; byEof: boolean }>;
}

/** Argv that runs a TypeScript file on the runtime running this benchmark. */
function sourceArgv(script: string): string[] {
  return runtime.name === "deno"
    ? [process.execPath, "run", "-A", script]
    : [process.execPath, script];
}

/** `termbridge --version` of the binary, e.g. `"termbridge 0.1.0 (bun 1.4.5)"`. */
function binaryVersion(binary: string): string {
  const result = spawnSync(binary, ["--version"], { encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : "version unknown";
}

/**
 * Starts `termbridge serve` in `root` (the repository): `dist/termbridge
 * serve` when wanted and built, else this runtime running `main.ts serve`.
 * Its stderr passes through.
 * @throws {Error} when `binary` is asked for and not built
 */
export function startServe(root: string, prefer: ServePreference): ServeChild {
  const binary = join(root, "dist", "termbridge");
  const useBinary = prefer === "binary" || (prefer === "auto" && existsSync(binary));
  if (useBinary && !existsSync(binary)) {
    throw new Error(`Cannot start "${binary}": not built (run make build)`);
  }
  const argv = useBinary ? [binary, "serve"] : [...sourceArgv(join(root, "main.ts")), "serve"];
  const version = useBinary ? binaryVersion(binary) : "";
  const description = useBinary
    ? `dist/termbridge serve (compiled binary: ${version})`
    : `${runtime.name} main.ts serve (from source, ${runtime.name} ${runtime.version})`;
  // `termbridge 0.1.0 (bun 1.4.5)` names the runtime the binary was built with.
  const runtimeName = useBinary ? version.match(/\((\w+) /)?.[1] ?? "unknown" : runtime.name;
  const child: PipedProcess = runtime.spawnPiped({ argv, cwd: root, stderr: "inherit" });
  return {
    pid: child.pid,
    argv,
    description,
    runtimeName,
    stream: acp.ndJsonStream(child.stdin, child.stdout),
    exited: child.exited,
    async stop(graceMs = 5000) {
      await child.stdin.close().catch(() => {}); // Already closed with the connection.
      const ended = await settleWithin(child.exited, graceMs);
      if (ended !== undefined) return { status: ended, byEof: true };
      runtime.kill(child.pid, "SIGTERM");
      const status = await settleWithin(child.exited, graceMs) ??
        (runtime.kill(child.pid, "SIGKILL"), await child.exited);
      return { status, byEof: false };
    },
  };
}

/** A process's resident set (`VmRSS` in /proc/PID/status) in bytes, or NaN. */
export function rssOf(pid: number): number {
  try {
    const kb = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB/m)?.[1];
    return kb === undefined ? NaN : Number(kb) * 1024;
  } catch {
    return NaN; // Gone, or not Linux: the row says n/a.
  }
}

/** RSS of another process over a span: first reading, highest, last. */
export interface RssTrace {
  start: number;
  peak: number;
  end: number;
  samples: number;
}

/**
 * Reads `pid`'s RSS now and every `intervalMs` until `stop()`, which takes
 * one last reading. Sampling runs on our event loop, so a busy benchmark
 * takes fewer samples (the count is reported).
 */
export function watchRss(pid: number, intervalMs = 50): { stop: () => RssTrace } {
  const start = rssOf(pid);
  let peak = start;
  let samples = 1;
  const take = () => {
    const now = rssOf(pid);
    if (now > peak || Number.isNaN(peak)) peak = now;
    samples++;
    return now;
  };
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      const end = take();
      return { start, peak, end, samples };
    },
  };
}
