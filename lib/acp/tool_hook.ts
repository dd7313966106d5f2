/**
 * Claude Code's own tool calls under the policy, before they run: a
 * `PreToolUse` command hook (bash asking on 127.0.0.1, `hook_loopback.ts`,
 * or `termbridge _hook --connect SOCKET`, `hook_relay.ts`) given to
 * claude-agent-acp in `session/new`
 * (`_meta.claudeCode.options.settings.hooks`) asks this process about each
 * Bash, Write, Edit, MultiEdit, NotebookEdit, Read, Grep and Glob call. The
 * run's guard judges it from what it will do (`tool_intent.ts`):
 * - the policy denies: the hook answers "deny" with the policy's reason, which
 *   Claude Code tells the model (its permission request would only say "User
 *   refused permission"), and the refusal is audited;
 * - a command or a write the policy allows or asks about: "ask", so that the
 *   permission request decides it and audits it once (`permission_gate.ts`);
 * - a read the policy allows: no decision, Claude Code goes on as usual.
 * The hook never answers "allow". The loopback port answers only its
 * token; the socket is in a private directory (0700, the socket 0600),
 * removed at the end.
 * @module
 */

import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { listenPrivate } from "../jsonrpc/private_socket.ts";
import { runtime } from "../runtime/mod.ts";
import { PolicyDeniedError, ruleWords } from "../safety/guard.ts";
import type { FileAccess } from "../service/text_files.ts";
import type { GateVerdict } from "./permission_gate.ts";
import { hookDeny } from "./hook_relay.ts";
import { listenLoopback, loopbackHookCommand } from "./hook_loopback.ts";
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
  where: HookPlace = {},
): Promise<ToolHook | undefined> {
  if (agentName === undefined || !HOOKED_AGENTS.has(agentName)) return undefined;
  return await startToolHook(accessOf, refused, where);
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

/** How the hook reaches this process. */
export interface HookPlace {
  /**
   * A private directory the agent's sandbox shows, for the Unix socket of
   * `termbridge _hook` (its own /tmp may be private); without it one is made.
   */
  socketDir?: string;
  /**
   * The loopback way (hook_loopback.ts), when the agent shares this
   * process's network and bash is installed: the token the agent has in its
   * environment, and bash's path. Without it, `termbridge _hook`.
   */
  loopback?: { token: string; bash: string };
}

/**
 * Listens for the hook; `accessOf` gives the current session's file access
 * (undefined before it opens).
 */
export async function startToolHook(
  accessOf: () => FileAccess | undefined,
  refused: Refused = () => {},
  where: HookPlace = {},
): Promise<ToolHook> {
  const serve = (connection: Socket, initial?: Buffer) => {
    void answer(connection, accessOf, refused, initial).catch((error) => {
      connection.end(
        hookDeny(`termbridge could not check this tool call: ${(error as Error).message}`) +
          "\n",
      );
    });
  };
  if (where.loopback !== undefined) {
    const listener = await listenLoopback(where.loopback.token, serve);
    const refusal = hookDeny(
      `termbridge refused this tool call: cannot reach termbridge acp on 127.0.0.1:${listener.port} to check it against the policy, or it gave no answer within 30 s`,
    );
    return {
      command: loopbackHookCommand(where.loopback.bash, listener.port, refusal),
      close: () => listener.close(),
    };
  }
  const socket = await listenPrivate(
    { name: "hook.sock", dir: where.socketDir, prefix: "termbridge-hook-" },
    serve,
  );
  return {
    command: [...runtime.selfCommand(), "_hook", "--connect", socket.path].map(quote).join(" "),
    close: () => socket.close(),
  };
}

/** Reads the tool call (one line, after `initial` if given) and writes the hook's answer. */
async function answer(
  socket: Socket,
  accessOf: () => FileAccess | undefined,
  refused: Refused,
  initial?: Buffer,
): Promise<void> {
  const line = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const take = (data: Buffer) => {
      const end = data.indexOf(0x0a);
      chunks.push(end >= 0 ? data.subarray(0, end) : data);
      size += data.length;
      if (end >= 0) {
        socket.off("data", take);
        resolve(Buffer.concat(chunks).toString("utf8"));
      } else if (size > MAX_INPUT) reject(new Error("its input is too long"));
    };
    socket.on("data", take);
    socket.on("end", () => reject(new Error("its input ended without a line")));
    if (initial !== undefined && initial.length > 0) take(initial);
  });
  const access = accessOf();
  const reply = access === undefined
    ? hookDeny("termbridge refused this tool call: no session is open yet")
    : await judgeHookInput(JSON.parse(line), access, refused);
  socket.end(reply + "\n");
}
