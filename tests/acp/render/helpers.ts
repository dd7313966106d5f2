/**
 * Shared pieces of the renderer tests: a target that collects what is
 * written, notification builders, and waiting for a condition.
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import type { RenderTarget } from "../../../lib/acp/render/types.ts";

/** A render target that keeps everything written. */
export interface Collected extends RenderTarget {
  readonly text: string;
}

/** A target collecting writes into `.text`. */
export function collect(columns?: number): Collected {
  const chunks: string[] = [];
  return {
    write: (text: string) => void chunks.push(text),
    columns,
    get text() {
      return chunks.join("");
    },
  };
}

/** A `session/update` notification of session "s" (the update may be of any shape). */
export function note(update: Record<string, unknown>): acp.SessionNotification {
  return { sessionId: "s", update } as unknown as acp.SessionNotification;
}

/** An agent message chunk. */
export function say(text: string): acp.SessionNotification {
  return note({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
}

/** An agent thought chunk. */
export function think(text: string): acp.SessionNotification {
  return note({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text } });
}

/**
 * Resolves once `check()` is true, testing every few milliseconds; rejects
 * after `timeoutMs` with `what` and the last output.
 */
export async function waitUntil(
  check: () => boolean,
  what: string,
  output: () => string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${what}: output was ${JSON.stringify(output())}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Removes ANSI escape sequences, to assert on the text a person sees. */
export function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex -- escape sequences are what is removed
  return text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");
}
