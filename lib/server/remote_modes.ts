/**
 * `mcp`, `repl` and `run` with `--server`: the front ends on the session
 * server's sessions, which outlive them. `mcp --server` pipes its stdio to an
 * MCP connection the server hosts over its sessions.
 * @module
 */

import process from "node:process";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { parseModeArgs } from "../cli/args.ts";
import { UsageError } from "../cli/usage.ts";
import { runtime } from "../runtime/mod.ts";
import { runMain, type RunnerFactory, type StepOutcome } from "../script/script_mode.ts";
import { reachServer, reachServerQuickly } from "./autostart.ts";
import { relayStdio, RpcClient, ServerRequestError } from "./client.ts";
import { SERVER_METHODS } from "./wire.ts";
import { socketPath } from "./paths.ts";

const MCP_HELP =
  `Usage: termbridge mcp --server [-L NAME | --socket PATH] [--read-only] [--record DIR]

An MCP server on stdin/stdout with the tools of "termbridge mcp", whose
sessions live in the session server (started if none runs): they outlive this
process, so an agent's shells survive an MCP restart, and a person can watch
or take over with "termbridge attach NAME" ("default" is the tools' default
session). Sessions it opens start in the current directory; the server's
configuration sets their shell and size.

Options:
  -L, --name NAME   use the server called NAME (default "default")
  --socket PATH     use the server on the socket PATH (also $TERMBRIDGE_SOCKET)
  --read-only       offer only the tools that read
  --record DIR      record the sessions this client opens to DIR (asciicast)
  -h, --help        show this help
`;

/** `termbridge mcp --server`: stdio piped to an MCP connection of the session server. */
export async function mcpServerMain(args: string[]): Promise<number> {
  const { values } = parseModeArgs("mcp --server", args, {
    name: { type: "string", short: "L" },
    socket: { type: "string" },
    "read-only": { type: "boolean" },
    record: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    await runtime.writeStdout(MCP_HELP);
    return 0;
  }
  const recordDir = values.record === undefined ? undefined : resolve(values.record);
  if (recordDir !== undefined) mkdirSync(recordDir, { recursive: true });
  const env = runtime.env();
  const connection = await reachServer(
    {
      hello: "termbridge",
      kind: "mcp",
      readOnly: values["read-only"] ?? false,
      recordDir,
      cwd: runtime.cwd(),
    },
    {
      path: socketPath({ name: values.name, path: values.socket }, env),
      env,
      start: true,
      notice: (line) => void runtime.writeStderr(line + "\n"),
    },
  );
  await relayStdio(connection);
  return 0;
}

/**
 * `termbridge run --server [-L NAME | --socket PATH] ...`: the script's lines
 * run in the session server, on one console of its own (current session,
 * last exec); the sessions it opens stay open when it ends.
 */
export async function runServerMain(args: string[]): Promise<number> {
  const { socket: chosen, rest } = splitSocketOptions(args);
  const env = runtime.env();
  const runner: RunnerFactory = async (timeouts) => {
    // The runtime's own socket client, as the subcommands use: lighter per request than node:net.
    const rpc = new RpcClient(
      await reachServerQuickly({
        hello: "termbridge",
        kind: "rpc",
        client: `run pid ${process.pid}`,
      }, {
        path: socketPath(chosen, env),
        env,
        start: true,
        notice: (line) => void runtime.writeStderr(line + "\n"),
      }),
    );
    /** Why lines are no longer sent: one sent ahead could not be (too long), without -k. */
    let unsent: string | null = null;
    return {
      run: (parsed, signal, pipelined) => {
        const params = {
          line: parsed.line,
          cwd: runtime.cwd(),
          persistent: true,
          timeouts,
          ...(pipelined ? { pipelined } : {}),
        };
        const failed = (error: string, notRun = false): StepOutcome => ({
          command: parsed.command.name,
          ok: false,
          output: "",
          error,
          ...(notRun ? { notRun } : {}),
        });
        if (unsent !== null) return Promise.resolve(failed(`not run: ${unsent}`, true));
        const refusal = rpc.refusal(SERVER_METHODS.consoleRun, params);
        if (refusal !== null) {
          // Lines sent ahead would run on the server, which never saw this one fail.
          if (pipelined !== undefined && !pipelined.keepGoing) unsent = "a line before it failed";
          return Promise.resolve(failed(refusal));
        }
        return rpc.request<StepOutcome>(SERVER_METHODS.consoleRun, params, signal).catch((error) =>
          // Cancelled before it started (the server answers -32800 then): it never ran.
          failed(
            (error as Error).message,
            error instanceof ServerRequestError && error.code === -32800,
          )
        );
      },
      // The server runs a connection's pipelined lines in order (a server of an older build,
      // which would run them at once, never answers `pipelined`: lines then go one by one).
      pipelines: true,
      finish: () => Promise.resolve(rpc.close()),
    };
  };
  return await runMain(rest, runner);
}

/** Takes `-L NAME`, `--name NAME` and `--socket PATH` out of `args`. */
export function splitSocketOptions(
  args: string[],
): { socket: { name?: string; path?: string }; rest: string[] } {
  const socket: { name?: string; path?: string } = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    if (flag === "-L" || flag === "--name" || flag === "--socket") {
      const value = inline ?? args[++i];
      if (value === undefined) throw new UsageError(`Cannot use ${flag}: it needs a value`);
      if (flag === "--socket") socket.path = value;
      else socket.name = value;
    } else {
      rest.push(arg);
    }
  }
  return { socket, rest };
}
