/**
 * Turning a requested command into the argv a terminal starts.
 * @module
 */

import { existsSync } from "node:fs";
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
  options: { env: Record<string, string>; cwd: string },
): CommandPlan {
  // Some agents send `args: []` with a whole shell line in `command`.
  const hasArgs = args !== undefined && args.length > 0;
  const direct = hasArgs || !SHELL_SYNTAX.test(command.trim());
  const program = hasArgs ? command : command.trim();
  const argv = direct ? [program, ...(args ?? [])] : [lineShell(), "-c", command];
  if (direct) resolveProgram(program, options.env, options.cwd);
  return { argv, via: direct ? "exec" : "shell" };
}
