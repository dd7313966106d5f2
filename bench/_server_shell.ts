/**
 * The shell-script parts of the session-server benchmark: bash scripts that
 * time termbridge's subcommands and the same steps with tmux, with bash's own
 * clock ($EPOCHREALTIME), so that process start is included as a script sees it.
 * @module
 */

import { runtime } from "../lib/runtime/mod.ts";

/** Runs a bash script with `env`; resolves with its stdout, or fails with its stderr. */
export async function bash(script: string, env: Record<string, string>): Promise<string> {
  const child = runtime.spawnPiped({ argv: ["bash", "-c", script], env, stderr: "pipe" });
  await child.stdin.close();
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr!).text(),
    child.exited,
  ]);
  if (status.exitCode !== 0) {
    throw new Error(`A benchmark script failed (exit ${status.exitCode}):\n${stderr}\n${script}`);
  }
  return stdout;
}

/** Milliseconds between consecutive $EPOCHREALTIME stamps on each line: one list per gap. */
export function gaps(output: string): number[][] {
  const rows = output.trim().split("\n").filter((line) => /^[\d.]+( [\d.]+)+$/.test(line))
    .map((line) => line.split(" ").map(Number));
  if (rows.length === 0) return [];
  return rows[0].slice(1).map((_, i) => rows.map((row) => (row[i + 1] - row[i]) * 1000));
}

/** `tmux` on the benchmark's private socket, as a shell word list. */
export const TMUX = 'tmux -S "$TMUX_SOCK"';

/**
 * One subcommand round trip: `--version` (start-up alone), `type`, `screen`,
 * N times, after warming up; the same with tmux send-keys and capture-pane;
 * then a compiled Bun hello world ($HELLO, the floor), `exec ex true`, and the
 * least a Bun client can do for `type` ($FLOOR_CLIENT: connect, send, read the answer).
 */
export function roundTripScript(rounds: number): string {
  return `set -e
$TB new rt --size 80x24 >/dev/null
$TB new ex >/dev/null
${TMUX} new-session -d -s rt -x 80 -y 24 "bash --norc --noprofile"
for i in 1 2 3 4 5; do $TB type rt x; $TB screen rt >/dev/null; $TB --version >/dev/null; done
$TB key rt C-u
for ((i = 0; i < ${rounds}; i++)); do
  t0=$EPOCHREALTIME; $TB --version >/dev/null
  t1=$EPOCHREALTIME; $TB type rt x
  t2=$EPOCHREALTIME; $TB screen rt >/dev/null
  t3=$EPOCHREALTIME; ${TMUX} send-keys -t rt x
  t4=$EPOCHREALTIME; ${TMUX} capture-pane -p -t rt >/dev/null
  t5=$EPOCHREALTIME; "$HELLO" >/dev/null
  t6=$EPOCHREALTIME; $TB exec ex true
  t7=$EPOCHREALTIME; "$FLOOR_CLIENT"
  t8=$EPOCHREALTIME
  echo "$t0 $t1 $t2 $t3 $t4 $t5 $t6 $t7 $t8"
  if (( i % 20 == 19 )); then $TB key rt C-u; ${TMUX} send-keys -t rt C-u; fi
done
$TB close rt
$TB close ex
`;
}

/**
 * The 100-step script: exec a command whose exit code is i % 3 and check the
 * code, 100 times; with termbridge (exec's own exit status), with tmux and
 * wait-for (the code echoed into the pane and read back with capture-pane),
 * and with tmux and polling capture-pane. Prints the time of each and the
 * number of wrong exit codes.
 */
export function hundredStepScript(steps: number): string {
  return `set -e
$TB new steps >/dev/null
$TB exec steps true >/dev/null
${TMUX} new-session -d -s steps -x 120 -y 40 "bash --norc --noprofile"
${TMUX} send-keys -t steps "PS1='$ '" Enter
sleep 0.3
t0=$EPOCHREALTIME; bad=0
for ((i = 0; i < ${steps}; i++)); do
  c=$((i % 3)); rc=0
  $TB exec steps "(exit $c)" >/dev/null || rc=$?
  [ "$rc" = "$c" ] || bad=$((bad + 1))
done
t1=$EPOCHREALTIME; echo "termbridge $t0 $t1 $bad"
# The same steps through one connection: a script of exec + expect-exit lines, run --server,
# in a session opened before the clock starts (as tmux's is).
script=$(mktemp); echo "use steps-run" > "$script"
for ((i = 0; i < ${steps}; i++)); do c=$((i % 3)); printf 'exec (exit %d)\nexpect-exit %d\n' $c $c >> "$script"; done
$TB new steps-run >/dev/null && $TB exec steps-run true >/dev/null
t0=$EPOCHREALTIME; rc=0
$TB run --server "$script" >/dev/null || rc=$?
t1=$EPOCHREALTIME; echo "termbridge-run-server $t0 $t1 $([ $rc = 0 ] && echo 0 || echo 1)"
# Once more: a server that has run these lines before (JavaScript's JIT warm), as a long-lived one is.
t0=$EPOCHREALTIME; rc=0
$TB run --server "$script" >/dev/null || rc=$?
t1=$EPOCHREALTIME; echo "termbridge-run-server-again $t0 $t1 $([ $rc = 0 ] && echo 0 || echo 1)"
$TB close steps-run
# The same on a server without a command policy (--policy off, so no typed-line check: tmux has
# none), first run and again.
$TB -L bare server --policy off --no-audit >/dev/null 2>&1 &
until $TB -L bare ls >/dev/null 2>&1; do sleep 0.05; done
$TB -L bare new steps-run >/dev/null && $TB -L bare exec steps-run true >/dev/null
for name in bare bare-again; do
  t0=$EPOCHREALTIME; rc=0
  $TB -L bare run --server "$script" >/dev/null || rc=$?
  t1=$EPOCHREALTIME; echo "termbridge-run-server-$name $t0 $t1 $([ $rc = 0 ] && echo 0 || echo 1)"
done
$TB -L bare kill-server >/dev/null
rm -f "$script"
t0=$EPOCHREALTIME; bad=0
for ((i = 0; i < ${steps}; i++)); do
  c=$((i % 3))
  ${TMUX} send-keys -t steps "(exit $c); echo \\"rc=\\$?:$i\\"; tmux wait-for -S step" Enter
  ${TMUX} wait-for step
  rc=$(${TMUX} capture-pane -p -t steps | grep -o "^rc=[0-9]*:$i\\$" | tail -1 | sed 's/rc=//; s/:.*//')
  [ "$rc" = "$c" ] || bad=$((bad + 1))
done
t1=$EPOCHREALTIME; echo "tmux-wait-for $t0 $t1 $bad"
${TMUX} send-keys -t steps clear Enter
t0=$EPOCHREALTIME; bad=0
for ((i = 0; i < ${steps}; i++)); do
  c=$((i % 3)); rc=
  ${TMUX} send-keys -t steps "(exit $c); echo \\"rc=\\$?:$i\\"" Enter
  until rc=$(${TMUX} capture-pane -p -t steps | grep -o "^rc=[0-9]*:$i\\$" | tail -1 | sed 's/rc=//; s/:.*//') && [ -n "$rc" ]; do
    sleep 0.005
  done
  [ "$rc" = "$c" ] || bad=$((bad + 1))
done
t1=$EPOCHREALTIME; echo "tmux-polling $t0 $t1 $bad"
$TB close steps
`;
}

/** Reads the lines of {@linkcode hundredStepScript}: name -> milliseconds and wrong codes. */
export function stepTimes(output: string): Map<string, { ms: number; wrong: number }> {
  const times = new Map<string, { ms: number; wrong: number }>();
  for (const line of output.trim().split("\n")) {
    const [name, t0, t1, bad] = line.split(" ");
    if (bad !== undefined) {
      times.set(name, { ms: (Number(t1) - Number(t0)) * 1000, wrong: Number(bad) });
    }
  }
  return times;
}
