/**
 * The floor of the echo round trip: the same interactive bash in a PTY read
 * by a small C-speed loop (python3's select and read, no emulator), from
 * writing `echo X<i>` + Enter to the line `X<i>` read back. What termbridge
 * adds is the rest.
 * @module
 */

import { spawnSync } from "node:child_process";
import { BASH, bashEnv, PROMPT } from "./_bash.ts";

/** The python3 program: prints one latency in ms per line. */
const SCRIPT = `
import os, pty, select, sys, time
rounds, prompt, argv = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:  # PS1 set here too: bash did not take it from the inherited environment
    os.environ.update(PS1=sys.argv[2], PROMPT_COMMAND="", HISTFILE="/dev/null")
    os.execvp(argv[0], argv)
buf = b""
def wait_for(token):
    global buf
    while token not in buf:
        select.select([fd], [], [])
        buf += os.read(fd, 65536)
    buf = buf[buf.index(token) + len(token):]
wait_for(prompt)
for i in range(rounds):
    start = time.perf_counter()
    os.write(fd, f"echo X{i}\\r".encode())
    wait_for(f"\\rX{i}\\r\\n".encode())
    print((time.perf_counter() - start) * 1000)
    wait_for(prompt)
os.kill(pid, 9)
`;

/** Latencies (ms) of `rounds` echoes read by python3, or [] where python3 is missing. */
export function echoFloor(rounds: number): number[] {
  const result = spawnSync("python3", ["-c", SCRIPT, String(rounds), `${PROMPT} `, ...BASH], {
    env: { ...bashEnv(), TERM: "xterm-256color" },
    encoding: "utf8",
    timeout: 60_000,
  });
  if (result.status !== 0) return [];
  return result.stdout.trim().split("\n").map(Number);
}
