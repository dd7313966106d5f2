/**
 * `termbridge acp` as main.ts runs it: the acp mode with what only this
 * layer may compose (front ends never import each other): termbridge's MCP
 * terminal tools served to the agent from the acp process, and a terminal
 * the person types into for an agent's terminal login.
 * @module
 */

import process from "node:process";
import { acpMain } from "../acp/acp_mode.ts";
import type { AcpHost } from "../acp/host.ts";
import { sessionDefaults } from "../cli/safety_options.ts";
import { attachSession } from "../repl/attach.ts";
import { type ExitStatus, runtime } from "../runtime/mod.ts";
import { SessionManager } from "../sessions/manager.ts";
import { startToolHost } from "./tool_host.ts";

/** The host of the acp mode. */
export const ACP_HOST: AcpHost = {
  startTools: startToolHost,
  runInTerminal: async (argv, { env, cwd, safety }): Promise<ExitStatus> => {
    const size = runtime.consoleSize();
    const manager = new SessionManager({ ...sessionDefaults(safety, cwd), maxSessions: 1 });
    try {
      const session = await manager.open({
        name: "login",
        program: argv,
        cwd,
        env: { ...safety.loaded.config.env, ...env },
        ...(size === null ? {} : { cols: Math.max(2, size.cols), rows: Math.max(1, size.rows) }),
      });
      await attachSession(session, {
        input: process.stdin,
        write: (data) => runtime.writeStdout(data),
        setRawMode: (enabled) => runtime.setRawMode(enabled),
        consoleSize: () => runtime.consoleSize(),
        onResize: (handler) => {
          process.stdout.on("resize", handler);
          return () => void process.stdout.off("resize", handler);
        },
      });
      // Detached (Ctrl+]) before the login ended: it did not succeed.
      return session.terminal.exitStatus ?? { exitCode: null, signal: "SIGTERM" };
    } finally {
      await manager.closeAll();
    }
  },
};

/** Runs `termbridge acp` with {@linkcode ACP_HOST}. */
export function acpHostedMain(args: string[]): Promise<number> {
  return acpMain(args, ACP_HOST);
}
