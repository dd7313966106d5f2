/**
 * The command line's words: version, modes, help text and the usage error.
 * Kept free of heavy imports so that `--help` and `--version` start fast.
 * @module
 */

import { SUBCOMMAND_HELP } from "./server_commands.ts";

/** termbridge's version; equal to package.json's (a test checks). */
export const VERSION = "0.1.0";

/** A bad command line: printed with a hint to `--help`, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** A mode's entry: runs with the arguments after the mode name, returns the exit code. */
export type ModeMain = (args: string[]) => Promise<number>;

/** One mode of the command line. */
export interface Mode {
  name: string;
  summary: string;
}

/** The modes, in the order `--help` lists them. */
export const MODES: readonly Mode[] = [
  { name: "acp", summary: "run an ACP agent and serve its terminal/* and fs/* requests" },
  { name: "serve", summary: "the terminal service as JSON-RPC on stdin/stdout" },
  { name: "mcp", summary: "an MCP server with terminal tools, over stdio" },
  { name: "repl", summary: "an interactive REPL to drive terminal sessions" },
  { name: "run", summary: "run a script in the REPL's language (SCRIPT or - for stdin)" },
  { name: "policy", summary: "check a command line against the command policy (policy check)" },
  {
    name: "server",
    summary: "the per-user session server (started on demand by the commands below)",
  },
  { name: "config", summary: "print the effective configuration and where each value came from" },
  { name: "audit", summary: "show the audit log (--follow, --since T, --json)" },
];

/** The top-level help text (made when asked: a short-lived command need not build it). */
export const helpText = (): string =>
  `termbridge ${VERSION}: real terminals for coding agents, shell scripts and people

Usage:
  termbridge acp [OPTIONS] -- AGENT [ARGS...]
  termbridge serve [OPTIONS]
  termbridge mcp [OPTIONS]
  termbridge repl [OPTIONS]
  termbridge run [OPTIONS] SCRIPT|-
  termbridge policy check [OPTIONS] 'COMMAND LINE'
  termbridge server [-L NAME | --socket PATH]
  termbridge COMMAND [-L NAME | --socket PATH] [--json] ARGS...
  termbridge config [--json]
  termbridge audit [--follow] [--since T] [--json]
  termbridge --help | --version

Modes:
${MODES.map((m) => `  ${m.name.padEnd(7)} ${m.summary}`).join("\n")}

Server commands:
${
    Object.entries(SUBCOMMAND_HELP).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`).join(
      "\n",
    )
  }

The commands are short-lived clients of the per-user session server, whose
sessions outlive them (mcp, repl and run use it too with --server). -L NAME
may also come first, as in tmux: termbridge -L work ls.

Every program termbridge runs gets a real pseudo-terminal and a headless
terminal emulator, so what it reports is what a person would see.

Run "termbridge MODE --help" or "termbridge COMMAND --help" for the options.
`;
