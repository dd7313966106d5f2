/**
 * Turning a requested command into the argv a terminal starts.
 * @module
 */

import { existsSync } from "node:fs";
import { basename } from "node:path";
import { SHELL_XCPU_STATUS } from "../sandbox/mod.ts";
import { resolveProgram } from "../terminal/launch.ts";

/**
 * The shell that runs a command line: bash, whose grammar the policy parses
 * (`echo x &>/dev/null touch M` is one command to bash and two to dash), found
 * at a fixed path so a request's PATH cannot choose it; `/bin/sh` only on a
 * system without bash.
 */
export function lineShell(): string {
  shell ??=
    ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"].find((path) => existsSync(path)) ??
      "/bin/sh";
  return shell;
}
let shell: string | undefined;

/**
 * Put before a command line when `limits.cpuSeconds` is set: a command the
 * CPU limit killed (SIGXCPU: status 128 + 24) ends the whole line with that
 * status, as it ends a command given with `args`, instead of the shell going
 * on with the rest (bash runs a DEBUG trap before each simple command, with
 * `$?` the status of the one before). Partial: a subshell or a function
 * does not inherit it.
 */
const ENDS_ON_XCPU = `trap '[ "$?" = ${SHELL_XCPU_STATUS} ] && exit ${SHELL_XCPU_STATUS}' DEBUG; `;

/** Characters that make a command line need a shell to run. */
const SHELL_SYNTAX = /[\s|&;<>()$`\\"'*?[\]#~=%{}!]/;

/** How a command will be run. */
export interface CommandPlan {
  /** The argv to start in the terminal. */
  argv: string[];
  /** `"exec"`: the program itself; `"shell"`: the line through `bash -c` (see `lineShell`). */
  via: "exec" | "shell";
}

/**
 * Plans a command as agents send it: with `args`, exec argv directly; without
 * (or with none), a line with shell syntax or spaces runs through
 * `bash -c` (`lineShell`), a bare word is exec'd.
 * @throws {SpawnError} when a program to exec directly does not exist
 */
export function planCommand(
  command: string,
  args: string[] | undefined,
  options: { env: Record<string, string>; cwd: string; endOnCpuLimit?: boolean },
): CommandPlan {
  // Some agents send `args: []` with a whole shell line in `command`.
  const hasArgs = args !== undefined && args.length > 0;
  const direct = hasArgs || !SHELL_SYNTAX.test(command.trim());
  const program = hasArgs ? command : command.trim();
  const shell = lineShell();
  const line = options.endOnCpuLimit && basename(shell) === "bash"
    ? ENDS_ON_XCPU + command
    : command;
  const argv = direct ? [program, ...(args ?? [])] : [shell, "-c", line];
  if (direct) resolveProgram(program, options.env, options.cwd);
  return { argv, via: direct ? "exec" : "shell" };
}
