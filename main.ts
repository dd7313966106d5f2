/**
 * termbridge: real terminals for coding agents, shell scripts and people.
 *
 * The one entry point: turns the command line into a mode, runs it, and maps
 * errors to exit codes. It is the only module that exits the process.
 * @module
 */

import { BrokenPipeError, runtime } from "./lib/runtime/core.ts";
import { TerminalError } from "./lib/terminal/errors.ts";
import { ConfigError } from "./lib/config/errors.ts";
import { SUBCOMMAND_HELP } from "./lib/cli/server_commands.ts";
import { helpText, type ModeMain, MODES, UsageError, VERSION } from "./lib/cli/usage.ts";

/** Each mode's entry point, loaded only when that mode runs (start-up stays fast). */
const LOADERS: Record<string, () => Promise<ModeMain>> = {
  serve: async () => (await import("./lib/acp/serve.ts")).serveMain,
  acp: async () => (await import("./lib/server/acp_host.ts")).acpHostedMain,
  repl: async () => (await import("./lib/repl/repl_mode.ts")).replMain,
  run: async () => (await import("./lib/script/script_mode.ts")).runMain,
  mcp: async () => (await import("./lib/mcp/mcp_mode.ts")).mcpMain,
  policy: async () => (await import("./lib/cli/policy_command.ts")).policyMain,
  server: async () => (await import("./lib/server/server.ts")).serverMain,
  config: async () => (await import("./lib/cli/config_command.ts")).configMain,
  audit: async () => (await import("./lib/cli/audit_command.ts")).auditMain,
};

/** `mcp`, `repl` and `run` with `--server`: the same front end on the session server's sessions. */
const SERVER_CLIENTS: Record<string, () => Promise<ModeMain>> = {
  mcp: async () => (await import("./lib/server/remote_modes.ts")).mcpServerMain,
  repl: async () => (await import("./lib/server/remote_repl.ts")).replServerMain,
  run: async () => (await import("./lib/server/remote_modes.ts")).runServerMain,
  acp: async () => (await import("./lib/server/acp_mirror.ts")).acpServerMain,
};

/** The subcommands that talk to the session server, each a short-lived client. */
const SUBCOMMAND_LOADERS: Record<string, () => Promise<ModeMain>> = {
  attach: async () => (await import("./lib/server/control.ts")).attachMain,
  "kill-server": async () => (await import("./lib/server/control.ts")).killServerMain,
  web: async () => (await import("./lib/server/web_command.ts")).webMain,
};

/** Exit codes of termbridge itself; a closed stdout ends it quietly, as SIGPIPE would (128 + 13). */
const EXIT = { ok: 0, failure: 1, usage: 2, config: 2, brokenPipe: 141 } as const;

async function main(args: string[]): Promise<number> {
  const [first, ...rest] = args;
  if (first === "help" && rest[0] === "keys") {
    // The key names `key`, `input` and the MCP tools take (the error for an unknown key points here).
    const { KEYS_HELP } = await import("./lib/console/help.ts");
    await runtime.writeStdout(KEYS_HELP + "\n");
    return EXIT.ok;
  }
  if (first === "help" && rest.length > 0) {
    // `termbridge help MODE [SUBCOMMAND]` is `termbridge MODE [SUBCOMMAND] --help`: each help
    // text lives with its mode.
    return await main([...rest, "--help"]);
  }
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    await runtime.writeStdout(helpText());
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if ((first === "-L" || first === "--name" || first === "--socket") && rest.length >= 2) {
    // tmux's order: `termbridge -L NAME COMMAND ARGS...` is `termbridge COMMAND -L NAME ARGS...`.
    const [value, command, ...more] = rest;
    return await main([command, first, value, ...more]);
  }
  if (first === "-V" || first === "-v" || first === "--version" || first === "version") {
    await runtime.writeStdout(`termbridge ${VERSION} (${runtime.name} ${runtime.version})\n`);
    return EXIT.ok;
  }
  if (Object.hasOwn(SUBCOMMAND_HELP, first)) {
    const load = SUBCOMMAND_LOADERS[first];
    if (load !== undefined) return await (await load())(rest);
    const { subcommandMain } = await import("./lib/server/commands.ts");
    return await subcommandMain(first, rest);
  }
  if (first === "mcp" && rest[0] === "--connect") {
    // The relay `termbridge acp` gives its agent as an MCP server: loads nothing else.
    return await (await import("./lib/server/tool_relay.ts")).mcpConnectMain(rest.slice(1));
  }
  // Only before "--": after it come the agent's (or script's) own arguments.
  const own = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (Object.hasOwn(SERVER_CLIENTS, first) && own.includes("--server")) {
    const at = rest.indexOf("--server");
    return await (await SERVER_CLIENTS[first]())([...rest.slice(0, at), ...rest.slice(at + 1)]);
  }
  if (first === "_hook") {
    // Claude Code's PreToolUse hook under `termbridge acp` (lib/acp/tool_hook.ts).
    return await (await import("./lib/acp/hook_relay.ts")).hookMain(rest.slice(1));
  }
  if (first === "_relay") {
    // The program of a session that shows an `acp --server` terminal (lib/server/acp_mirror.ts).
    return await (await import("./lib/server/acp_mirror.ts")).relayMain(rest);
  }
  const mode = MODES.find((m) => m.name === first);
  if (mode === undefined) {
    throw new UsageError(
      `Unknown mode "${first}": expected one of ${
        MODES.map((m) => m.name).join(", ")
      }, or a command: ${Object.keys(SUBCOMMAND_HELP).join(", ")}`,
    );
  }
  // Each terminal holds a few descriptors: raise the soft limit to the hard one, as servers do.
  // Only here, in the modes that open terminals: the whole runtime loads libc and the PTY code,
  // which a short-lived command (--version, the server's subcommands) does without (issue 16).
  (await import("./lib/runtime/mod.ts")).runtime.raiseFileLimit();
  const load = LOADERS[mode.name];
  if (load === undefined) {
    await runtime.writeStderr(
      `termbridge: the "${mode.name}" mode is not available in this version yet (${mode.summary})\n`,
    );
    return EXIT.failure;
  }
  return await (await load())(rest);
}

const args = runtime.args();
try {
  const code = await main(args);
  await runtime.writeStdout(""); // Everything written reaches stdout before the exit.
  runtime.exit(code);
} catch (error) {
  if (error instanceof UsageError) {
    const mode = MODES.some((m) =>
        m.name === args[0]
      ) || Object.hasOwn(SUBCOMMAND_HELP, args[0] ?? "")
      ? `${args[0]} `
      : "";
    await runtime.writeStderr(
      `termbridge: ${error.message}\nRun "termbridge ${mode}--help" for usage.\n`,
    ).catch(() => {});
    runtime.exit(EXIT.usage);
  }
  if (error instanceof ConfigError) {
    await runtime.writeStderr(`termbridge: ${error.message}\n`).catch(() => {});
    runtime.exit(EXIT.config);
  }
  // Whoever read our output is gone (`| head`): nothing to say, and nobody to say it to.
  if (error instanceof BrokenPipeError) runtime.exit(EXIT.brokenPipe);
  // The core's own errors carry a message meant for the user; anything else is a bug: show where.
  const text = error instanceof TerminalError
    ? error.message
    : error instanceof Error
    ? error.stack ?? `${error.name}: ${error.message}`
    : String(error);
  await runtime.writeStderr(`termbridge: ${text}\n`).catch(() => {}); // stderr may be gone too.
  runtime.exit(EXIT.failure);
}
