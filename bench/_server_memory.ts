/**
 * The "server memory" section: what a flood and a misbehaving client cost the
 * session server, measured in the server process (its VmHWM, reset before
 * each measure through /proc/PID/clear_refs, minus its settled VmRSS):
 * `yes` in a bash session for `BENCH_SERVER_FLOOD_S` seconds (20) with no
 * client, and with an attached client that never reads, each in a fresh
 * server and in one warmed by a short flood; twenty
 * `sessions/read` of a full 16 MiB log from a client that never reads; a
 * hundred connections that never finish their hello (descriptors held).
 * @module
 */

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { createConnection, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../lib/runtime/mod.ts";
import { fixed, progress, type Row, sleep, verdict } from "./_report.ts";
import { bash } from "./_server_shell.ts";
import { parsePreference, termbridgeCommand } from "./_termbridge.ts";

const SECTION = "server memory";
const MB = 1e6;

/** The server's VmRSS and VmHWM, bytes. */
function status(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)![1]) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** Starts a peak measure: the settled RSS now, with VmHWM reset to it. */
async function startPeak(pid: number): Promise<number> {
  await sleep(1000);
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
  return status(pid).rss;
}

/** A raw connection to the server's socket. */
async function connect(path: string): Promise<Socket> {
  const socket = createConnection(path);
  socket.on("error", () => {}); // The server may close it: that is measured, not a failure.
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return socket;
}

/**
 * Runs the section with termbridge from `root`: the binary when current, else
 * the sources on this runtime (`BENCH_TERMBRIDGE=binary|source` chooses).
 */
export async function serverMemorySection(root: string, floodSeconds: number): Promise<Row[]> {
  const preference = parsePreference("BENCH_TERMBRIDGE", runtime.env().BENCH_TERMBRIDGE);
  const tb = termbridgeCommand(root, [], preference);
  const world = realpathSync(mkdtempSync(join(tmpdir(), "termbridge-bench-servermem-")));
  const env: Record<string, string> = {
    ...runtime.env(),
    HOME: world,
    XDG_RUNTIME_DIR: join(world, "run"),
    XDG_STATE_HOME: join(world, "state"),
    XDG_CONFIG_HOME: join(world, "config"),
    TMPDIR: join(world, "tmp"),
    TERMBRIDGE_SOCKET: "",
    HISTFILE: "/dev/null",
    SHELL: "bash",
    TB: [tb.command, ...tb.args].join(" "),
  };
  mkdirSync(env.TMPDIR);
  const socketPath = join(world, "run", "termbridge", "default.sock");
  const which = tb.args.length === 0 ? "built binary (Bun)" : `sources on ${runtime.name}`;
  const rows: Row[] = [];
  const row = (measure: string, value: string, verdictText: string) =>
    rows.push({ section: SECTION, measure, value, baseline: which, verdict: verdictText });
  try {
    // Each measure in a fresh server: what one measure grew is not the next one's "before".
    let pid = 0;
    const fresh = async (warm = false) => {
      await bash("$TB kill-server >/dev/null 2>&1 || true", env);
      await bash("$TB new s --size 120x40 >/dev/null", env);
      const log = readFileSync(join(world, "state", "termbridge", "server-default.log"), "utf8");
      pid = Number([...log.matchAll(/server (\d+) listening/g)].at(-1)![1]);
      // Warm: the commands and a short flood once, so that loading and compiling their code
      // is not counted as the flood's (the RSS before then includes what that left).
      if (warm) {
        await bash(
          `$TB type s 'yes | head -c 2000000; echo WARM-; echo UP'$'\\n' && ` +
            `$TB wait s text $'WARM-\\nUP' --timeout 120 >/dev/null && $TB key s C-l`,
          env,
        );
      }
    };
    const counted = join(env.TMPDIR, "yes-bytes");
    const yes = async (label: string, warm: boolean, attach?: () => Promise<void>) => {
      await fresh(warm);
      label = `${warm ? "warm" : "fresh"} server, ${label}`;
      await attach?.();
      const before = await startPeak(pid);
      progress(`${SECTION}: yes for ${floodSeconds} s, ${label}`);
      await bash(
        `$TB type s 'timeout --foreground ${floodSeconds} yes | tee /dev/tty | wc -c >${counted}; echo FLOOD-; echo DONE'$'\\n' && ` +
          `$TB wait s text $'FLOOD-\\nDONE' --timeout ${floodSeconds + 120} >/dev/null`,
        env,
      );
      const grown = (status(pid).peak - before) / MB;
      const rate = Number(readFileSync(counted, "utf8")) / floodSeconds / MB;
      row(
        `yes in bash ${floodSeconds} s, ${label}: peak RSS over before, MB (${
          fixed(rate)
        } MB/s of y lines)`,
        `+${fixed(grown)} (${fixed(before / MB)} before)`,
        verdict(`+${fixed(grown)} MB`, grown <= 17.8 + 40, "<= +40 over the 17.8 MB ceilings"),
      );
    };
    let watcher: Socket | undefined;
    const stalled = async () => {
      watcher = await connect(socketPath);
      const hello = { hello: "termbridge", kind: "attach", name: "s", size: null, readOnly: true };
      watcher.write(JSON.stringify(hello) + "\n");
      watcher.pause(); // Never read again.
    };
    for (const warm of [false, true]) {
      await yes("no client", warm);
      try {
        await yes("an attached client that never reads", warm, stalled);
      } finally {
        watcher?.destroy();
      }
    }
    progress(`${SECTION}: twenty unread sessions/read of a full log`);
    await fresh();
    await bash(
      `$TB type s 'head -c 17500000 /dev/zero | tr "\\0" a | fold -w 99; echo FULL-; echo LOG'$'\\n' && ` +
        `$TB wait s text $'FULL-\\nLOG' --timeout 300 >/dev/null`,
      env,
    );
    const before = await startPeak(pid);
    const greedy = await connect(socketPath);
    try {
      greedy.pause();
      const request = (id: number) =>
        JSON.stringify({ jsonrpc: "2.0", id, method: "sessions/read", params: { name: "s" } });
      greedy.write(
        [JSON.stringify({ hello: "termbridge", kind: "rpc" })]
          .concat(Array.from({ length: 20 }, (_, i) => request(i))).join("\n") + "\n",
      );
      await sleep(3000);
      const grown = (status(pid).peak - before) / MB;
      row(
        "twenty unread sessions/read of a 16 MiB log: peak RSS over before, MB",
        `+${fixed(grown)} (${fixed(before / MB)} before)`,
        verdict(`+${fixed(grown)} MB`, grown < 160, "< +160, one answer (was +609)"),
      );
    } finally {
      greedy.destroy();
    }

    progress(`${SECTION}: a hundred connections without a hello`);
    const fds = () => readdirSync(`/proc/${pid}/fd`).length;
    const held = fds();
    const silent: Socket[] = [];
    try {
      for (let i = 0; i < 100; i++) {
        const socket = await connect(socketPath);
        socket.write(i % 2 === 0 ? "garbage\n" : '{"hello":"termbri');
        silent.push(socket);
      }
      await sleep(500);
      const soon = fds() - held;
      const start = performance.now();
      while (fds() > held && performance.now() - start < 30_000) await sleep(100);
      const after = performance.now() - start + 500;
      row(
        "a hundred connections that send garbage or half a hello: descriptors held",
        `${soon} after 0.5 s, ${fds() - held} after ${fixed(after / 1000)} s`,
        verdict(`${fds() - held} left`, fds() <= held, "all closed (hello timeout 5 s)"),
      );
    } finally {
      silent.forEach((socket) => socket.destroy());
    }
  } finally {
    await bash("$TB kill-server >/dev/null 2>&1 || true", env).catch(() => {});
    rmSync(world, { recursive: true, force: true });
  }
  return rows;
}
