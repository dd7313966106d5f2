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
import { chosenSocket, EXIT, subcommandHelp } from "./commands.ts";
import { RESET } from "../repl/attach.ts";
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
  try {
    const said = await attachTo(chosenSocket(args), name, args.options["read-only"] === true);
    if (!said) return EXIT.failure;
  } catch (error) {
    if (!(error instanceof ServerUnavailableError)) throw error;
    await runtime.writeStderr(`termbridge: ${error.message}\n`);
    return error.problem === "unknown-session"
      ? EXIT.unknownSession
      : error.problem === "busy"
      ? EXIT.busy
      : EXIT.failure;
  }
  return 0;
}

/** Turns the alternate screen on or off (xterm's 1049, 1047 and 47). */
// deno-lint-ignore no-control-regex -- matching the escape sequence is the point
const ALT_SCREEN = /\x1b\[\?(?:1049|1047|47)([hl])/g;

/**
 * Connects this terminal (raw) to server session `name` until it detaches
 * (Ctrl+]), the program ends or the server goes; what the server says at the
 * end ("Detached from ...") is shown like the rest of the output. The
 * terminal is put back however it ends (raw mode, alternate screen, modes,
 * title).
 * @returns whether the server said how it ended (false: the connection just closed)
 * @throws {ServerUnavailableError} when the server refuses (`problem` says why)
 */
export async function attachTo(path: string, name: string, readOnly: boolean): Promise<boolean> {
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
  // Whatever ends the attach (Ctrl+], the program, the server killed), the terminal is put
  // back: so the client follows the alternate screen itself, as the server may not get to say.
  let altScreen = false;
  let said = false;
  const decoder = new TextDecoder("latin1");
  const ended = relayToStdout(connection, (chunk) => {
    const text = decoder.decode(chunk);
    for (const match of text.matchAll(ALT_SCREEN)) altScreen = match[1] === "h";
    // The server's last line says how the attach ended ("Detached from ...", "... detached").
    said = /etached[^\n]*\r\n$/.test(text);
  });
  // The outer terminal's title says where you are (the old one is pushed, and popped after).
  await runtime.writeStdout(
    `\x1b[22;2t\x1b]2;termbridge: ${name}${readOnly ? " (read-only)" : ""}\x07`,
  );
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
    await runtime.writeStdout((altScreen ? "\x1b[?1049l" : "") + RESET + "\x1b[23;2t")
      .catch(() => {}); // Our terminal is gone too.
  }
  if (!said) {
    await runtime.writeStderr(
      `\r\ntermbridge: the connection to the server ended (was it killed?); detached from "${name}"\n`,
    );
  }
  return said;
}
