/**
 * `termbridge server`: the per-user session server. It owns sessions and
 * serves them on a private Unix socket to any number of clients at once: the
 * subcommands (`new`, `exec`, `type`...), `attach`, and `mcp`/`repl`/`run`
 * with `--server`. Stopping it (`kill-server`, SIGTERM, SIGHUP, SIGINT)
 * kills every session's processes and removes the socket.
 * @module
 */

import { chmodSync, lstatSync, unlinkSync } from "node:fs";
import process from "node:process";
import { parseModeArgs } from "../cli/args.ts";
import {
  ANSWER_OPTIONS,
  answerHelp,
  SAFETY_HELP,
  SAFETY_OPTIONS,
  SESSION_HELP,
  SESSION_OPTIONS,
  sessionDefaults,
  startSafety,
} from "../cli/safety_options.ts";
import { VERSION } from "../cli/usage.ts";
import {
  runtime,
  type ServedConnection,
  type ShutdownSignal,
  type UnixListener,
} from "../runtime/mod.ts";
import { SessionManager } from "../sessions/manager.ts";
import { serveAttach } from "./attach_host.ts";
import { serveMcp } from "./mcp_host.ts";
import { prepareSocketDir, socketPath } from "./paths.ts";
import { probeSocket } from "./probe.ts";
import { serveRpc } from "./rpc_host.ts";
import { readFirstLine, refuse, socketMessages, writeJsonLine } from "./socket_streams.ts";
import type { Hello } from "./wire.ts";
import { asClient, setLastResortApprover } from "../safety/client.ts";
import { WebHost } from "../web/host.ts";

/** `termbridge server --help`. */
export const SERVER_HELP = `Usage: termbridge server [-L NAME | --socket PATH] [--exit-empty]

Runs the session server in the foreground: it owns sessions and serves them on
a Unix socket private to you (directory 0700, socket 0600), to any number of
clients at once. You rarely start it yourself: the first subcommand that needs
it (new, exec, mcp --server...) starts one in the background, logging to
$XDG_STATE_HOME/termbridge/server-NAME.log.

The socket is $XDG_RUNTIME_DIR/termbridge/NAME.sock (else
/tmp/termbridge-UID/NAME.sock), NAME "default" unless -L NAME says otherwise;
--socket PATH or $TERMBRIDGE_SOCKET choose any path.

Stopping it (termbridge kill-server, SIGTERM, SIGHUP, SIGINT) kills every
session's processes and removes the socket.

Options:
  -L, --name NAME        the server's name (default "default")
  --socket PATH          the server's socket path
  --exit-empty           stop once the last session is closed
${SAFETY_HELP}
${answerHelp("asked on an open termbridge web page, else refused")}
${SESSION_HELP}
  -h, --help             show this help
`;

/** The server's sessions; tells the server when one closes (for --exit-empty). */
class ServerSessions extends SessionManager {
  onClosed: () => void = () => {};

  override async close(name: string): Promise<void> {
    try {
      await super.close(name);
    } finally {
      this.onClosed();
    }
  }
}

/** Runs `termbridge server` until it is stopped; resolves with the exit code. */
export async function serverMain(args: string[]): Promise<number> {
  const { values } = parseModeArgs("server", args, {
    name: { type: "string", short: "L" },
    socket: { type: "string" },
    "exit-empty": { type: "boolean" },
    ...SAFETY_OPTIONS,
    ...ANSWER_OPTIONS,
    ...SESSION_OPTIONS,
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    await runtime.writeStdout(SERVER_HELP);
    return 0;
  }
  const env = runtime.env();
  const path = socketPath({ name: values.name, path: values.socket }, env);
  prepareSocketDir(path);
  if (await probeSocket(path) === "alive") {
    throw new Error(`Cannot start a server on ${path}: one is running there already`);
  }
  // Started by a command, the server runs in "/": the user's own configuration file applies,
  // with its policy, limits and audit log, as in every mode. Its warnings go to the log.
  const safety = await startSafety("server", values);
  const sessions = new ServerSessions({
    ...sessionDefaults(safety),
    idleTimeoutSeconds: safety.loaded.config.idleTimeout,
  });
  const stopping = new AbortController();
  let why = "kill-server";
  const stop = (reason?: string) => {
    if (reason !== undefined && !stopping.signal.aborted) why = reason;
    stopping.abort();
  };
  if (values["exit-empty"]) {
    // After the answer to the close that emptied it is on its way.
    sessions.onClosed = () =>
      sessions.list().length === 0 &&
      setTimeout(() => stop("--exit-empty: the last session was closed"), 0);
  }
  const askSeconds = safety.loaded.config.webAskTimeout;
  const web = new WebHost(
    sessions,
    (line) => void log(line),
    askSeconds === undefined ? undefined : askSeconds * 1000,
  );
  // An "ask" the asking client cannot answer goes to the dashboard's page, if one is open.
  setLastResortApprover((request, signal) => web.ask(request, signal));
  const clients = new Set<ServedConnection>();
  const onClient = (socket: ServedConnection) => {
    clients.add(socket);
    socket.on("close", () => clients.delete(socket));
    void serveClient(socket, { sessions, path, stop, web, signal: stopping.signal }).catch((
      error,
    ) => log(`a client failed: ${(error as Error).stack ?? error}`));
  };
  let server = await listenOn(path, onClient);
  log(`termbridge ${VERSION} server ${process.pid} listening on ${path}`);
  // A socket (or directory) removed behind the server's back would leave it running, unreachable,
  // with its sessions: put it back, or stop if that cannot be done.
  let socketId = socketIdentity(path);
  let checking = false;
  const watch = setInterval(async () => {
    if (checking || stopping.signal.aborted || socketIdentity(path) === socketId) return;
    checking = true;
    try {
      log(`the socket ${path} was removed or replaced: making it again`);
      server.close();
      prepareSocketDir(path);
      if (await probeSocket(path) === "alive") {
        throw new Error("another server listens there now");
      }
      server = await listenOn(path, onClient);
      socketId = socketIdentity(path);
      log(`listening on ${path} again`);
    } catch (error) {
      log(`cannot make the socket ${path} again: ${(error as Error).message}; stopping`);
      socketId = undefined; // Not ours to remove.
      stop("its socket could not be made again");
    } finally {
      checking = false;
    }
  }, SOCKET_CHECK_MS);
  const stops = (["SIGINT", "SIGTERM", "SIGHUP"] as ShutdownSignal[]).map((signal) =>
    runtime.onSignal(signal, () => {
      log(`${signal}: stopping`);
      stop(signal);
    })
  );
  try {
    await new Promise<void>((resolve) =>
      stopping.signal.addEventListener("abort", () => resolve())
    );
  } finally {
    stops.forEach((remove) => remove());
    clearInterval(watch);
    const count = sessions.list().length;
    server.close();
    if (socketId !== undefined && socketIdentity(path) === socketId) removeSocket(path);
    setLastResortApprover(undefined);
    await web.close();
    await sessions.closeAll();
    for (const socket of clients) socket.destroy();
    safety.close();
    // Written before the exit.
    await log(
      `stopped (${why}): ${count} session${count === 1 ? "" : "s"} closed, their processes killed`,
    );
  }
  return 0;
}

/** How often the server checks that its socket is still there (ms). */
const SOCKET_CHECK_MS = 2000;

/** The socket file's device and inode, or undefined when it is not there. */
function socketIdentity(path: string): string | undefined {
  try {
    const info = lstatSync(path);
    return info.isSocket() ? `${info.dev}:${info.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A server listening on `path` (0600), handing each connection to `onClient`.
 * Half-open: a client that has said all it will say (end of its input) still gets its answers.
 */
async function listenOn(
  path: string,
  onClient: (socket: ServedConnection) => void,
): Promise<UnixListener> {
  const server = await runtime.listenUnix(path, onClient);
  chmodSync(path, 0o600);
  return server;
}

function removeSocket(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (removed by hand, or a new server replaced it).
  }
}

/** A line in the server's log (its stderr, which the starter points at the log file). */
function log(message: string): Promise<void> {
  return runtime.writeStderr(`${new Date().toISOString()} ${message}\n`).catch(() => {});
}

interface ClientContext {
  sessions: SessionManager;
  path: string;
  stop: () => void;
  web: WebHost;
  signal: AbortSignal;
}

/** Reads a client's hello and serves the connection it asks for. */
async function serveClient(socket: ServedConnection, context: ClientContext): Promise<void> {
  let opened;
  try {
    opened = await readFirstLine(socket);
  } catch {
    socket.destroy(); // Gone or silent before its hello: a probe, a client that died or hung.
    return;
  }
  const { line, rest } = opened;
  let hello: Hello;
  try {
    hello = JSON.parse(line);
    if (hello?.hello !== "termbridge") throw new Error("not a termbridge hello");
  } catch {
    await refuse(socket, `Cannot serve this client: the first line must be a termbridge hello`);
    return;
  }
  // Everything this connection does is recorded as this client's (lib/safety/client.ts).
  const client = clientLabel(hello);
  await asClient(client, () => serveHello(socket, hello, rest, client, context));
}

/** A client's label for the audit log: what its hello says (bounded), else its kind. */
function clientLabel(hello: Hello): string {
  // The label goes into log and audit lines: control characters are dropped on purpose.
  // deno-lint-ignore no-control-regex
  const given = typeof hello.client === "string" ? hello.client.replace(/[\x00-\x1f]/g, "") : "";
  return given.trim() === "" ? hello.kind : given.slice(0, 200);
}

/** Serves the connection a hello asked for. */
async function serveHello(
  socket: ServedConnection,
  hello: Hello,
  rest: Uint8Array,
  client: string,
  context: ClientContext,
): Promise<void> {
  const { sessions, signal } = context;
  switch (hello.kind) {
    case "rpc": {
      // Not waited for: the socket keeps the order of writes, and the client's requests,
      // which follow its hello at once, are read without one more turn of the event loop.
      void writeJsonLine(socket, { ok: true, pid: process.pid, version: VERSION });
      const stream = socketMessages(socket, rest);
      const done = serveRpc(stream, {
        sessions,
        socket: context.path,
        stop: context.stop,
        web: (where) => context.web.start(where),
      });
      const leave = () => socket.end(); // What was answered still goes out.
      signal.addEventListener("abort", leave, { once: true });
      await done.finally(() => signal.removeEventListener("abort", leave));
      socket.end();
      return;
    }
    case "attach":
      return await serveAttach(socket, { ...hello, client, rest, sessions, signal });
    case "mcp":
      return await serveMcp(socket, { ...hello, rest, sessions, signal });
    default:
      await refuse(
        socket,
        `Cannot serve a "${
          (hello as { kind: string }).kind
        }" connection: expected rpc, attach or mcp`,
      );
  }
}
