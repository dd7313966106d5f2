/**
 * What the session server and its clients say on the socket. A connection
 * opens with one JSON line from the client, the hello, naming what the
 * connection is for:
 * - `rpc`: JSON-RPC 2.0, one object a line: serve's `sessions/*` methods and
 *   the server's own (`console/run`, `sessions/read`, `server/*`);
 * - `attach`: a person's terminal on a session: the client sends JSON lines
 *   (`{"in": BYTES}` with bytes as a Latin-1 string, `{"resize": [COLS, ROWS]}`),
 *   the server sends the session's output as raw bytes;
 * - `mcp`: an MCP server over the session server's sessions, one message a line.
 * The server answers the hello with one JSON line, {@linkcode HelloReply}.
 * Kept free of heavy imports: the short-lived subcommands load it.
 * @module
 */

/** The client's first line. */
export type Hello = HelloKind & {
  /** Who the client is, for the audit log: "exec pid 1234", "mcp pid 99", "attach pid 7". */
  client?: string;
};

/** What a connection is for, with that kind's fields. */
export type HelloKind =
  | { hello: "termbridge"; kind: "rpc" }
  | {
    hello: "termbridge";
    kind: "attach";
    name: string;
    /** The person's terminal size, or null to leave the session's. */
    size: { cols: number; rows: number } | null;
    readOnly: boolean;
  }
  | {
    hello: "termbridge";
    kind: "mcp";
    readOnly: boolean;
    recordDir?: string;
    /** Working directory of the sessions this client's tools open. */
    cwd?: string;
  };

/** The server's answer to the hello. */
export type HelloReply =
  | { ok: true; pid: number; version: string }
  | { ok: false; error: string; problem?: string };

/** Methods the server adds to serve's `sessions/*`. */
export const SERVER_METHODS = {
  /** Runs one line of the console language on a session: {line, session?, cwd} -> StepResult. */
  consoleRun: "console/run",
  /** The session's output as plain text: {name, sinceLast?} -> {text}. */
  read: "sessions/read",
  /** The server's pid, version, socket and sessions. */
  info: "server/info",
  /** Stops the server: every session's processes are killed, the socket removed. */
  stop: "server/stop",
  /**
   * Starts the browser dashboard if it is not listening yet: {hostname?, port?}
   * -> {link (with a new single-use ticket), origin}.
   */
  web: "web/start",
} as const;

/** Bytes as a string of one character per byte, for JSON. */
export function bytesToLatin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}

/** The bytes of a string made by {@linkcode bytesToLatin1}. */
export function latin1ToBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

/**
 * Splits a byte stream into lines (without the newline), calling `onLine`
 * for each; bytes after the last newline wait for the next chunk.
 */
export function lineSplitter(onLine: (line: string) => void): (chunk: Uint8Array) => void {
  const decoder = new TextDecoder();
  let pending = "";
  return (chunk) => {
    pending += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, at);
      pending = pending.slice(at + 1);
      if (line.trim() !== "") onLine(line);
    }
  };
}
