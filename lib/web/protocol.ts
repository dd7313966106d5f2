/**
 * What the dashboard's page and the server say on the page's one WebSocket.
 * Text frames are JSON messages; output travels in binary frames: a 12-byte
 * header (the watch's id, u32 big-endian; the offset of the first byte in the
 * session's raw output, f64 big-endian) and the bytes. An offset counts every
 * byte the session's program wrote since it started, so a page that
 * reconnects says where it stands and gets exactly what follows.
 * @module
 */

/** What the page sends. */
export type PageMessage =
  /** Stream a session: a snapshot then its output, or from `from` when the page has it up to there. */
  | { t: "watch"; name: string; from?: number }
  | { t: "unwatch"; name: string }
  /** The page has drawn the session's output up to `offset` (flow control: see viewer.ts). */
  | { t: "ack"; name: string; offset: number }
  /** Keys for a session this page drives (as xterm.js reports them). */
  | { t: "input"; name: string; data: string }
  /** The size this page shows a session at; applied only while it drives. */
  | { t: "resize"; name: string; cols: number; rows: number }
  /** Takes the input lease (from whoever has it), with the page's size. */
  | { t: "take"; name: string; cols?: number; rows?: number }
  /** Hands the lease back. */
  | { t: "release"; name: string }
  /** Answers an open policy question (an {@linkcode AskMessage}). */
  | { t: "answer"; id: number; allow: boolean };

/** A policy question the asking client cannot answer, for the page's user. */
export interface AskMessage {
  t: "ask";
  id: number;
  kind: "command" | "read" | "write";
  /** The command line (or path) asked about. */
  subject: string;
  reason: string;
  /** The rule that asks, e.g. "ask: git push". */
  rule: string;
  /** Who asked (the client's label, e.g. "exec pid 1234"). */
  client: string;
  session: string | null;
}

/** One session as a dashboard tile shows it. */
export interface Tile {
  name: string;
  program: string[];
  cwd: string;
  running: string | null;
  /** When output last came, in whole seconds since the epoch (stable while idle). */
  idleSince: number;
  exitStatus: { exitCode: number | null; signal: string | null } | null;
  cols: number;
  rows: number;
  /** The client that holds the input lease, or null. */
  driver: string | null;
  /** The last non-blank lines of the screen. */
  preview: string[];
}

/** What the server sends as text. */
export type ServerMessage =
  | { t: "hello"; client: string }
  | { t: "sessions"; list: Tile[] }
  /** The session's state at `offset`: reset the view to cols x rows, write `data`. */
  | {
    t: "snapshot";
    name: string;
    id: number;
    offset: number;
    cols: number;
    rows: number;
    data: string;
  }
  /** The page's view is current up to `offset`; output continues from there. */
  | { t: "resume"; name: string; id: number; offset: number; cols: number; rows: number }
  | { t: "size"; id: number; cols: number; rows: number }
  /** The session is gone (closed); its watch ended. */
  | { t: "gone"; name: string }
  | AskMessage
  /** Question `id` was decided (by a page, a timeout, or withdrawn): hide it. */
  | { t: "answered"; id: number; by: string }
  | { t: "error"; message: string };

/** Bytes in a binary frame's header. */
export const HEADER_BYTES = 12;

/** A binary output frame: header then `bytes`. */
export function outputFrame(id: number, offset: number, bytes: Uint8Array): Uint8Array {
  const frame = new Uint8Array(HEADER_BYTES + bytes.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, id);
  view.setFloat64(4, offset);
  frame.set(bytes, HEADER_BYTES);
  return frame;
}
