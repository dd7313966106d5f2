/**
 * The command line of `termbridge acp`: its help text, options and exit codes.
 * @module
 */

import { directoryOption, numberOption, parseModeArgs } from "../cli/args.ts";
import {
  SAFETY_HELP,
  SAFETY_OPTIONS,
  type startSafety,
  underShortOptions,
} from "../cli/safety_options.ts";
import { UsageError } from "../cli/usage.ts";
import { runtime } from "../runtime/mod.ts";
import type { PermissionPolicy } from "./permissions.ts";

/** The text of `termbridge acp --help`. */
export const HELP = `Usage: termbridge acp [OPTIONS] -- AGENT [ARGS...]

Runs AGENT as an Agent Client Protocol (v1) agent on its stdio, opens a
session and sends it prompts. Its terminal/* requests run in real PTYs, its
fs/* requests read and write real files, and what it does is shown as it
happens: on a terminal, a terminal embedded in a tool call runs live and then
stays as a card with its last lines and how it ended; a terminal no tool call
embeds, and every file read or write, gets a line of its own. --json prints
an event for each instead (see the README).

Prompts come from --prompt (one turn each, then exit); otherwise, on a
terminal, from an interactive chat; otherwise one prompt per line of stdin.

Ctrl+C (SIGINT) during a turn sends session/cancel; if the agent has not
ended the turn 2 s later, termbridge kills every terminal and exits 4. A
second Ctrl+C quits at once. In the chat, Ctrl+C at the prompt clears the
line, and a second one in a row quits (so does Ctrl+D).

The agent and every process it starts belong to termbridge: they end with
the agent or with termbridge, however either ends (kill -9 included). With
sandbox.mode set the agent itself runs in the sandbox (writable: the
workspace, its state in sandbox.agentWrite; network: sandbox.agentNetwork),
and limits.agentMemoryBytes, agentCpuSeconds and agentProcesses apply to each
of its processes, agentTreeTasks and agentTreeMemoryBytes to its whole tree.
The header says what holds it ("termbridge config" shows the keys).

If the agent has not answered initialize after 2 s, termbridge says it is
waiting (many agents speak ACP only with a flag, such as --acp) and shows
what the agent printed that is not JSON-RPC; after --init-timeout it gives
up (exit 6).

Options:
  -p, --prompt TEXT      send TEXT as a prompt (repeatable, in order)
      --cwd DIR          the session's working directory (default: the current one)
  -y, --yes              answer permission requests with the allow_once option
                         (reject_once when the agent offers no allow_once)
  -n, --no               answer permission requests with the reject_once option
      --json             print one JSON object per line instead of rendering
      --server           also show the agent's terminals as sessions of the
                         session server (acp-PID.term-N): listed, attachable,
                         watched in "termbridge web"; still closed with the run
      --agent-log FILE   append the agent's stderr to FILE (default: pass it
                         through), and termbridge's notes on what the agent sent
                         that it ignored (invalid updates, lines not JSON-RPC)
      --init-timeout S   seconds to wait for the answer to initialize (default 30)
      --auth ID          authenticate with this method before the session; a
                         "terminal" method runs the agent's login in a terminal
                         you type into (only on a terminal)
      --session ID       resume the agent's session ID (session/resume, else
                         session/load) instead of opening a new one
      --list-sessions    print the agent's sessions in --cwd (session/list), then exit
      --add-dir DIR      another directory the session may work in
                         (additionalDirectories; repeatable)
      --terminals WHOSE  whose terminals the agent runs commands in: termbridge
                         (the default), both or agent; see below
      --output-limit N   hard ceiling of kept output per terminal, bytes (default 16 MiB)
${underShortOptions(SAFETY_HELP)}
  -h, --help             show this help

Whose terminals: termbridge offers the agent its own terminal tools in every
session (an MCP server "termbridge": terminal_execute, type, getContent...),
served by this process: real PTYs under the same policy, audit log, limits
and terminal budget as terminal/*, each command shown as a terminal card.
With "termbridge" (the default, so that the agent's commands run where
termbridge sees and controls them) it also switches off the agent's own
shell where the agent allows it: Claude (disallowedTools: Bash) and Codex
(features shell_tool and unified_exec off); other agents keep theirs.
"both" leaves the agent its own shell too; "agent" offers no tools.
terminal/* and fs/* are served in every case.

The agent may ask questions (elicitation/create): in the chat they are asked
field by field; without a chat (--prompt, --json, stdin not a terminal) they
are declined, and the output says so. At the end the session is closed
(session/close) when the agent supports it.

Without --yes or --no, permission requests are asked on a terminal and
answered reject_once otherwise. A flag never picks an allow_always or
reject_always option (agents remember those for later runs); with no option
of the kind it picks, the answer is "cancelled", and the output says so.
Commands and files the policy asks about are asked the same way (and
--yes/--no answer them too); a refusal is the JSON-RPC error -32003 "Denied
by policy" naming the rule and the command.

Every permission request is first checked against the policy from what the
tool call says it will do (its command, or the files it reads or writes):
a deny rule answers reject_once at once, even with --yes; an allow rule for
every command answers allow_once; the rest is asked as above. Agents that
run commands themselves (claude-agent-acp >= 0.18, codex-acp) are made to
ask (Claude Code: Bash, Write and Edit always ask; Codex: its read-only
mode), and every command they report running is in the audit log with its
verdict and who let it run. Claude Code also gets a PreToolUse hook
(termbridge _hook) that refuses what the policy denies before it runs,
Read, Grep and Glob included (policy.read), telling the model the reason.

Exit status: 0 every turn ended with end_turn; 1 termbridge failed; 2 bad
command line; 3 a turn ended otherwise (refusal, max_tokens,
max_turn_requests); 4 cancelled (Ctrl+C or a signal); 5 the agent exited or
crashed; 6 protocol error (unsupported version, the agent answered an error,
no answer to initialize within --init-timeout).
`;

/** Exit codes of the `acp` mode (documented in its help). */
export const ACP_EXIT = {
  ok: 0,
  failure: 1,
  stopped: 3,
  cancelled: 4,
  agentGone: 5,
  protocol: 6,
} as const;

/** Whose terminals the agent runs commands in (`--terminals`). */
export type TerminalsChoice = "termbridge" | "agent" | "both";

const TERMINALS_CHOICES: readonly TerminalsChoice[] = ["termbridge", "agent", "both"];

/** What the command line asks for. */
export interface AcpOptions {
  agent: string[];
  prompts: string[];
  cwd: string;
  policy: PermissionPolicy;
  json: boolean;
  agentLog?: string;
  auth?: string;
  outputLimit?: number;
  /** `--session ID`: resume this session instead of opening a new one. */
  session?: string;
  /** `--list-sessions`: list the agent's sessions and exit. */
  listSessions: boolean;
  /** `--add-dir DIR...`: the session's additional directories (absolute). */
  addDirs: string[];
  /** `--terminals`: whose terminals the agent uses. */
  terminals: TerminalsChoice;
  /** Milliseconds to wait for the answer to `initialize`. */
  initTimeoutMs: number;
  /** The shared safety options (--yes/--no reach the guard through the permission desk). */
  safety: Parameters<typeof startSafety>[1];
}

/**
 * Reads the command line of `acp` (everything after the mode's name).
 * @throws {UsageError} for a bad option or a missing agent
 */
export function parseOptions(args: string[]): AcpOptions | "help" {
  const split = args.indexOf("--");
  const own = split === -1 ? args : args.slice(0, split);
  const { values, positionals } = parseModeArgs("acp", own, {
    prompt: { type: "string", short: "p", multiple: true },
    cwd: { type: "string" },
    yes: { type: "boolean", short: "y" },
    no: { type: "boolean", short: "n" },
    json: { type: "boolean" },
    "agent-log": { type: "string" },
    auth: { type: "string" },
    session: { type: "string" },
    "list-sessions": { type: "boolean" },
    "add-dir": { type: "string", multiple: true },
    terminals: { type: "string" },
    "output-limit": { type: "string" },
    "init-timeout": { type: "string" },
    ...SAFETY_OPTIONS,
    help: { type: "boolean", short: "h" },
  }, true);
  if (values.help) return "help";
  const agent = split === -1 ? positionals : [...positionals, ...args.slice(split + 1)];
  if (agent.length === 0) {
    throw new UsageError(
      'Cannot start "acp" without an agent: give it after "--", e.g. termbridge acp -- my-agent --stdio',
    );
  }
  if (values.yes && values.no) throw new UsageError("Cannot use --yes and --no together: pick one");
  const interactive = runtime.isTerminal("stdin") && !values.json;
  const terminals = values.terminals ?? "termbridge";
  if (!(TERMINALS_CHOICES as string[]).includes(terminals)) {
    throw new UsageError(
      `Cannot use --terminals ${JSON.stringify(terminals)}: expected one of ${
        TERMINALS_CHOICES.join(", ")
      }`,
    );
  }
  if (values.session !== undefined && values.session.trim() === "") {
    throw new UsageError(
      'Cannot use --session "": expected the id of one of the agent\'s sessions',
    );
  }
  return {
    agent,
    prompts: values.prompt ?? [],
    cwd: directoryOption("cwd", values.cwd) ?? runtime.cwd(),
    policy: values.yes ? "yes" : values.no ? "no" : interactive ? "ask" : "reject",
    json: values.json ?? false,
    agentLog: values["agent-log"],
    auth: values.auth,
    session: values.session,
    listSessions: values["list-sessions"] ?? false,
    addDirs: (values["add-dir"] ?? []).map((dir) => directoryOption("add-dir", dir)!),
    terminals: terminals as TerminalsChoice,
    outputLimit: numberOption("output-limit", values["output-limit"]),
    initTimeoutMs: seconds("init-timeout", values["init-timeout"] ?? "30") * 1000,
    safety: {
      config: values.config,
      audit: values.audit,
      "no-audit": values["no-audit"],
      policy: values.policy,
    },
  };
}

/**
 * A positive number of seconds (fractions allowed).
 * @throws {UsageError} for anything else
 */
function seconds(name: string, value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number <= 0) {
    throw new UsageError(
      `Cannot use --${name} ${JSON.stringify(value)}: expected a number of seconds > 0, e.g. 30`,
    );
  }
  return number;
}
