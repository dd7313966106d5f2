/**
 * `--terminals termbridge`: switching off an agent's own shell tool where the
 * agent documents a way, so that its commands go through termbridge's tools.
 * - claude-agent-acp reads `_meta.claudeCode.options` of `session/new` (the
 *   Claude Agent SDK's options): `disallowedTools: ["Bash"]` takes Bash away
 *   (BashOutput and KillShell go with it: they only serve Bash).
 * - codex-acp reads configuration overrides from its command line (`-c
 *   key=value`): the features `shell_tool` and `unified_exec` off leave the
 *   model no shell tool.
 * Other agents keep their own shell; the header says so.
 *
 * Where Claude keeps its Bash tool (`--terminals agent` or `both`), it runs
 * the line in bash ({@linkcode agentEnv}), whose grammar the policy parses.
 * @module
 */

import { basename } from "node:path";
import { lineShell } from "../service/command_line.ts";
import type { TerminalsChoice } from "./acp_options.ts";

/** The Claude tools that run commands on the agent's side. */
const CLAUDE_SHELL_TOOLS = ["Bash", "BashOutput", "KillShell"];

/** The configuration overrides that leave codex without its shell tools. */
const CODEX_NO_SHELL = ["-c", "features.shell_tool=false", "-c", "features.unified_exec=false"];

/** Whether the agent's command line runs codex-acp (directly, or through npx and the like). */
export function isCodexAcp(argv: string[]): boolean {
  return argv.some((word) =>
    /(^|\/|@zed-industries\/)codex-acp(@[^/]*)?$/.test(basename(word)) ||
    /@zed-industries\/codex-acp(@|$)/.test(word)
  );
}

/** The agent's command line, with codex's shell switched off under `--terminals termbridge`. */
export function agentArgv(argv: string[], choice: TerminalsChoice): string[] {
  return choice === "termbridge" && isCodexAcp(argv) ? [...argv, ...CODEX_NO_SHELL] : argv;
}

/** `_meta` of `session/new` for `choice` (Claude's own shell off under `termbridge`). */
export function terminalsMeta(choice: TerminalsChoice): Record<string, unknown> | undefined {
  if (choice !== "termbridge") return undefined;
  return { claudeCode: { options: { disallowedTools: CLAUDE_SHELL_TOOLS } } };
}

/**
 * The agent's environment: `env` with `CLAUDE_CODE_SHELL` set to bash (see
 * `lineShell`), the shell whose grammar termbridge's hook checks Claude's
 * Bash lines in. Left alone, Claude Code runs them in `$SHELL` when that is
 * zsh, or in zsh when `SHELL` is unset, where `x='$(touch M)'; echo ${(e)x}`
 * runs `touch`: a line bash cannot even parse, so the policy could only ask.
 * The user's own `CLAUDE_CODE_SHELL` is replaced for the same reason.
 */
export function agentEnv(env: Record<string, string>): Record<string, string> {
  const bash = lineShell();
  return bash.endsWith("/bash") ? { ...env, CLAUDE_CODE_SHELL: bash } : env;
}
