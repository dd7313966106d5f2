/**
 * Which programs read a typed line as a shell would run it. A line sent with
 * `input` (or `exec` to a session without shell integration) goes to the
 * terminal's foreground program: a shell runs it, so it is checked as a shell
 * line; any other program (`python3`, `node`, `psql`, `vim`) reads it as its
 * own language, so it is audited, not parsed as shell (what such programs run
 * is the sandbox's to limit).
 * @module
 */

import { SHELLS } from "../policy/shells.ts";

/** Shells beyond the POSIX family the policy parses through (their lines are checked all the same). */
const OTHER_SHELLS = new Set(["fish", "tcsh", "csh", "rbash", "ksh93", "pdksh", "busybox", "nu"]);

/**
 * Programs that hand what is typed to a shell elsewhere: a remote or other
 * user's shell (`ssh`, `su`), a multiplexer's pane (`tmux`, `screen`
 * clients), a container's shell. Their lines are checked as shell lines.
 */
const SHELL_RELAYS = new Set([
  "ssh",
  "mosh-client",
  "telnet",
  "su",
  "sudo",
  "doas",
  "runuser",
  "script",
  "tmux",
  "screen",
  "docker",
  "podman",
  "kubectl",
  "nsenter",
  "chroot",
  "unshare",
  "setsid",
]);

/**
 * Whether `program` (an executable's file name, `bash`, `python3.11`; or a
 * path) reads typed lines as shell commands, so that the policy must check
 * them before they are sent.
 * @example readsShellLines("/usr/bin/dash") // true
 * @example readsShellLines("python3.11") // false
 */
export function readsShellLines(program: string): boolean {
  const name = program.slice(program.lastIndexOf("/") + 1).replace(/^-/, "");
  // Versioned names (`bash5.2`, `zsh-5.9`) are the shell they name.
  const base = name.replace(/[-.]?\d+(\.\d+)*$/, "");
  return SHELLS.has(name) || SHELLS.has(base) || OTHER_SHELLS.has(name) ||
    OTHER_SHELLS.has(base) || SHELL_RELAYS.has(name);
}
