/**
 * The session server (issue 10) beside tmux, in the same run: a subcommand
 * round trip from a shell script (`type`, then `screen`; start-up alone),
 * the 100-step exec script, attach keystroke-to-echo, and the memory of an
 * idle server with 100 sessions. Everything runs in a private world (its own
 * XDG dirs and tmux socket); the servers are killed at the end.
 *
 *   node_modules/.bin/bun bench/server.ts
 *   node_modules/.bin/deno run -A bench/server.ts
 *
 * BENCH_TERMBRIDGE=source runs main.ts instead of dist/termbridge;
 * BENCH_BINARY=PATH measures another binary (main's, for an A/B: alternate
 * runs with and without it); BENCH_ONLY=roundtrip,steps,attach,memory runs
 * only those sections (default all); BENCH_ROUNDS (default 100).
 * @module
 */

import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runtime } from "../lib/runtime/mod.ts";
import { envNumber, fixed, percentile, progress } from "./_report.ts";
import {
  bash,
  gaps,
  hundredStepScript,
  roundTripScript,
  stepTimes,
  TMUX,
} from "./_server_shell.ts";
import { parsePreference, termbridgeCommand } from "./_termbridge.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const env0 = runtime.env();
const ROUNDS = envNumber(env0, "BENCH_ROUNDS", 100);
const tb = termbridgeCommand(
  ROOT,
  [],
  env0.BENCH_BINARY ? "binary" : parsePreference("BENCH_TERMBRIDGE", env0.BENCH_TERMBRIDGE),
  env0.BENCH_BINARY || undefined,
);
const SECTIONS = ["roundtrip", "steps", "attach", "memory"] as const;
const only = (env0.BENCH_ONLY ?? "").split(",").filter((name) => name !== "");
for (const name of only) {
  if (!(SECTIONS as readonly string[]).includes(name)) {
    throw new RangeError(`Cannot read BENCH_ONLY: "${name}" is not one of ${SECTIONS.join(", ")}`);
  }
}
/** Whether section `name` runs (BENCH_ONLY). */
const runs = (name: (typeof SECTIONS)[number]) => only.length === 0 || only.includes(name);
/**
 * The floor client's source (a Bun program, compiled like termbridge): `type rt x`'s two lines,
 * sent at once; exits 0 on the answer, 1 on an error answer or a closed connection.
 */
const FLOOR_CLIENT = `let got = "";
await Bun.connect({
  unix: process.env.FLOOR_SOCKET,
  socket: {
    data(_socket, bytes) {
      got += new TextDecoder().decode(bytes);
      if (got.includes('"id":1,')) process.exit(got.includes('"error"') ? 1 : 0);
    },
    close() { process.exit(1); },
  },
}).then((socket) => socket.write(
  JSON.stringify({ hello: "termbridge", kind: "rpc", client: "floor" }) + "\\n" +
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "console/run",
    params: { line: "type -- x", session: "rt", cwd: "/", hints: "command-line" } }) + "\\n",
));
`;
const world = realpathSync(mkdtempSync(join(tmpdir(), "termbridge-bench-server-")));
const env: Record<string, string> = {
  ...env0,
  HOME: world,
  XDG_RUNTIME_DIR: join(world, "run"),
  XDG_STATE_HOME: join(world, "state"),
  XDG_CONFIG_HOME: join(world, "config"),
  TERMBRIDGE_SOCKET: "",
  HISTFILE: "/dev/null",
  SHELL: "bash",
  TB: [tb.command, ...tb.args].join(" "),
  TMUX_SOCK: join(world, "tmux.sock"),
};
delete env.TMUX;
// The floor a subcommand is measured against: a compiled Bun hello world's start-up. Beside it, the
// least any Bun client of the server can do for `type`: connect, send the hello and type's
// request, read the answer, exit (no argument or socket checks, nothing else loaded).
const hello = join(world, "hello");
writeFileSync(`${hello}.ts`, 'console.log("hello");\n');
const floorClient = join(world, "floor_client");
writeFileSync(`${floorClient}.ts`, FLOOR_CLIENT);
for (const program of [hello, floorClient]) {
  // The hello world as the issue measured it (a plain compile); the client as termbridge is built.
  const likeTermbridge = program === floorClient ? ["--minify", "--bytecode", "--format=esm"] : [];
  const built = runtime.spawnPiped({
    argv: [
      join(ROOT, "node_modules", ".bin", "bun"),
      "build",
      "--compile",
      ...likeTermbridge,
      `${program}.ts`,
      "--outfile",
      program,
    ],
    stderr: "pipe",
  });
  await built.stdin.close();
  const [, errors, status] = await Promise.all([
    new Response(built.stdout).text(),
    new Response(built.stderr!).text(),
    built.exited,
  ]);
  if (status.exitCode !== 0) throw new Error(`cannot compile ${program}.ts:\n${errors}`);
}
env.HELLO = hello;
env.FLOOR_CLIENT = floorClient;
env.FLOOR_SOCKET = join(world, "run", "termbridge", "default.sock");
// 100 sessions at once: above the default limits.terminals (32).
mkdirSync(join(world, "config", "termbridge"), { recursive: true });
writeFileSync(
  join(world, "config", "termbridge", "termbridge.jsonc"),
  '{ "limits": { "terminals": 200 } }',
);

const p = (values: number[], q: number) => fixed(percentile(values, q), 2);

/** VmRSS of a process, in KiB. */
function rssKib(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

function serverPid(): number {
  const log = readFileSync(join(world, "state", "termbridge", "server-default.log"), "utf8");
  return Number([...log.matchAll(/server (\d+) listening/g)].at(-1)![1]);
}

/** Time from writing a key to the first byte the attached client shows, N times. */
async function echoLatency(argv: string[], ready: RegExp, keys: number): Promise<number[]> {
  let seen = "";
  let onByte: (() => void) | undefined;
  const pty = runtime.spawnPty({
    argv,
    env,
    cols: 80,
    rows: 24,
    onData: (bytes) => {
      seen += new TextDecoder().decode(bytes);
      onByte?.();
    },
  });
  const next = (timeoutMs: number) =>
    new Promise<void>((done, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`no echo after ${timeoutMs} ms:\n${seen}`)),
        timeoutMs,
      );
      onByte = () => {
        clearTimeout(timer);
        onByte = undefined;
        done();
      };
    });
  try {
    const deadline = performance.now() + 15_000;
    while (!ready.test(seen)) {
      if (performance.now() > deadline) throw new Error(`never ready: ${JSON.stringify(seen)}`);
      await next(15_000).catch(() => {});
    }
    await new Promise((done) => setTimeout(done, 300)); // Let the first picture settle.
    const times: number[] = [];
    for (let i = 0; i < keys; i++) {
      const key = i % 2 === 0 ? "x" : "\x7f";
      const echoed = next(5_000);
      const t0 = performance.now();
      pty.write(new TextEncoder().encode(key));
      await echoed;
      times.push(performance.now() - t0);
      await new Promise((done) => setTimeout(done, 5)); // The rest of the redraw.
    }
    return times;
  } finally {
    runtime.kill(pty.pid, "SIGHUP");
    await pty.exited;
    await pty.close();
  }
}

const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.log(line);
};

try {
  progress(`termbridge: ${tb.description}${tb.warning ? ` (${tb.warning})` : ""}`);
  say(`## ${runtime.name} ${runtime.version} running the benchmark; ${tb.description}`);
  if (runs("roundtrip")) {
    say("");
    progress("round trips");
    const [version, type, screen, tmuxSend, tmuxCapture, helloStart, execTrue, floor] = gaps(
      await bash(roundTripScript(ROUNDS), env),
    );
    const pair = type.map((t, i) => t + screen[i]);
    const tmuxPair = tmuxSend.map((t, i) => t + tmuxCapture[i]);
    say(
      `| measure (${ROUNDS} rounds, from a bash script) | p50 ms | p99 ms | tmux p50 ms | tmux p99 ms |`,
    );
    say("| --- | --- | --- | --- | --- |");
    say(`| start-up alone: termbridge --version | ${p(version, 50)} | ${p(version, 99)} | - | - |`);
    say(
      `| a compiled Bun hello world (the floor) | ${p(helloStart, 50)} | ${
        p(helloStart, 99)
      } | - | - |`,
    );
    const ratio = (values: number[]) =>
      fixed(percentile(values, 50) / percentile(helloStart, 50), 2);
    say(
      `| a minimal Bun client sending type's request (the floor of type) | ${p(floor, 50)} | ${
        p(floor, 99)
      } | - | - |`,
    );
    say(`| exec NAME true (a live session) | ${p(execTrue, 50)} | ${p(execTrue, 99)} | - | - |`);
    say(
      `| p50 / hello world: --version ${ratio(version)}x, type ${
        ratio(type)
      }x (the minimal client ${ratio(floor)}x), exec true ${ratio(execTrue)}x | | | | |`,
    );
    say(
      `| type NAME x (tmux send-keys) | ${p(type, 50)} | ${p(type, 99)} | ${p(tmuxSend, 50)} | ${
        p(tmuxSend, 99)
      } |`,
    );
    say(
      `| screen NAME (tmux capture-pane -p) | ${p(screen, 50)} | ${p(screen, 99)} | ${
        p(tmuxCapture, 50)
      } | ${p(tmuxCapture, 99)} |`,
    );
    say(
      `| type + screen | ${p(pair, 50)} | ${p(pair, 99)} | ${p(tmuxPair, 50)} | ${
        p(tmuxPair, 99)
      } |`,
    );
  }
  if (runs("steps")) {
    progress("100-step script");
    const steps = stepTimes(await bash(hundredStepScript(100), env));
    const ours = steps.get("termbridge")!;
    const oneConnection = steps.get("termbridge-run-server")!;
    const again = steps.get("termbridge-run-server-again")!;
    const bare = steps.get("termbridge-run-server-bare")!;
    const bareAgain = steps.get("termbridge-run-server-bare-again")!;
    const waitFor = steps.get("tmux-wait-for")!;
    const polling = steps.get("tmux-polling")!;
    say("");
    say(
      "| 100 steps: exec + exit code | total ms | per step ms | wrong exit codes | tmux is slower by |",
    );
    say("| --- | --- | --- | --- | --- |");
    for (
      const [name, figures] of [["termbridge exec", ours], [
        "termbridge run --server (one connection; wrong = the script failed)",
        oneConnection,
      ], [
        "termbridge run --server, the same script again (the server's JIT warm)",
        again,
      ], [
        "termbridge run --server, a server without a policy (no typed-line check; tmux has none)",
        bare,
      ], [
        "the same, again",
        bareAgain,
      ], [
        "tmux send-keys + wait-for + capture-pane",
        waitFor,
      ], ["tmux send-keys + polling capture-pane", polling]] as const
    ) {
      say(
        `| ${name} | ${fixed(figures.ms, 0)} | ${fixed(figures.ms / 100, 2)} | ${figures.wrong} | ${
          name.startsWith("tmux")
            ? `${fixed(figures.ms / ours.ms, 2)}x (run --server: ${
              fixed(figures.ms / oneConnection.ms, 2)
            }x, again: ${fixed(figures.ms / again.ms, 2)}x; without a policy: ${
              fixed(figures.ms / bare.ms, 2)
            }x, ${fixed(figures.ms / bareAgain.ms, 2)}x)`
            : "-"
        } |`,
      );
    }
  }
  if (runs("attach")) {
    progress("attach latency");
    await bash(
      `$TB new at >/dev/null && ${TMUX} new-session -d -s at -x 80 -y 24 "bash --norc --noprofile"`,
      env,
    );
    const attached = await echoLatency(
      [tb.command, ...tb.args, "attach", "at"],
      /Ctrl\+\] detaches/,
      200,
    );
    const tmuxAttached = await echoLatency(
      ["tmux", "-S", env.TMUX_SOCK, "attach", "-t", "at"],
      /bash-[\d.]+[#$] /,
      200,
    );
    say("");
    say(
      "| attach: key written to the attached terminal -> first byte of its echo (200 keys) | p50 ms | p99 ms |",
    );
    say("| --- | --- | --- |");
    say(`| termbridge attach | ${p(attached, 50)} | ${p(attached, 99)} |`);
    say(`| tmux attach | ${p(tmuxAttached, 50)} | ${p(tmuxAttached, 99)} |`);
  }
  if (runs("memory")) {
    progress("memory of 100 idle sessions");
    await bash("$TB close at 2>/dev/null || true", env);
    const pid = serverPid();
    const before = rssKib(pid);
    await bash(`for i in $(seq 1 100); do $TB new m$i >/dev/null; done`, env);
    await new Promise((done) => setTimeout(done, 2000));
    const after = rssKib(pid);
    const shells = JSON.parse(await bash("$TB ls --json", env)).sessions.map((s: { pid: number }) =>
      rssKib(s.pid)
    );
    const tmuxPid = Number((await bash(`${TMUX} display-message -p '#{pid}'`, env)).trim());
    const tmuxBefore = rssKib(tmuxPid);
    await bash(
      `for i in $(seq 1 100); do ${TMUX} new-window -d "bash --norc --noprofile"; done`,
      env,
    );
    await new Promise((done) => setTimeout(done, 2000));
    const tmuxAfter = rssKib(tmuxPid);
    const avgShell = shells.reduce((a: number, b: number) => a + b, 0) / shells.length;
    say("");
    say(
      "| 100 idle sessions | server RSS before MB | after MB | per session MB | each shell's own RSS MB |",
    );
    say("| --- | --- | --- | --- | --- |");
    say(
      `| termbridge server | ${fixed(before / 1024, 1)} | ${fixed(after / 1024, 1)} | ${
        fixed((after - before) / 1024 / 100, 2)
      } | ${fixed(avgShell / 1024, 2)} |`,
    );
    say(
      `| tmux server | ${fixed(tmuxBefore / 1024, 1)} | ${fixed(tmuxAfter / 1024, 1)} | ${
        fixed((tmuxAfter - tmuxBefore) / 1024 / 100, 2)
      } | - |`,
    );
  }
  say("");
  say(`load average at the end: ${readFileSync("/proc/loadavg", "utf8").trim()}`);
} finally {
  await bash(
    `$TB kill-server >/dev/null 2>&1 || true; ${TMUX} kill-server >/dev/null 2>&1 || true`,
    env,
  ).catch(() => {});
  rmSync(world, { recursive: true, force: true });
}
