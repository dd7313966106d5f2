/**
 * Section 2: from a keystroke to its echo on the screen, next to tmux driven
 * through its client; and the cost of starting and ending a program.
 * @module
 */

import { runtime } from "../lib/runtime/mod.ts";
import { Terminal } from "../lib/terminal/terminal.ts";
import { BASH, openBash, PROMPT, waitForLine, waitForPrompt } from "./_bash.ts";
import { echoFloor } from "./_echo_floor.ts";
import { fixed, percentile, progress, ratio, type Row, verdict } from "./_report.ts";
import { pollPane, tmuxAvailable, TmuxServer } from "./_tmux.ts";

const SECTION = "round trip";

/**
 * Latencies (ms) of `echo X<i>` + Enter until `X<i>` shows on its own line,
 * in a Terminal; also how long disposing the idle shell took afterwards.
 */
async function terminalEchoes(rounds: number): Promise<{ latencies: number[]; disposeMs: number }> {
  const terminal = await openBash();
  try {
    const latencies: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const start = performance.now();
      terminal.type(`echo X${i}\r`);
      await waitForLine(terminal, `X${i}`);
      latencies.push(performance.now() - start);
      await waitForPrompt(terminal); // Start every round from an idle shell.
    }
    const start = performance.now();
    await terminal.dispose();
    return { latencies, disposeMs: performance.now() - start };
  } finally {
    await terminal.dispose();
  }
}

/** The same in tmux: `send-keys`, then `capture-pane` as fast as the client runs. */
async function tmuxEchoes(rounds: number): Promise<number[]> {
  // tmux's panes did not take PS1 from the environment here: set it in the command.
  const command = `PS1='${PROMPT} ' PROMPT_COMMAND= HISTFILE=/dev/null exec ${BASH.join(" ")}`;
  const server = new TmuxServer(command, { cols: 120, rows: 40 });
  const isPrompt = (lines: string[]) => lines.at(-1) === PROMPT;
  const poll = { intervalMs: 0, timeoutMs: 10_000 };
  try {
    await pollPane(server, isPrompt, { ...poll, what: "the prompt" });
    const latencies: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const start = performance.now();
      server.sendLine(`echo Y${i}`);
      await pollPane(server, (lines) => lines.includes(`Y${i}`), { ...poll, what: `Y${i}` });
      latencies.push(performance.now() - start);
      await pollPane(server, isPrompt, { ...poll, what: "the prompt" });
    }
    return latencies;
  } finally {
    server.dispose();
  }
}

/** Milliseconds from spawning `true` in a bare runtime PTY to its exit, `rounds` times. */
async function ptyTrueRuns(rounds: number): Promise<number[]> {
  const env = runtime.env();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const pty = runtime.spawnPty({ argv: ["true"], env, cols: 80, rows: 24, onData: () => {} });
    try {
      await pty.exited;
      times.push(performance.now() - start);
    } finally {
      await pty.close();
    }
  }
  return times;
}

/** The same through `Terminal.spawn` and `wait()` (the emulator and logs included). */
async function terminalTrueRuns(rounds: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const terminal = Terminal.spawn({ argv: ["true"], cols: 80, rows: 24 });
    try {
      await terminal.wait();
      times.push(performance.now() - start);
    } finally {
      await terminal.dispose();
    }
  }
  return times;
}

/** Runs the section with `rounds` repetitions of each measure. */
export async function roundTripSection(rounds: number): Promise<Row[]> {
  progress(`${SECTION}: termbridge echo x${rounds}`);
  const { latencies: ours, disposeMs } = await terminalEchoes(rounds);
  progress(`${SECTION}: the same bash read by python3 x${rounds}`);
  const floor = echoFloor(rounds);
  progress(`${SECTION}: tmux echo x${rounds}`);
  const tmux = tmuxAvailable() ? await tmuxEchoes(rounds) : [];
  progress(`${SECTION}: spawn-to-exit of true x${rounds}`);
  const ptyTrue = await ptyTrueRuns(rounds);
  const terminalTrue = await terminalTrueRuns(rounds);

  const p50 = percentile(ours, 50), p99 = percentile(ours, 99);
  const tmuxP50 = percentile(tmux, 50), tmuxP99 = percentile(tmux, 99);
  const speedup = tmuxP50 / p50;
  const row = (measure: string, value: number, baseline: string, verdictText: string): Row => ({
    section: SECTION,
    measure,
    value: fixed(value, 3),
    baseline,
    verdict: verdictText,
  });
  return [
    row(
      `echo p50 ms (${rounds} rounds)`,
      p50,
      `tmux ${fixed(tmuxP50, 3)}`,
      `${verdict(`${fixed(speedup, 1)}x faster`, speedup >= 5, ">= 5x")}; ${
        verdict(`${fixed(p50, 3)} ms`, p50 <= 0.2, "<= 0.2 ms (issue 18)")
      }`,
    ),
    row("echo p99 ms", p99, `tmux ${fixed(tmuxP99, 3)}`, `${fixed(tmuxP99 / p99, 1)}x faster`),
    row(
      "echo p50 ms, the same bash read by python3 (no emulator)",
      percentile(floor, 50),
      `p99 ${fixed(percentile(floor, 99), 3)}`,
      `the floor: ours = ${ratio(p50, percentile(floor, 50))} of it`,
    ),
    row(
      "dispose of the idle bash ms (once)",
      disposeMs,
      "-",
      "dispose hangs the shell up (SIGHUP), as closing a window does",
    ),
    row(
      "spawn-to-exit of true p50 ms, Terminal.spawn",
      percentile(terminalTrue, 50),
      `runtime.spawnPty ${fixed(percentile(ptyTrue, 50), 3)}`,
      ratio(percentile(terminalTrue, 50), percentile(ptyTrue, 50)),
    ),
    row(
      "spawn-to-exit of true p99 ms, Terminal.spawn",
      percentile(terminalTrue, 99),
      `runtime.spawnPty ${fixed(percentile(ptyTrue, 99), 3)}`,
      ratio(percentile(terminalTrue, 99), percentile(ptyTrue, 99)),
    ),
  ];
}
