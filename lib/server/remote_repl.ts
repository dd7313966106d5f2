/**
 * `termbridge repl --server`: the REPL with its lines run on one console of
 * the session server (current session, last exec, transcript), and `attach`
 * reaching the server's sessions. The sessions stay open when it ends.
 * @module
 */

import process from "node:process";
import { CommandError, parseLine, type StepResult } from "../console/mod.ts";
import { type ReplConsole, type ReplHost, replMain } from "../repl/repl_mode.ts";
import { runtime } from "../runtime/mod.ts";
import { reachServer } from "./autostart.ts";
import { RpcClient } from "./client.ts";
import { attachTo } from "./control.ts";
import { socketPath } from "./paths.ts";
import { splitSocketOptions } from "./remote_modes.ts";
import { SERVER_METHODS } from "./wire.ts";

/** What the server answers a console line with. */
type RemoteStep = StepResult & { quit?: boolean; current?: string; sessions?: string[] };

/** `termbridge repl --server [-L NAME | --socket PATH] [OPTIONS]`. */
export async function replServerMain(args: string[]): Promise<number> {
  const { socket, rest } = splitSocketOptions(args);
  const env = runtime.env();
  const path = socketPath(socket, env);
  return await replMain(rest, async (host) => await remoteConsole(path, host));
}

async function remoteConsole(path: string, host: ReplHost): Promise<ReplConsole> {
  const rpc = new RpcClient(
    await reachServer({ hello: "termbridge", kind: "rpc", client: `repl pid ${process.pid}` }, {
      path,
      env: runtime.env(),
      start: true,
      notice: (line) => void runtime.writeStderr(line + "\n"),
    }),
  );
  let current: string | undefined;
  let names = (await rpc.request<{ sessions: { name: string }[] }>("sessions/list")).sessions
    .map((session) => session.name);
  const failed = (command: string, error: unknown): RemoteStep => ({
    command,
    ok: false,
    output: "",
    error: (error as Error).message,
  });
  /** `attach [NAME]` runs here: it is this terminal that is handed over. */
  const attach = async (name: string | undefined): Promise<RemoteStep> => {
    const target = name ?? current;
    if (target === undefined) {
      return failed(
        "attach",
        new CommandError(
          `Cannot attach: give a session's name (open: ${names.join(", ") || "none"})`,
        ),
      );
    }
    if (!runtime.isTerminal("stdin") || !host.styled) {
      return failed(
        "attach",
        new CommandError(
          "Cannot attach: termbridge repl must run in a terminal (stdin and stdout) to hand it over",
        ),
      );
    }
    try {
      await host.handOver(async () => {
        await attachTo(path, target, false);
        return "";
      });
      current = target;
      return { command: "attach", ok: true, output: "" };
    } catch (error) {
      return failed("attach", error);
    }
  };
  return {
    async run(line, signal) {
      let parsed;
      try {
        parsed = parseLine(line, "repl");
      } catch (error) {
        return failed(line.trim().split(/\s+/)[0], error);
      }
      if (parsed === null) return null;
      if (parsed.command.name === "attach") {
        return await attach(parsed.parsed as string | undefined);
      }
      try {
        const step = await rpc.request<RemoteStep>(SERVER_METHODS.consoleRun, {
          line: parsed.line,
          cwd: host.options.cwd,
          persistent: true,
          mode: "repl",
          styled: host.styled,
          size: host.options.size,
        }, signal);
        current = step.current;
        names = step.sessions ?? names;
        return step;
      } catch (error) {
        return failed(parsed.command.name, error);
      }
    },
    current: () => current,
    names: () => names,
    finish: () => {
      rpc.close();
      return Promise.resolve(0);
    },
  };
}
