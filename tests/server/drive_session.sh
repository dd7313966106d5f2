#!/usr/bin/env bash
# Drives a session of the termbridge server from start to finish with the
# subcommands only: $TB is the termbridge command (the binary, or a runtime
# running main.ts). Prints ALL-OK at the end; any failed check exits non-zero
# with the step's name on stderr.
set -euo pipefail
tb() { $TB "$@"; }
fail() { echo "FAILED: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tb new demo --cwd "$work" --size 100x30
[ "$(tb exec demo 'echo hello')" = hello ] || fail "exec prints the output"
code=0; tb exec demo 'false' || code=$?
[ "$code" = 1 ] || fail "exec exits with the command's code (got $code)"
code=0; tb exec demo 'sh -c "exit 7"' || code=$?
[ "$code" = 7 ] || fail "exec exits with 7 (got $code)"
[ "$(tb exec demo pwd)" = "$work" ] || fail "the session starts in --cwd"
tb exec demo 'mkdir sub && cd sub'
[ "$(tb exec demo pwd)" = "$work/sub" ] || fail "cd persists between execs"

# A full-screen program driven with keys.
tb type demo $'vim -u NONE -N -i NONE notes.txt\n'
tb wait demo regex '"notes.txt"' --timeout 15 >/dev/null || fail "vim opened"
tb key demo i
tb type demo 'written by termbridge'
tb wait demo text 'written by termbridge' --timeout 10
tb key demo Escape : w q Enter
tb wait demo prompt --timeout 15 || fail "the prompt is back after vim"
[ "$(cat "$work/sub/notes.txt")" = "written by termbridge" ] || fail "vim wrote the file"

# Only what is new since the last read.
tb read demo --since-last >/dev/null
tb exec demo 'echo fresh-line' >/dev/null
new=$(tb read demo --since-last)
grep -q fresh-line <<<"$new" || fail "read --since-last shows new output"
if grep -q 'written by' <<<"$new"; then fail "read --since-last repeats old output"; fi

# A wait that times out: status 1, the screen on stderr.
code=0; tb wait demo text never-shown --timeout 0.3 2>"$work/err" || code=$?
[ "$code" = 1 ] || fail "a wait that times out exits with 1 (got $code)"
grep -q 'fresh-line' "$work/err" || fail "a timed-out wait shows the screen"

tb screen demo --lines 3 | grep -q 'fresh-line' || fail "screen --lines shows the last lines"
tb resize demo 90x20
tb shot demo | grep -q '"cols": 90' || fail "resize changes the size shot reports"
[ "$(tb exec demo 'tput cols')" = 90 ] || fail "the program sees the new size"
tb record demo "$work/demo.cast"
tb exec demo 'echo recorded-line' >/dev/null
tb record demo stop
grep -q 'recorded-line' "$work/demo.cast" || fail "record writes an asciicast file"
tb close demo
[ -z "$(tb ls)" ] || fail "ls is empty after close"
tb kill-server
echo ALL-OK
