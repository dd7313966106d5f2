/**
 * `limits.commandSeconds` in a shell session: each command sent by `exec`
 * has that long; then its process group (the terminal's foreground job) is
 * killed, SIGTERM then SIGKILL, and the terminal shows why. The shell itself
 * and the session live on. Lines typed into the terminal are not timed.
 * @module
 */

import { runtime } from "../runtime/mod.ts";
import { commandSecondsHit, type LimitHit } from "../sandbox/mod.ts";
import { foregroundGroup } from "../terminal/process_groups.ts";
import type { Terminal } from "../terminal/terminal.ts";
import { parseShellMark } from "./shell_integration.ts";

/**
 * Watches the shell's command marks and kills a command running longer than
 * `seconds`; `onHit` is told (for the audit log). Returns a function that
 * stops watching.
 */
export function limitCommandTime(
  terminal: Terminal,
  seconds: number,
  options: {
    graceMs: number;
    onHit?: (hit: LimitHit) => void;
    /** Whether the command that starts now is one to time (asked at its start mark). */
    timed?: () => boolean;
  },
): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const expire = () => {
    const group = foregroundGroup(terminal.pid);
    // At the prompt the shell's own group has the terminal: nothing to kill.
    if (group === null || group === terminal.pid) return;
    const hit = commandSecondsHit(seconds);
    terminal.announce(hit.message);
    options.onHit?.(hit);
    // Ctrl+C first, as a person would: a job that dies of SIGINT makes the shell abandon the rest
    // of its line (`sleep 10; echo after` must not go on to `echo after`); then SIGTERM.
    runtime.kill(-group, "SIGINT");
    runtime.kill(-group, "SIGTERM");
    grace = setTimeout(() => runtime.kill(-group, "SIGKILL"), options.graceMs);
  };
  const stopOsc = terminal.onOsc((osc) => {
    const mark = parseShellMark(osc);
    if (mark?.kind === "command-start") {
      clearTimeout(timer);
      if (options.timed?.() ?? true) timer = setTimeout(expire, seconds * 1000);
    } else if (mark?.kind === "command-end" || mark?.kind === "prompt") {
      clearTimeout(timer);
      clearTimeout(grace);
    }
  });
  return () => {
    stopOsc();
    clearTimeout(timer);
    clearTimeout(grace);
  };
}
