/**
 * The subcommands that are not one request: `attach` (this terminal on a
 * server session until Ctrl+]) and `kill-server`.
 * @module
 */

import { readFileSync } from "node:fs";
import process from "node:process";
import { runtime } from "../runtime/mod.ts";
import { reachServer } from "./autostart.ts";
import { relayToStdout, RpcClient, ServerUnavailableError } from "./client.ts";
import { parseCommandArgs, sessionName } from "./command_args.ts";
import { SUBCOMMAND_HELP } from "../cli/server_commands.ts";
import { chosenSocket, subcommandHelp } from "./commands.ts";
import { bytesToLatin1, SERVER_METHODS } from "./wire.ts";

/** Whether process `pid` still runs (exists and is not a zombie). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false; // No such process.
  }
}

/** `termbridge kill-server`: stops the server and returns once it has exited. */
export async function killServerMain(argv: string[]): Promise<number> {
  const args = parseCommandArgs("kill-server", argv, {});
  if (args.options.help) {
    await runtime.writeStdout(subcommandHelp("kill-server"));
    return 0;
  }
  const path = chosenSocket(args);
  let connection;
  try {
    connection = await reachServer({
      hello: "termbridge",
      kind: "rpc",
      client: `kill-server pid ${process.pid}`,
    }, {
      path,
      env: runtime.env(),
      start: false,
      notice: (line) => void runtime.writeStderr(line + "\n"),
    });
  } catch (error) {
    if (!(error instanceof ServerUnavailableError)) throw error;
    await runtime.writeStderr(`termbridge: no server is running on ${path}\n`);
    return 1;
  }
  const pid = connection.reply!.pid; // Waited for: the default.
  const rpc = new RpcClient(connection);
  // The server may close the connection before its answer leaves: stopping is what was asked.
  await rpc.request(SERVER_METHODS.stop).catch(() => {});
  rpc.close();
  // Nothing tells a process that is not the parent when another one has exited: poll.
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 5));
  if (args.options.json) await runtime.writeStdout(JSON.stringify({ stopped: pid }) + "\n");
  return 0;
}

/** `termbridge attach NAME [--read-only]`: this terminal on a session until Ctrl+]. */
export async function attachMain(argv: string[]): Promise<number> {
  const args = parseCommandArgs("attach", argv, { "read-only": "flag" });
  if (args.options.help) {
    await runtime.writeStdout(subcommandHelp("attach"));
    return 0;
  }
  const name = sessionName("attach", args.words, SUBCOMMAND_HELP.attach.usage);
  if (!runtime.isTerminal("stdin")) {
    await runtime.writeStderr(
      `termbridge: cannot attach to "${name}": stdin is not a terminal (use screen, type and key from scripts)\n`,
    );
    return 1;
  }
  await attachTo(chosenSocket(args), name, args.options["read-only"] === true);
  return 0;
}

/**
 * Connects this terminal (raw) to server session `name` until it detaches
 * (Ctrl+]), the program ends or the server goes; what the server says at the
 * end ("Detached from ...") is shown like the rest of the output.
 */
export async function attachTo(path: string, name: string, readOnly: boolean): Promise<void> {
  const connection = await reachServer(
    { hello: "termbridge", kind: "attach", name, size: runtime.consoleSize(), readOnly },
    {
      path,
      env: runtime.env(),
      start: true,
      notice: (line) => void runtime.writeStderr(line + "\n"),
    },
  );
  const { socket } = connection;
  const ended = relayToStdout(connection);
  const send = (message: unknown) => {
    if (!socket.destroyed) socket.write(JSON.stringify(message) + "\n");
  };
  const onResize = () => {
    const size = runtime.consoleSize();
    if (size) send({ resize: [size.cols, size.rows] });
  };
  process.stdout.on("resize", onResize);
  const onInput = (chunk: Uint8Array) => send({ in: bytesToLatin1(chunk) });
  runtime.setRawMode(true);
  process.stdin.on("data", onInput);
  process.stdin.resume();
  try {
    await ended;
  } finally {
    process.stdin.off("data", onInput);
    process.stdin.pause();
    process.stdout.off("resize", onResize);
    runtime.setRawMode(false);
  }
}
