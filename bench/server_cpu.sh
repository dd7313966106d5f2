#!/usr/bin/env bash
# CPU time of the session server per call, from /proc (schedstat of all its threads, its shells),
# in a private world started for the run; for an A/B of two binaries, alternate runs:
#
#   for b in base new base new; do TB=/tmp/ab/$b bash bench/server_cpu.sh; done
#
# Prints, per subcommand (`ls --names`, `type`, `exec true`; N calls each, default 150), the
# server's and its shells' CPU microseconds per call and the wall time per call; then, for
# `run --server` of 100 exec + expect-exit steps on a live session (RUNS runs, default 5, after
# one to warm up), the wall time and the CPU of the server, its shells and the run client.
set -euo pipefail
TB=${TB:?TB=path of the termbridge binary}
N=${N:-150}
RUNS=${RUNS:-5}
world=$(mktemp -d /tmp/termbridge-server-cpu-XXXXXX)
trap '"$TB" kill-server >/dev/null 2>&1 || true; rm -rf "$world"' EXIT
export HOME=$world XDG_RUNTIME_DIR=$world/run XDG_STATE_HOME=$world/state
export XDG_CONFIG_HOME=$world/config TERMBRIDGE_SOCKET= HISTFILE=/dev/null SHELL=bash
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
# POLICY='{"deny":["touch"]}': the world's termbridge.jsonc gets it, so the sessions have the
# typed-line check (a policy that allows everything gives them no hook at all).
if [ -n "${POLICY:-}" ]; then
  mkdir -p "$XDG_CONFIG_HOME/termbridge"
  printf '{"policy":%s}\n' "$POLICY" >"$XDG_CONFIG_HOME/termbridge/termbridge.jsonc"
fi
"$TB" new warm >/dev/null
"$TB" exec warm true >/dev/null
server=$(pgrep -f "server --socket $XDG_RUNTIME_DIR/termbridge/default.sock" | head -1)
# Nanoseconds of CPU of the server's threads, and of its children's (the shells).
server_ns() { local t=0 a; for f in /proc/"$server"/task/*/schedstat; do read -r a _ <"$f"; t=$((t + a)); done; echo $t; }
shells_ns() {
  local t=0 a p
  for p in $(pgrep -P "$server"); do
    for f in /proc/"$p"/task/*/schedstat; do read -r a _ <"$f"; t=$((t + a)); done
  done
  echo $t
}
for i in $(seq 30); do "$TB" ls --names >/dev/null; "$TB" type warm x; done
"$TB" key warm C-u
for what in "ls --names" "type warm x" "exec warm true"; do
  a=$(server_ns) s=$(shells_ns) t0=$EPOCHREALTIME
  for i in $(seq "$N"); do
    # shellcheck disable=SC2086 # the words of $what are the arguments
    "$TB" $what >/dev/null
    if [ "$what" = "type warm x" ] && ((i % 50 == 0)); then "$TB" key warm C-u; fi
  done
  t1=$EPOCHREALTIME b=$(server_ns) s2=$(shells_ns)
  echo "$what: server $(((b - a) / N / 1000)) us/call, shells $(((s2 - s) / N / 1000)) us/call," \
    "wall $(echo "$t0 $t1 $N" | awk '{printf "%.2f", ($2-$1)*1000/$3}') ms/call"
done
script=$world/steps.tb
echo "use warm" >"$script"
for ((i = 0; i < 100; i++)); do printf 'exec (exit %d)\nexpect-exit %d\n' $((i % 3)) $((i % 3)) >>"$script"; done
"$TB" run --server "$script" >/dev/null
for k in $(seq "$RUNS"); do
  a=$(server_ns) s=$(shells_ns) t0=$EPOCHREALTIME
  client=$({ /usr/bin/time -f "%U %S" "$TB" run --server "$script" >/dev/null; } 2>&1)
  t1=$EPOCHREALTIME b=$(server_ns) s2=$(shells_ns)
  echo "$t0 $t1 $a $b $s $s2 $client" | awk '{printf "run --server, 100 steps: wall %.0f ms, CPU server %.0f shells %.0f client %.0f ms\n",
    ($2-$1)*1000, ($4-$3)/1e6, ($6-$5)/1e6, ($7+$8)*1000}'
done
