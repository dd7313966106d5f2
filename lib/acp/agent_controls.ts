/**
 * Making agents ask: what termbridge sends so that an agent routes its
 * shell commands and file writes through `session/request_permission`,
 * where the policy checks them (see `permission_gate.ts`).
 *
 * - claude-agent-acp reads `_meta.claudeCode.options` in `session/new` (the
 *   Claude Agent SDK's options): `settings.permissions.ask` makes every
 *   Bash command and every Write/Edit ask, even those Claude Code would run
 *   unasked (`echo`, reads-only commands, `sleep`). Its modes
 *   `bypassPermissions` and `acceptEdits` skip asking (and `dontAsk` refuses
 *   instead of asking), so a session that starts in one (the repository's
 *   `permissions.defaultMode` can choose it) is set back to `default`.
 * - codex-acp offers no "ask for everything": its strictest preset is the
 *   session mode `read-only` (commands run unasked inside Codex's own
 *   read-only sandbox; writing, the network and leaving the sandbox ask), so
 *   a session that starts in another mode is set to it.
 * @module
 */

import * as acp from "@agentclientprotocol/sdk";
import { type Fields, fields, userSettingsOnly, withClaudeSettings } from "./claude_settings.ts";
import type { ConversationEvent } from "./render/types.ts";

/** Claude Code tools that ask before they run under termbridge. */
export const CLAUDE_ASKED_TOOLS: readonly string[] = [
  "Bash",
  "Write",
  "Edit",
  "MultiEdit",
  "NotebookEdit",
];

/**
 * `meta` (a `session/new` `_meta`, possibly with other `claudeCode.options`)
 * with `settings.permissions.ask` listing {@linkcode CLAUDE_ASKED_TOOLS}
 * besides whatever it listed, and with only the user's settings files loaded
 * (`userSettingsOnly`: a repository's own would widen them); nothing else changes.
 */
export function askingMeta(meta: Fields = {}): Fields {
  return withClaudeSettings(userSettingsOnly(meta), (settings) => {
    const permissions = fields(settings.permissions);
    const ask = Array.isArray(permissions.ask) ? permissions.ask as string[] : [];
    return {
      ...settings,
      permissions: { ...permissions, ask: [...new Set([...ask, ...CLAUDE_ASKED_TOOLS])] },
    };
  });
}

/** Modes of each agent that skip its permission requests, and the mode to use instead. */
const MODES: Record<string, { skip: string[]; use: string }> = {
  "@zed-industries/claude-agent-acp": {
    // claude-agent-acp takes the starting mode from `permissions.defaultMode` of every settings
    // file, the repository's too; dontAsk refuses whatever no allow rule names, unasked.
    skip: ["bypassPermissions", "acceptEdits", "dontAsk"],
    use: "default",
  },
  "codex-acp": { skip: ["auto", "full-access"], use: "read-only" },
};

/**
 * The session mode to switch to so that agent `agentName` asks, or
 * undefined when its current mode already does (or the agent is unknown).
 */
export function askingMode(
  agentName: string | undefined,
  modes: acp.SessionModeState | null | undefined,
): string | undefined {
  const known = agentName === undefined ? undefined : MODES[agentName];
  if (known === undefined || modes == null) return undefined;
  if (!known.skip.includes(modes.currentModeId)) return undefined;
  return modes.availableModes.some((mode) => mode.id === known.use) ? known.use : undefined;
}

/**
 * Switches a new session to the agent's mode that asks (see
 * {@linkcode askingMode}).
 * @returns what to tell the person: the switch, or why it failed; undefined when nothing changed
 */
export async function switchToAskingMode(
  agent: Pick<acp.ClientConnection["agent"], "request">,
  session: {
    sessionId: string;
    agentName: string | undefined;
    modes: acp.SessionModeState | null | undefined;
  },
): Promise<ConversationEvent | undefined> {
  const modeId = askingMode(session.agentName, session.modes);
  if (modeId === undefined) return undefined;
  const was = session.modes!.currentModeId;
  try {
    await agent.request(acp.methods.agent.session.setMode, {
      sessionId: session.sessionId,
      modeId,
    });
    return {
      type: "notice",
      message:
        `Set the agent's mode to "${modeId}" (was "${was}"): there it asks before it runs commands or writes files`,
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : JSON.stringify(error);
    return {
      type: "warning",
      message:
        `Cannot set the agent's mode to "${modeId}" (it stays "${was}"): ${detail}; it may run commands without asking (they are still audited)`,
    };
  }
}
