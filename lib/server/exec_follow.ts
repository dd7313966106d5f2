/**
 * `exec --follow`: a command's output printed as it comes, read from the
 * session's plain-text output while the command runs. Only whole lines are
 * printed as they come (the command line the shell echoes left out, and the
 * prompt after the command never printed); the rest comes from the command's
 * result when it ends.
 * @module
 */

import type { RpcClient } from "./client.ts";
import { SERVER_METHODS } from "./wire.ts";

/** How often the output is polled, in milliseconds. */
const POLL_MS = 50;

/** Where the session's output is now, to stream from there. */
export async function outputEnd(rpc: RpcClient, name: string): Promise<number> {
  const read = await rpc.request<{ totalBytes: number }>(SERVER_METHODS.read, { name });
  return read.totalBytes;
}

/**
 * Writes the whole lines session `name` prints after `from` until `done`
 * settles, leaving out the `echoed` lines the shell echoes first.
 * @returns what was written (a prefix of the command's output, when the echo was as expected)
 */
export async function streamUntil(
  rpc: RpcClient,
  name: string,
  from: number,
  echoed: number,
  done: Promise<unknown>,
  write: (text: string) => Promise<void>,
): Promise<string> {
  let settled = false;
  const finished = done.then(() => settled = true, () => settled = true);
  let since = from;
  let text = "";
  let written = "";
  while (!settled) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([finished, new Promise((resolve) => timer = setTimeout(resolve, POLL_MS))]);
    clearTimeout(timer);
    if (settled) break;
    const read = await rpc.request<{ text: string; totalBytes: number }>(SERVER_METHODS.read, {
      name,
      since,
    });
    since = read.totalBytes;
    text += read.text;
    const lines = text.split("\n");
    if (lines.length <= echoed) continue; // The echoed command line is not complete yet.
    const body = lines.slice(echoed, -1).map((line) => line + "\n").join("");
    if (body.length > written.length && body.startsWith(written)) {
      await write(body.slice(written.length));
      written = body;
    }
  }
  return written;
}
