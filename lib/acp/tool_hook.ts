/**
 * Claude Code's own tool calls under the policy, before they run: a
 * `PreToolUse` command hook (`termbridge _hook --connect SOCKET`, see
 * `hook_relay.ts`) given to claude-agent-acp in `session/new`
 * (`_meta.claudeCode.options.settings.hooks`) asks this process about each
 * Bash, Write, Edit, MultiEdit, NotebookEdit, Read, Grep and Glob call. The
 * run's guard judges it from what it will do (`tool_intent.ts`):
 * - the policy denies: the hook answers "deny" with the policy's reason, which
 *   Claude Code tells the model (its permission request would only say "User
 *   refused permission"), and the refusal is audited;
 * - a command or a write the policy allows or asks about: "ask", so that the
 *   permission request decides it and audits it once (`permission_gate.ts`);
 * - a read the policy allows: no decision, Claude Code goes on as usual.
 * The hook never answers "allow". The socket is in a private directory
 * (0700, the socket 0600), removed at the end.
 * @module
 */

import type { Socket } from "node:net";
import { listenPrivate } from "../jsonrpc/private_socket.ts";
import { runtime } from "../runtime/mod.ts";
import { PolicyDeniedError, ruleWords } from "../safety/guard.ts";
import type { FileAccess } from "../service/text_files.ts";
import type { GateVerdict } from "./permission_gate.ts";
import { hookDeny } from "./hook_relay.ts";
import { toolIntent } from "./tool_intent.ts";
import { type Fields, fields, withClaudeSettings } from "./claude_settings.ts";

/** The Claude Code tools the hook checks. */
export const HOOKED_TOOLS = "Bash|Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob";

/** Claude Code tools that only read. */
const READERS = new Set(["Read", "Grep", "Glob"]);
/** The longest hook input read (a Write carries its content). */
const MAX_INPUT = 64 * 1024 * 1024;

/** Told of each tool call the hook refused (its id is the ACP tool call's), for the audit of reports. */
export type Refused = (toolCallId: string, verdict: GateVerdict) => void;

/** The hook's listener, live until `close`. */
export interface ToolHook {
  /** The hook's command line for Claude Code's settings. */
  command: string;
  close(): void;
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `meta` (a `session/new` `_meta`) with the hook added to
 * `claudeCode.options.settings.hooks.PreToolUse`; nothing else changes.
 */
export function hookMeta(meta: Fields, command: string): Fields {
  return withClaudeSettings(meta, (settings) => {
    const hooks = fields(settings.hooks);
    const pre = Array.isArray(hooks.PreToolUse) ? hooks.PreToolUse : [];
    const entry = { matcher: HOOKED_TOOLS, hooks: [{ type: "command", command }] };
    return { ...settings, hooks: { ...hooks, PreToolUse: [...pre, entry] } };
  });
}

/** The agents that take the hook (claude-agent-acp passes its settings to Claude Code). */
const HOOKED_AGENTS = new Set(["@zed-industries/claude-agent-acp"]);

/** Starts the hook for agent `agentName` when it takes one; undefined otherwise. */
export async function startHookFor(
  agentName: string | undefined,
  accessOf: () => FileAccess | undefined,
  refused: Refused,
  socketDir?: string,
): Promise<ToolHook | undefined> {
  if (agentName === undefined || !HOOKED_AGENTS.has(agentName)) return undefined;
  return await startToolHook(accessOf, refused, socketDir);
}

/** `meta` with the hook (see {@linkcode hookMeta}), or as it is without one. */
export function withHook(meta: Fields, hook: ToolHook | undefined): Fields {
  return hook === undefined ? meta : hookMeta(meta, hook.command);
}

/**
 * The hook's answer (a JSON line for Claude Code) to `input`, its tool call
 * as Claude Code sends it, judged with `access` (the session's guard).
 */
export async function judgeHookInput(
  input: unknown,
  access: FileAccess,
  refused: Refused = () => {},
): Promise<string> {
  const call = fields(input);
  const tool = typeof call.tool_name === "string" ? call.tool_name : "";
  const toolCall = {
    toolCallId: typeof call.tool_use_id === "string" ? call.tool_use_id : "hook",
    rawInput: fields(call.tool_input),
    ...(READERS.has(tool) ? { kind: "read" as const } : {}),
    _meta: { claudeCode: { toolName: tool } },
  };
  const intent = toolIntent(toolCall, access.cwd);
  const { guard, actor } = access;
  const refuse = (reason: string, rule: GateVerdict["rule"] = null) => {
    refused(toolCall.toolCallId, {
      decision: "deny",
      rule,
      reason,
      by: "policy",
      allowed: false,
    });
    guard.record(actor, {
      event: "permission",
      toolCallId: toolCall.toolCallId,
      tool,
      answer: "reject_once",
      by: "policy",
      reason,
    });
    return hookDeny(reason);
  };
  for (const command of intent.commands) {
    const verdict = await guard.judgeCommand({
      ...(command.line !== undefined ? { line: command.line } : { argv: command.argv ?? [] }),
      cwd: command.cwd ?? access.cwd,
      env: access.env,
    });
    if (verdict?.decision === "deny") {
      const subject = command.line ?? (command.argv ?? []).join(" ");
      guard.record(actor, {
        event: "command",
        origin: "agent",
        ...(command.line !== undefined ? { line: command.line } : { argv: command.argv }),
        cwd: command.cwd ?? access.cwd,
        decision: "deny",
        rule: verdict.rule,
        reason: verdict.reason,
      });
      return refuse(
        `Denied by policy: ${ruleWords(verdict.rule, "deny")} refuses ${
          JSON.stringify(subject)
        }: ${verdict.reason}`,
        verdict.rule,
      );
    }
  }
  try {
    for (const path of intent.paths) {
      if (path.access === "read") guard.checkRead(path.path, access, actor);
      // An allowed write is checked and recorded once, by its permission request.
      else if (guard.judgeWrite(path.path, access).decision === "deny") {
        guard.checkWrite(path.path, path.bytes ?? 0, access, actor);
      }
    }
  } catch (error) {
    if (!(error instanceof PolicyDeniedError)) throw error;
    return refuse(error.message);
  }
  if (READERS.has(tool)) return "{}";
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: "PreToolUse",
      permissionDecision: "ask",
      permissionDecisionReason: "termbridge checks it against the policy",
    },
  });
}

/**
 * Listens for the hook; `accessOf` gives the current session's file access
 * (undefined before it opens). `socketDir` is a private directory the agent's
 * sandbox shows (its own /tmp may be private); without it one is made.
 */
export async function startToolHook(
  accessOf: () => FileAccess | undefined,
  refused: Refused = () => {},
  socketDir?: string,
): Promise<ToolHook> {
  const socket = await listenPrivate(
    { name: "hook.sock", dir: socketDir, prefix: "termbridge-hook-" },
    (connection) => {
      void answer(connection, accessOf, refused).catch((error) => {
        connection.end(
          hookDeny(`termbridge could not check this tool call: ${(error as Error).message}`) +
            "\n",
        );
      });
    },
  );
  return {
    command: [...runtime.selfCommand(), "_hook", "--connect", socket.path].map(quote).join(" "),
    close: () => socket.close(),
  };
}

async function answer(
  socket: Socket,
  accessOf: () => FileAccess | undefined,
  refused: Refused,
): Promise<void> {
  const line = await new Promise<string>((resolve, reject) => {
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (data: string) => {
      text += data;
      const end = text.indexOf("\n");
      if (end >= 0) resolve(text.slice(0, end));
      else if (text.length > MAX_INPUT) reject(new Error("its input is too long"));
    });
    socket.on("end", () => reject(new Error("its input ended without a line")));
  });
  const access = accessOf();
  const reply = access === undefined
    ? hookDeny("termbridge refused this tool call: no session is open yet")
    : await judgeHookInput(JSON.parse(line), access, refused);
  socket.end(reply + "\n");
}
