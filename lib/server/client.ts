/**
 * The client side of the session server's socket: connect with a hello, then
 * JSON-RPC requests (for `rpc` connections) or the raw socket (attach, mcp).
 * Small on purpose: every subcommand is a short-lived process that loads it.
 * @module
 */

import type { Socket } from "node:net";
import {
  runtime,
  type ShutdownSignal,
  type UnixConnection,
  type UnixEvents,
} from "../runtime/core.ts";
import { TerminalError } from "../terminal/errors.ts";
import { ErrorCode } from "../jsonrpc/codes.ts";
import { DEFAULT_MAX_LINE_BYTES } from "../jsonrpc/lines.ts";
import { type Hello, type HelloReply, lineSplitter } from "./wire.ts";

/** An error the server answered a request with. */
export class ServerRequestError extends TerminalError {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

/** The server cannot be reached, or it refused the connection (`problem` says why, if it said). */
export class ServerUnavailableError extends TerminalError {
  constructor(message: string, readonly problem?: string) {
    super(message);
  }
}

/**
 * An open connection: the server's hello reply and the socket, with bytes
 * read past the reply. `reply` is null when the caller did not wait for it
 * (it is then the first line the socket reads).
 */
export interface Connection {
  socket: Socket;
  reply: (HelloReply & { ok: true }) | null;
  rest: Uint8Array;
}

/**
 * Copies what the server sends on `connection` (the bytes read past its hello
 * first) to termbridge's stdout until the socket closes; a stdout that fails
 * ends the connection.
 * @returns a promise that resolves once the socket has closed
 */
export function relayToStdout(
  connection: Connection,
  seen: (chunk: Uint8Array) => void = () => {},
): Promise<void> {
  const { socket } = connection;
  const closed = new Promise<void>((done) => socket.once("close", () => done()));
  socket.on("error", () => {}); // "close" follows.
  socket.on("data", (chunk: Uint8Array) => {
    seen(chunk);
    void runtime.writeStdout(chunk).catch(() => socket.destroy());
  });
  if (connection.rest.length > 0) {
    seen(connection.rest);
    void runtime.writeStdout(connection.rest);
  }
  socket.resume();
  return closed;
}

/**
 * Relays termbridge's stdin to `connection` and what it sends back to stdout
 * until the socket closes (the relay modes: `mcp --server`, `mcp --connect`).
 * End of stdin ends the other side's input: it answers what it was asked,
 * then closes. SIGINT, SIGTERM and SIGHUP close the socket.
 */
export async function relayStdio(connection: Connection): Promise<void> {
  const { socket } = connection;
  const closed = relayToStdout(connection);
  const stops = (["SIGINT", "SIGTERM", "SIGHUP"] as ShutdownSignal[]).map((signal) =>
    runtime.onSignal(signal, () => socket.destroy())
  );
  void (async () => {
    for await (const chunk of runtime.stdin()) {
      if (socket.destroyed) return;
      socket.write(chunk);
    }
    socket.end();
  })().catch(() => socket.destroy());
  try {
    await closed;
  } finally {
    stops.forEach((stop) => stop());
  }
}

/**
 * Connects to the server at `path` and says hello.
 * @throws {ServerUnavailableError} when nothing listens there or the server refuses
 * @throws {Error} with `code` ENOENT or ECONNREFUSED when the socket is missing or stale
 */
export async function openConnection(path: string, hello: Hello): Promise<Connection> {
  // Loaded here, not up front: the short subcommands connect with openQuickConnection.
  const { connect } = await import("node:net");
  return await new Promise((resolve, reject) => {
    const socket = connect(path);
    let buffered = new Uint8Array(0);
    const onData = (chunk: Uint8Array) => {
      const joined = new Uint8Array(buffered.length + chunk.length);
      joined.set(buffered);
      joined.set(chunk, buffered.length);
      buffered = joined;
      const at = buffered.indexOf(0x0a);
      if (at === -1) return;
      socket.off("data", onData);
      socket.off("error", reject);
      socket.off("close", onClose);
      socket.pause();
      let reply: HelloReply;
      try {
        reply = JSON.parse(new TextDecoder().decode(buffered.subarray(0, at)));
      } catch {
        socket.destroy();
        return reject(new ServerUnavailableError(`Cannot use ${path}: not a termbridge server`));
      }
      if (!reply.ok) {
        socket.destroy();
        return reject(new ServerUnavailableError(reply.error, reply.problem));
      }
      resolve({ socket, reply, rest: buffered.slice(at + 1) });
    };
    const onClose = () =>
      reject(new ServerUnavailableError(`The server at ${path} closed the connection at once`));
    socket.on("data", onData);
    socket.once("error", reject);
    socket.once("close", onClose);
    socket.write(JSON.stringify(hello) + "\n");
  });
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * An `rpc` connection opened without waiting for the hello's answer (the
 * first line it reads), over the runtime's own socket client: what the short
 * subcommands use, as it is the quickest to load and to connect.
 */
export interface QuickConnection {
  quick: UnixConnection;
  /** Sets who receives what the connection reads and its end; what came before is passed on. */
  listen(events: UnixEvents): void;
}

/**
 * Connects to `path` and sends the hello; requests may follow at once.
 * @throws {Error} with `code` ENOENT or ECONNREFUSED when the socket is missing or stale
 */
export async function openQuickConnection(path: string, hello: Hello): Promise<QuickConnection> {
  let events: UnixEvents | undefined;
  const early: Uint8Array[] = [];
  let closed: { error?: Error } | undefined;
  const quick = await runtime.connectUnix(path, {
    data: (chunk) => events === undefined ? early.push(chunk) : events.data(chunk),
    close: (error) => events === undefined ? closed = { error } : events.close(error),
  });
  quick.write(JSON.stringify(hello) + "\n");
  return {
    quick,
    listen(given) {
      events = given;
      for (const chunk of early.splice(0)) given.data(chunk);
      if (closed !== undefined) given.close(closed.error);
    },
  };
}

/** JSON-RPC requests over an `rpc` connection. */
export class RpcClient {
  readonly #socket: UnixConnection;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #closed: Error | undefined;
  /** Whether the next line is the server's answer to the hello. */
  #helloPending: boolean;

  /** Whether the server has answered the hello (a request may have reached it). */
  get greeted(): boolean {
    return !this.#helloPending;
  }

  constructor(connection: Connection | QuickConnection) {
    const onLine = lineSplitter((line) => this.#receive(line));
    const events: UnixEvents = {
      data: onLine,
      close: (error) => this.#fail(error?.message ?? "the server closed the connection"),
    };
    if ("quick" in connection) {
      this.#socket = connection.quick;
      this.#helloPending = true;
      connection.listen(events);
      return;
    }
    this.#socket = nodeConnection(connection.socket, events);
    this.#helloPending = connection.reply === null;
    if (connection.rest.length > 0) onLine(connection.rest);
    connection.socket.resume();
  }

  /**
   * Sends a request and waits for its answer.
   * @throws {ServerRequestError} with the server's error
   */
  request<T = unknown>(method: string, params: unknown = {}, signal?: AbortSignal): Promise<T> {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = this.#nextId++;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
    const tooLong = oversized(line);
    if (tooLong !== null) {
      return Promise.reject(new ServerRequestError(ErrorCode.invalidRequest, tooLong));
    }
    const cancel = () =>
      this.#send({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: id } });
    signal?.addEventListener("abort", cancel, { once: true });
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#socket.write(line);
    }).finally(() => signal?.removeEventListener("abort", cancel));
  }

  /** Why a request with `params` cannot be sent (see {@linkcode oversized}), or null. */
  refusal(method: string, params: unknown): string | null {
    return oversized(JSON.stringify({ jsonrpc: "2.0", id: this.#nextId, method, params }) + "\n");
  }

  #send(message: unknown): void {
    this.#socket.write(JSON.stringify(message) + "\n");
  }

  /** Ends the connection. */
  close(): void {
    this.#socket.end();
  }

  #receive(line: string): void {
    if (this.#helloPending) {
      this.#helloPending = false;
      let reply: HelloReply | undefined;
      try {
        reply = JSON.parse(line);
      } catch {
        // Not JSON: said below.
      }
      if (reply?.ok !== true) {
        this.#fail(reply?.ok === false ? reply.error : "not a termbridge server", false);
        this.close();
      }
      return;
    }
    let message: {
      id?: number | null;
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    try {
      message = JSON.parse(line);
    } catch {
      return; // Not a line we can use; the request it answers will fail when the socket closes.
    }
    if (message.id === null && message.error) {
      // An answer to a request the server could not read (it has no id): which one is not
      // known, so none waits for an answer that will not come.
      const error = new ServerRequestError(message.error.code, message.error.message);
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
      return;
    }
    const pending = message.id === undefined || message.id === null
      ? undefined
      : this.#pending.get(message.id);
    if (pending === undefined) return;
    this.#pending.delete(message.id!);
    if (message.error) {
      pending.reject(
        new ServerRequestError(message.error.code, message.error.message, message.error.data),
      );
    } else {
      pending.resolve(message.result);
    }
  }

  #fail(why: string, explain = true): void {
    this.#closed ??= new ServerUnavailableError(explain ? `Cannot reach the server: ${why}` : why);
    for (const pending of this.#pending.values()) pending.reject(this.#closed);
    this.#pending.clear();
  }
}

/** A `node:net` socket as a {@linkcode UnixConnection} reporting to `events`. */
function nodeConnection(socket: Socket, events: UnixEvents): UnixConnection {
  socket.on("data", (chunk: Uint8Array) => events.data(chunk));
  socket.on("close", () => events.close());
  socket.on("error", (error) => events.close(error));
  return {
    write: (data) => void (!socket.destroyed && socket.write(data)),
    end: () => {
      socket.end();
      socket.destroy();
    },
  };
}

/**
 * Why the server cannot read `line`, or null: a line over its ceiling would
 * be answered without an id, and what came after it read as if it had never
 * been sent.
 */
function oversized(line: string): string | null {
  const bytes = line.length > DEFAULT_MAX_LINE_BYTES / 3
    ? new TextEncoder().encode(line).length
    : line.length;
  return bytes > DEFAULT_MAX_LINE_BYTES
    ? `Cannot send the request: it is ${bytes} bytes, and the server reads at most 64 MiB (${DEFAULT_MAX_LINE_BYTES} bytes) a line`
    : null;
}
