/**
 * `acp --server`: the agent's terminals shown as the session server's
 * sessions, named after the run (`acp-1234.term-3`), so they can be listed,
 * attached and watched in the browser while the agent works. The terminals
 * stay this process's, owned and cleaned up as without `--server`: each
 * server session runs a relay (`termbridge _relay`) that copies its
 * terminal's output to the session and the keys typed there back to it,
 * passes the session's size on to it (whoever resized the session: the
 * page's driver, `attach`, `resize`), and is closed when the agent releases
 * the terminal or the run ends.
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { quoteWord } from "../console/tokenize.ts";
import { runtime, type ServedConnection, type UnixListener } from "../runtime/mod.ts";
import type { TerminalEvent, TerminalService } from "../service/terminal_service.ts";
import type { Terminal } from "../terminal/terminal.ts";
import { RpcClient } from "./client.ts";
import { connectTo } from "./commands.ts";
import { readFirstLine } from "./socket_streams.ts";
import { socketPath } from "./paths.ts";
import { SERVER_METHODS } from "./wire.ts";

/** Mirrors a run's terminals into the session server at `serverSocket`. */
export class AcpMirror {
  readonly #server: UnixListener;
  readonly #dir: string;
  readonly #rpc: RpcClient;
  readonly #terminals = new Map<string, Terminal>();
  readonly #relays = new Map<string, ServedConnection>();
  /** Each mirrored terminal's session, once opened (or failed). */
  readonly #opened = new Map<string, Promise<string | null>>();
  readonly #prefix = `acp-${process.pid}`;

  private constructor(server: UnixListener, dir: string, rpc: RpcClient) {
    this.#server = server;
    this.#dir = dir;
    this.#rpc = rpc;
  }

  /**
   * Reaches the session server (starting one if none runs) and follows
   * `service`'s terminals from now on.
   */
  static async start(service: TerminalService, serverSocket: string): Promise<AcpMirror> {
    const rpc = new RpcClient(
      await connectTo(serverSocket, "rpc", { client: `acp pid ${process.pid}` }),
    );
    const dir = mkdtempSync(join(tmpdir(), "termbridge-acp-relay-"));
    // Nobody connects before the first relay is started; one that did would have nobody to serve it.
    let relay = (socket: ServedConnection) => socket.destroy();
    const server = await runtime.listenUnix(join(dir, "relay.sock"), (socket) => relay(socket));
    const mirror = new AcpMirror(server, dir, rpc);
    relay = (socket) => void mirror.#relay(socket);
    service.onEvent((event) => mirror.#onEvent(event));
    return mirror;
  }

  /** Closes every mirrored session, the relays and the connection to the server. */
  async close(): Promise<void> {
    await Promise.all([...this.#opened.keys()].map((id) => this.#closeSession(id)));
    this.#server.close();
    this.#rpc.close();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  #onEvent(event: TerminalEvent): void {
    if (event.type === "created") {
      this.#terminals.set(event.id, event.terminal);
      this.#opened.set(event.id, this.#openSession(event, event.terminal));
    } else if (event.type === "released") {
      void this.#closeSession(event.id);
    }
  }

  async #openSession(
    created: { id: string; cwd: string; command: string },
    terminal: Terminal,
  ): Promise<string | null> {
    const { id, cwd } = created;
    const name = `${this.#prefix}.${id}`;
    // The agent's command rides along after "--", for `ls` and the dashboard's tile.
    const relay = [
      ...runtime.selfCommand(),
      "_relay",
      join(this.#dir, "relay.sock"),
      id,
      "--",
      created.command,
    ];
    const line = ["open", name, "--cwd", cwd, "--size", `${terminal.cols}x${terminal.rows}`, "--"]
      .concat(relay).map(quoteWord).join(" ");
    try {
      await this.#rpc.request(SERVER_METHODS.consoleRun, { line });
      return name;
    } catch (error) {
      await runtime.writeStderr(
        `termbridge: cannot show terminal ${id} in the session server: ${
          (error as Error).message
        }\n`,
      );
      return null;
    }
  }

  async #closeSession(id: string): Promise<void> {
    const name = await this.#opened.get(id);
    this.#opened.delete(id);
    this.#relays.get(id)?.end();
    this.#relays.delete(id);
    this.#terminals.delete(id);
    if (name) {
      // The session may be gone already (closed by someone): nothing to close then.
      await this.#rpc.request(SERVER_METHODS.consoleRun, { line: `close ${quoteWord(name)}` })
        .catch(() => {});
    }
  }

  /**
   * One relay connection. Its first line names the terminal: `ID` for the
   * output (out) and keys (in), `size ID` for the relay's sizes, one
   * `COLS ROWS` line each time its terminal is resized.
   */
  async #relay(socket: ServedConnection): Promise<void> {
    let opened;
    try {
      opened = await readFirstLine(socket);
    } catch {
      socket.destroy();
      return;
    }
    const [first, second] = opened.line.trim().split(" ");
    const id = second ?? first;
    const terminal = this.#terminals.get(id);
    if (terminal === undefined || terminal.disposed || (second !== undefined && first !== "size")) {
      socket.end();
      return;
    }
    if (second !== undefined) {
      followSizes(socket, opened.rest, terminal);
      return;
    }
    this.#relays.set(id, socket);
    const log = terminal.rawLog;
    let offset = 0;
    const pump = () => {
      if (terminal.disposed || socket.ended) return;
      const from = Math.max(offset, log.totalBytes - log.byteLength);
      const bytes = log.since(from);
      offset = log.totalBytes;
      if (bytes.length > 0) socket.write(bytes);
      if (terminal.exitStatus !== null) socket.end();
    };
    const stop = terminal.onChange(pump);
    socket.on("close", stop);
    socket.on("data", (chunk: Uint8Array) => {
      if (!terminal.disposed && terminal.exitStatus === null) terminal.write(chunk);
    });
    socket.resume(); // readFirstLine left it paused.
    if (opened.rest.length > 0 && terminal.exitStatus === null) terminal.write(opened.rest);
    pump();
  }
}

/** Resizes `terminal` to each `COLS ROWS` line the relay sends; a bad line is skipped. */
function followSizes(socket: ServedConnection, rest: Uint8Array, terminal: Terminal): void {
  let pending = "";
  const take = (chunk: Uint8Array) => {
    pending += new TextDecoder().decode(chunk);
    const lines = pending.split("\n");
    pending = lines.pop()!.slice(-64); // A size line is short: no unbounded growth.
    for (const line of lines) {
      const match = /^(\d{1,4}) (\d{1,4})$/.exec(line);
      if (match === null || terminal.disposed || terminal.exitStatus !== null) continue;
      const [cols, rows] = [Number(match[1]), Number(match[2])];
      if (cols === terminal.cols && rows === terminal.rows) continue;
      try {
        terminal.resize(cols, rows);
      } catch {
        // Out of range (under 2x1): the agent's terminal keeps its size.
      }
    }
  };
  socket.on("data", take);
  socket.resume(); // readFirstLine left it paused.
  if (rest.length > 0) take(rest);
}

/**
 * `termbridge _relay SOCKET ID` (internal): the program of a mirrored
 * session. Copies what the socket says to its terminal, raw, and its
 * terminal's keys to the socket, until the socket closes; reports its
 * terminal's size on a second connection at start and on each resize.
 */
export async function relayMain(args: string[]): Promise<number> {
  const [path, id] = args;
  if (path === undefined || id === undefined) {
    await runtime.writeStderr("termbridge: _relay is internal: _relay SOCKET ID\n");
    return 2;
  }
  if (runtime.isTerminal("stdin")) runtime.setRawMode(true);
  let ended!: () => void;
  const closed = new Promise<void>((resolve) => ended = resolve);
  const connection = await runtime.connectUnix(path, {
    data: (chunk) => void runtime.writeStdout(chunk),
    close: () => ended(),
  });
  connection.write(id + "\n");
  const sizes = await runtime.connectUnix(path, { data: () => {}, close: () => {} });
  sizes.write(`size ${id}\n`);
  const report = () => {
    const size = runtime.consoleSize();
    if (size !== null) sizes.write(`${size.cols} ${size.rows}\n`);
  };
  report();
  process.stdout.on("resize", report);
  const reader = runtime.stdin().getReader();
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      connection.write(value);
    }
  })().catch(() => {}); // The terminal went away: the socket's end ends the relay.
  await closed;
  process.stdout.off("resize", report);
  sizes.end();
  await runtime.writeStdout("");
  return 0;
}

/** `termbridge acp --server ...`: `acp` with its terminals mirrored into the session server. */
export async function acpServerMain(args: string[]): Promise<number> {
  const { acpMain } = await import("../acp/acp_mode.ts");
  const { ACP_HOST } = await import("./acp_host.ts");
  const path = socketPath({}, runtime.env());
  let mirror: AcpMirror | undefined;
  return await acpMain(args, {
    ...ACP_HOST,
    started: async (service) => void (mirror = await AcpMirror.start(service, path)),
    finished: async () => await mirror?.close(),
  });
}
