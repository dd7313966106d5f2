/**
 * `read NAME --follow`: a session's output printed as it comes, as `tail -f`
 * does, until its program exits, the session is closed, or Ctrl+C. With
 * `--json`, one JSON object a line (NDJSON), each written as it happens.
 * @module
 */

import { runtime } from "../runtime/core.ts";
import { ErrorCode } from "../jsonrpc/codes.ts";
import { type RpcClient, ServerRequestError } from "./client.ts";
import { SERVER_METHODS } from "./wire.ts";

/** How often `read --follow` asks for more output (ms). */
const FOLLOW_MS = 100;

/** The exit status of a follow that Ctrl+C ended (128 + SIGINT, as the shell reports it). */
export const INTERRUPTED = 130;

/** Ctrl+C while following: `stopped` settles on the first SIGINT; `dispose` removes the handler. */
export interface Interruption {
  readonly stopped: Promise<void>;
  readonly interrupted: boolean;
  dispose(): void;
}

/**
 * Catches SIGINT for the time of a follow, so that it ends between two
 * writes (a line is never cut) instead of wherever the signal lands.
 */
export function catchInterrupt(): Interruption {
  let interrupted = false;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => stop = resolve);
  const remove = runtime.onSignal("SIGINT", () => {
    interrupted = true;
    stop();
  });
  return {
    stopped,
    get interrupted() {
      return interrupted;
    },
    dispose: remove,
  };
}

/** Waits `ms`, or less when `stopped` settles first. */
async function pause(ms: number, stopped: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([stopped, new Promise((resolve) => timer = setTimeout(resolve, ms))]);
  clearTimeout(timer);
}

/** A `sessions/read` answer. */
interface Read {
  text: string;
  totalBytes: number;
  exited: boolean;
  exitStatus?: { exitCode: number | null; signal: string | null } | null;
}

/**
 * Follows session `name`'s output. Plain text as it comes, or with `json`
 * one line per chunk, `{"event":"output","text","totalBytes"}`, and a last
 * line saying why it ended: `{"event":"exit","exitCode","signal"}` when the
 * program exited, `{"event":"closed"}` when the session was closed. Both
 * ends exit 0; Ctrl+C exits 130 after the line being written.
 * @returns the exit status
 */
export async function followRead(rpc: RpcClient, name: string, json: boolean): Promise<number> {
  const line = (value: unknown) => runtime.writeStdout(JSON.stringify(value) + "\n");
  const interruption = catchInterrupt();
  let since: number | undefined;
  try {
    for (;;) {
      let read: Read;
      try {
        read = await rpc.request<Read>(
          SERVER_METHODS.read,
          since === undefined ? { name } : { name, since },
        );
      } catch (error) {
        // Closed while followed: the end of what there was to follow, not an unknown name.
        const closed = since !== undefined && error instanceof ServerRequestError &&
          error.code === ErrorCode.resourceNotFound;
        if (!closed) throw error;
        if (json) await line({ event: "closed" });
        else await runtime.writeStderr(`termbridge: session "${name}" was closed\n`);
        return 0;
      }
      if (read.text !== "") {
        if (json) await line({ event: "output", text: read.text, totalBytes: read.totalBytes });
        else await runtime.writeStdout(read.text);
      }
      if (read.exited) {
        if (json) {
          const status = read.exitStatus ?? { exitCode: null, signal: null };
          await line({ event: "exit", exitCode: status.exitCode, signal: status.signal });
        }
        return 0;
      }
      if (interruption.interrupted) return INTERRUPTED;
      since = read.totalBytes;
      await pause(FOLLOW_MS, interruption.stopped);
      if (interruption.interrupted) return INTERRUPTED;
    }
  } finally {
    interruption.dispose();
  }
}
