/**
 * The browser dashboard (issue 17), in headless chromium through
 * playwright-core, against the built binary's session server:
 * - `termbridge type` to the character painted in the page (p50, p95; the
 *   goal is a p50 under 30 ms), measured with both clocks on the epoch;
 *   and a key typed in the page by its driver to its echo painted (the
 *   page's WebSocket path without a command's start-up);
 * - a flood in a session, watched by a page and not: the PTY's throughput
 *   (goal: watched >= 0.9x) and the server's peak RSS;
 * - 50 live sessions (each printing a line a second) on the dashboard, and
 *   50 idle ones: the server's CPU and the page's frame rate.
 *
 *   node_modules/.bin/bun bench/web.ts
 *   node_modules/.bin/deno run -A bench/web.ts
 *
 * BENCH_ROUNDS (default 50) latency rounds; BENCH_FLOOD_MB (default 100);
 * BENCH_SESSIONS (default 50); BENCH_BINARY (default dist/termbridge): the
 * termbridge to measure (another build, for an A/B).
 * @module
 */

import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { runtime } from "../lib/runtime/mod.ts";
import { envNumber, fixed, percentile, progress } from "./_report.ts";

const env0 = runtime.env();
const BINARY = env0.BENCH_BINARY || new URL("../dist/termbridge", import.meta.url).pathname;
const CHROMIUM = "/usr/bin/chromium";
const ROUNDS = envNumber(env0, "BENCH_ROUNDS", 50);
const FLOOD_MB = envNumber(env0, "BENCH_FLOOD_MB", 100);
const SESSIONS = envNumber(env0, "BENCH_SESSIONS", 50);

if (!existsSync(BINARY) || !existsSync(CHROMIUM)) {
  console.log(`bench/web: skipped: needs ${BINARY} (make build) and ${CHROMIUM} (make tools)`);
  runtime.exit(0);
}

const world = realpathSync(mkdtempSync(join(tmpdir(), "termbridge-bench-web-")));
const env: Record<string, string> = {
  ...env0,
  HOME: world,
  XDG_RUNTIME_DIR: join(world, "run"),
  XDG_STATE_HOME: join(world, "state"),
  XDG_CONFIG_HOME: join(world, "config"),
  TERMBRIDGE_SOCKET: "",
  HISTFILE: "/dev/null",
  SHELL: "bash",
};
mkdirSync(join(world, "config", "termbridge"), { recursive: true });
writeFileSync(
  join(world, "config", "termbridge", "termbridge.jsonc"),
  '{ "limits": { "terminals": 200 } }',
);

/** Runs `termbridge ARGS`; its stdout. */
async function tb(...args: string[]): Promise<string> {
  const child = runtime.spawnPiped({ argv: [BINARY, ...args], env, cwd: world });
  await child.stdin.close();
  const [out, status] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (status.exitCode !== 0) throw new Error(`termbridge ${args.join(" ")} failed: ${out}`);
  return out;
}

/** The server's pid. */
function serverPid(): number {
  const log = readFileSync(join(world, "state", "termbridge", "server-default.log"), "utf8");
  return Number([...log.matchAll(/server (\d+) listening/g)].at(-1)![1]);
}

function procStatus(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) =>
    l.startsWith(field + ":")
  );
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

/** CPU time of a process so far, in ms (utime + stime; 100 ticks a second). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU time (ms) of `root`'s descendants still alive (the browser's processes). */
function treeCpuMs(root: number): number {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const within = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) {
      if (at === root) return true;
    }
    return false;
  };
  let total = 0;
  for (const pid of parents.keys()) {
    if (!within(pid)) continue;
    try {
      total += cpuMs(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return total;
}

const now = () => performance.timeOrigin + performance.now();

/** What the bench adds to the page: paint times of the markers, by number. */
type Painted = { painted: Record<string, number> };

/** The xterm.js terminal as far as the bench uses it. */
interface PageTerm {
  onWriteParsed(listener: () => void): void;
  buffer: {
    active: {
      baseY: number;
      cursorY: number;
      getLine(y: number): { translateToString(trim: boolean): string } | undefined;
    };
  };
}

async function openView(page: Page, name: string): Promise<void> {
  await page.click(`.tile[data-name="${name}"]`);
  await page.waitForFunction(() =>
    (globalThis as unknown as { termbridge: { state: { view: { id: number | null } } } })
      .termbridge.state.view?.id != null
  );
}

/** CPU (ms) the server and the browser used during the last flood. */
const floodCpu = { server: 0, browser: 0 };

/** Seconds the session's flood took, as the shell measured it. */
async function flood(name: string): Promise<number> {
  const server0 = cpuMs(serverPid());
  const browser0 = treeCpuMs(process.pid);
  await tb(
    "type",
    name,
    `s=$(date +%s%N); head -c ${
      FLOOD_MB * 1_000_000
    } /dev/zero | tr '\\0' x; e=$(date +%s%N); echo; echo TOOK $(( (e - s) / 1000000 ))ms\n`,
  );
  await tb("wait", name, "regex", "TOOK [0-9]+ms", "--timeout", "600");
  const screen = await tb("screen", name);
  floodCpu.server = cpuMs(serverPid()) - server0;
  floodCpu.browser = treeCpuMs(process.pid) - browser0;
  return Number(/TOOK (\d+)ms/.exec(screen)![1]) / 1000;
}

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true });
try {
  await tb("new", "lat", "--", "cat");
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  await page.goto((await tb("web")).trim());
  await page.waitForSelector('.tile[data-name="lat"]');
  const pid = serverPid();

  // 1. type -> painted.
  await openView(page, "lat");
  await page.evaluate(() => {
    const g = globalThis as unknown as {
      termbridge: { state: { view: { term: PageTerm } } };
      painted: Record<string, number>;
    };
    g.painted = {};
    const term = g.termbridge.state.view.term;
    term.onWriteParsed(() => {
      const buffer = term.buffer.active;
      const line = buffer.getLine(buffer.baseY + buffer.cursorY - 1)?.translateToString(true) ?? "";
      const match = /^m(\d+)$/.exec(line);
      if (match && !(match[1] in g.painted)) {
        // The frame after the write is the one that shows it.
        requestAnimationFrame(() =>
          g.painted[match[1]] = performance.timeOrigin + performance.now()
        );
      }
    });
  });
  const latencies: number[] = [];
  /** How long `termbridge type` itself took (its start-up included). */
  const returned: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const start = now();
    await tb("type", "lat", `m${i}\n`);
    returned.push(now() - start);
    await page.waitForFunction(
      (n) => (globalThis as unknown as Painted).painted[n] !== undefined,
      String(i),
    );
    latencies.push(
      await page.evaluate((n) => (globalThis as unknown as Painted).painted[n], String(i)) - start,
    );
  }
  console.log(
    `type -> painted in the browser (${ROUNDS} rounds): p50 ${
      fixed(percentile(latencies, 50))
    } ms, p95 ${fixed(percentile(latencies, 95))} ms (goal: p50 < 30 ms); the type command ${
      fixed(percentile(returned, 50))
    } ms p50 of it (start-up to exit)`,
  );

  // 1b. A key typed in the page (the driver's) -> its echo painted: the page's own path.
  await page.click("#take");
  await page.waitForFunction(() =>
    document.getElementById("driver")!.textContent === "you drive it"
  );
  await page.evaluate(() => {
    const g = globalThis as unknown as {
      termbridge: { state: { view: { term: PageTerm & { onWriteParsed(f: () => void): void } } } };
      keyLatencies: number[];
      expecting: { t0: number; length: number } | null;
    };
    const term = g.termbridge.state.view.term as PageTerm;
    const cursorLine = () => {
      const buffer = term.buffer.active;
      return buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(true) ?? "";
    };
    g.keyLatencies = [];
    g.expecting = null;
    document.addEventListener("keydown", (event) => {
      if (event.key.length === 1) {
        g.expecting = { t0: performance.now(), length: cursorLine().length + 1 };
      }
    }, true);
    term.onWriteParsed(() => {
      const expecting = g.expecting;
      if (expecting === null || cursorLine().length !== expecting.length) return;
      g.expecting = null;
      requestAnimationFrame(() => g.keyLatencies.push(performance.now() - expecting.t0));
    });
  });
  for (let i = 0; i < ROUNDS; i++) {
    await page.keyboard.press(String.fromCharCode(97 + i % 26));
    await page.waitForFunction(
      (n) => (globalThis as unknown as { keyLatencies: number[] }).keyLatencies.length === n,
      i + 1,
    );
    if (i % 40 === 39) await page.keyboard.press("Enter"); // cat prints the line; a new one.
  }
  const keys = await page.evaluate(() =>
    (globalThis as unknown as { keyLatencies: number[] }).keyLatencies
  );
  console.log(
    `a key typed in the page (its driver) -> its echo painted (${ROUNDS} keys): p50 ${
      fixed(percentile(keys, 50))
    } ms, p95 ${fixed(percentile(keys, 95))} ms (the page's WebSocket, the server, the PTY)`,
  );
  await page.click("#release");

  // 2. Flood, unwatched then watched.
  await tb("new", "flood", "--", "bash", "--norc", "--noprofile");
  await page.click("#back");
  progress(`flood ${FLOOD_MB} MB unwatched`);
  const rssBefore = procStatus(pid, "VmRSS");
  let peakUnwatched = 0;
  const unwatchedSampler = setInterval(
    () => peakUnwatched = Math.max(peakUnwatched, procStatus(pid, "VmRSS")),
    50,
  );
  const unwatched = await flood("flood");
  const unwatchedCpu = { ...floodCpu };
  clearInterval(unwatchedSampler);
  await tb("clear", "flood");
  await openView(page, "flood");
  progress(`flood ${FLOOD_MB} MB watched`);
  let peak = 0;
  const sampler = setInterval(() => peak = Math.max(peak, procStatus(pid, "VmRSS")), 50);
  const watched = await flood("flood");
  clearInterval(sampler);
  console.log(
    `flood of ${FLOOD_MB} MB: unwatched ${fixed(FLOOD_MB / unwatched)} MB/s, watched ${
      fixed(FLOOD_MB / watched)
    } MB/s = ${fixed(unwatched / watched, 2)}x (goal >= 0.9x); server RSS ${
      fixed(rssBefore / 1e6)
    } MB before, peak ${fixed(peakUnwatched / 1e6)} MB unwatched, ${
      fixed(peak / 1e6)
    } MB watched (VmHWM ${fixed(procStatus(pid, "VmHWM") / 1e6)} MB); CPU s server/browser: ${
      fixed(unwatchedCpu.server / 1000, 2)
    }/${fixed(unwatchedCpu.browser / 1000, 2)} unwatched, ${fixed(floodCpu.server / 1000, 2)}/${
      fixed(floodCpu.browser / 1000, 2)
    } watched`,
  );
  await page.click("#back");

  // 3. Many sessions on the dashboard: idle, then live.
  for (let i = 0; i < SESSIONS; i++) {
    await tb("new", `s${i}`, "--", "bash", "--norc", "--noprofile");
  }
  await page.waitForSelector(`.tile[data-name="s${SESSIONS - 1}"]`);
  const measure = async (what: string) => {
    const cpu0 = cpuMs(pid);
    const t0 = performance.now();
    const fps = await page.evaluate(() =>
      new Promise<number>((resolve) => {
        let frames = 0;
        const start = performance.now();
        const tick = () => {
          frames++;
          if (performance.now() - start < 5000) requestAnimationFrame(tick);
          else resolve(frames / ((performance.now() - start) / 1000));
        };
        requestAnimationFrame(tick);
      })
    );
    const cpu = (cpuMs(pid) - cpu0) / (performance.now() - t0) * 100;
    console.log(
      `${SESSIONS} ${what} sessions on the dashboard: server CPU ${fixed(cpu)}%, page ${
        fixed(fps)
      } fps`,
    );
  };
  await measure("idle");
  for (let i = 0; i < SESSIONS; i++) {
    await tb("type", `s${i}`, "while :; do date +%T.%N; sleep 1; done\n");
  }
  await measure("live (a line a second each)");
} finally {
  await browser.close();
  await tb("kill-server").catch(() => {});
  rmSync(world, { recursive: true, force: true });
}
