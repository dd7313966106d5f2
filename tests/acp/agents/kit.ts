/**
 * What the scripted test agents share: the ACP stream over the agent's own
 * stdio, reporting results to the test, and the errors they saw.
 *
 * Test agents report what they observed as an `agent_message_chunk` whose
 * text is {@link REPORT_PREFIX} followed by JSON; the tests find those in
 * termbridge's `--json` output with `reportsOf()` from `../acp_run.ts`.
 * @module
 */

import process from "node:process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

/** Marks the text of a message chunk that carries a report for the test. */
export const REPORT_PREFIX = "REPORT ";

/** The ACP stream over this process's stdin and stdout. */
export function stdioStream(): acp.Stream {
  return acp.ndJsonStream(
    Writable.toWeb(process.stdout) as unknown as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
  );
}

/** Connects `app` over stdio and exits once the client closes the connection. */
export async function serveStdio(app: acp.AgentApp): Promise<never> {
  const connection = app.connect(stdioStream());
  await connection.closed;
  process.exit(0);
}

/** Sends one text chunk of an agent message. */
export async function say(
  client: acp.AgentContext,
  sessionId: string,
  text: string,
): Promise<void> {
  await client.notify(acp.methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });
}

/** Sends `value` to the test as a report (`REPORT {"name":...,"value":...}`). */
export function report(
  client: acp.AgentContext,
  sessionId: string,
  name: string,
  value: unknown,
): Promise<void> {
  return say(client, sessionId, `${REPORT_PREFIX}${JSON.stringify({ name, value })}`);
}

/** A JSON-RPC error as the agent saw it. */
export interface SeenError {
  error: { code: number | undefined; message: string };
}

/** Runs `body`; returns its result, or the error it threw as {@link SeenError}. */
export async function attempt<T>(body: () => Promise<T>): Promise<T | SeenError> {
  try {
    return await body();
  } catch (error) {
    const { code, message } = error as { code?: number; message?: string };
    return { error: { code, message: message ?? String(error) } };
  }
}

/** Resolves after `ms`; the timer is cleared if `signal` aborts first. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** The usual `initialize` answer of a v1 agent named `name`. */
export function initializeResponse(name: string): acp.InitializeResponse {
  return {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: {},
    authMethods: [],
    agentInfo: { name, version: "0.0.1" },
  };
}

/** The prompt's text blocks joined. */
export function promptText(prompt: acp.ContentBlock[]): string {
  return prompt.map((block) => block.type === "text" ? block.text : "").join("");
}

/**
 * Polls a terminal's output until `pattern` matches it (the way agents poll
 * while a command runs); returns the match.
 * @throws {Error} when it did not match within `timeoutMs`
 */
export async function pollOutput(
  terminal: acp.TerminalHandle,
  pattern: RegExp,
  timeoutMs = 20_000,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { output } = await terminal.currentOutput();
    const match = output.match(pattern);
    if (match !== null) return match;
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for ${pattern} in the output: ${JSON.stringify(output)}`);
    }
    await pause(50);
  }
}

/**
 * A shell line whose leader starts a background grandchild and prints both
 * pids (`leader=N child=M`), then sleeps: the shape of a dev server.
 */
export const GRANDCHILD_COMMAND = 'sleep 100 & echo "leader=$$ child=$!"; sleep 100';

/** Finds the pids printed by {@link GRANDCHILD_COMMAND}. */
export const GRANDCHILD_PIDS = /leader=(\d+) child=(\d+)/;
