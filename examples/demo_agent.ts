/**
 * A scripted Agent Client Protocol agent that shows off `termbridge acp` in a
 * few seconds, with no language model: streamed text, a thought, a plan,
 * commands in real terminals embedded in tool calls (one that succeeds, one
 * that fails, one killed on a timeout), a permission request, a file written
 * and read back through the client, and a diff.
 *
 * Run it in a fresh directory, since it writes a file into the session's cwd:
 *
 * ```sh
 * termbridge acp --yes --cwd "$(mktemp -d)" -- bun examples/demo_agent.ts
 * ```
 *
 * It runs on Bun and on Deno (`deno run -A examples/demo_agent.ts`), speaks
 * ACP v1 on its stdin/stdout and honours `session/cancel`.
 * @module
 */

import process from "node:process";
import { Readable, Writable } from "node:stream";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";

/**
 * How long the "runs too long" command may run before it is killed;
 * `DEMO_TIMEOUT_MS` sets another (say, to watch it on `termbridge web`).
 */
const TIMEOUT_MS = Number(process.env.DEMO_TIMEOUT_MS) || 1500;

/** Thrown inside a turn once the client sent `session/cancel`. */
class Cancelled extends Error {}

/** What became of one command. */
interface Ran {
  title: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
}

/** One prompt turn: talks to the client for one session until cancelled. */
class Turn {
  /** Rejects with {@link Cancelled} once the client sent `session/cancel`. */
  readonly cancelled: Promise<never>;
  #toolCalls = 0;

  constructor(
    readonly client: acp.AgentContext,
    readonly sessionId: string,
    readonly cwd: string,
    readonly signal: AbortSignal,
  ) {
    this.cancelled = new Promise((_, reject) => {
      signal.addEventListener("abort", () => reject(new Cancelled()), { once: true });
    });
    // Only ever raced; this keeps a cancellation nobody races from counting as unhandled.
    this.cancelled.catch(() => {});
  }

  /** Sends one `session/update`; throws {@link Cancelled} once cancelled. */
  async update(update: acp.SessionUpdate): Promise<void> {
    if (this.signal.aborted) throw new Cancelled();
    await this.client.notify(acp.methods.client.session.update, {
      sessionId: this.sessionId,
      update,
    });
  }

  /** Streams `text` as an agent message (or thought), a few words at a time. */
  async say(
    text: string,
    kind: "agent_message_chunk" | "agent_thought_chunk" = "agent_message_chunk",
  ): Promise<void> {
    for (const chunk of text.match(/(\S+\s*){1,3}/g) ?? []) {
      await this.update({ sessionUpdate: kind, content: { type: "text", text: chunk } });
      await this.pause(40);
    }
  }

  /** Sends the whole plan (ACP plans are always complete) with these statuses. */
  plan(statuses: acp.PlanEntryStatus[]): Promise<void> {
    const steps = ["Look around the machine", "Try commands that go wrong", "Write a note file"];
    return this.update({
      sessionUpdate: "plan",
      entries: steps.map((content, i) => ({ content, priority: "medium", status: statuses[i] })),
    });
  }

  /** A new tool call id. */
  nextToolCallId(): string {
    return `demo-${++this.#toolCalls}`;
  }

  /** Resolves `promise`, or throws {@link Cancelled} as soon as the turn is cancelled. */
  race<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.cancelled]);
  }

  /** Waits `ms`, or throws {@link Cancelled} as soon as the turn is cancelled. */
  async pause(ms: number): Promise<void> {
    let clock: ReturnType<typeof setTimeout> | undefined;
    try {
      await this.race(new Promise((resolve) => clock = setTimeout(resolve, ms)));
    } finally {
      clearTimeout(clock);
    }
  }
}

/**
 * Runs `command` in a client terminal shown in a tool call: waits for its exit
 * (or kills it after `timeoutMs`, the recipe of the ACP spec), reads its output
 * and releases the terminal, whatever happens.
 */
async function runCommand(
  turn: Turn,
  title: string,
  command: string,
  timeoutMs = 10_000,
): Promise<Ran> {
  const toolCallId = turn.nextToolCallId();
  const terminal = await turn.client.createTerminal({
    sessionId: turn.sessionId,
    command,
    cwd: turn.cwd,
    outputByteLimit: 64 * 1024,
  });
  try {
    await turn.update({
      sessionUpdate: "tool_call",
      toolCallId,
      title,
      kind: "execute",
      status: "in_progress",
      rawInput: { command },
      content: [{ type: "terminal", terminalId: terminal.id }],
    });
    let clock: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) =>
      clock = setTimeout(() => resolve("timeout"), timeoutMs)
    );
    let exit: acp.WaitForTerminalExitResponse | "timeout";
    try {
      exit = await turn.race(Promise.race([terminal.waitForExit(), timeout]));
    } finally {
      clearTimeout(clock);
    }
    if (exit === "timeout") await terminal.kill();
    const { exitStatus } = await terminal.currentOutput();
    const ran: Ran = {
      title,
      exitCode: exitStatus?.exitCode ?? null,
      signal: exitStatus?.signal ?? null,
      timedOut: exit === "timeout",
    };
    await turn.update({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: ran.exitCode === 0 ? "completed" : "failed",
      rawOutput: ran,
    });
    return ran;
  } finally {
    await terminal.release();
  }
}

/** Asks permission to write a note, then writes it, reads it back and shows the diff. */
async function writeNote(turn: Turn): Promise<string> {
  const path = join(turn.cwd, "termbridge-demo.md");
  const newText =
    "# termbridge demo\n\nWritten by examples/demo_agent.ts through fs/write_text_file.\n";
  const toolCallId = turn.nextToolCallId();
  const diff: acp.ToolCallContent = { type: "diff", path, oldText: null, newText };
  await turn.update({
    sessionUpdate: "tool_call",
    toolCallId,
    title: `Write ${path}`,
    kind: "edit",
    status: "pending",
    locations: [{ path }],
  });
  const answer = await turn.client.request(acp.methods.client.session.requestPermission, {
    sessionId: turn.sessionId,
    toolCall: { toolCallId, title: `Write ${path}`, kind: "edit", content: [diff] },
    options: [
      { optionId: "allow", name: "Allow this write", kind: "allow_once" },
      { optionId: "reject", name: "Do not write", kind: "reject_once" },
    ],
  }, { cancellationSignal: turn.signal });
  if (answer.outcome.outcome === "cancelled") throw new Cancelled();
  if (answer.outcome.optionId !== "allow") {
    await turn.update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
    return "You said no, so I left the file alone.";
  }
  await turn.client.request(acp.methods.client.fs.writeTextFile, {
    sessionId: turn.sessionId,
    path,
    content: newText,
  });
  const { content } = await turn.client.request(acp.methods.client.fs.readTextFile, {
    sessionId: turn.sessionId,
    path,
  });
  await turn.update({
    sessionUpdate: "tool_call_update",
    toolCallId,
    status: content === newText ? "completed" : "failed",
    content: [diff],
  });
  return content === newText
    ? `I wrote ${path} and read it back: ${content.length} characters, as written.`
    : `I wrote ${path}, but it read back differently.`;
}

/** `"exit code 3"`, `"SIGTERM"`, `"killed after 1500 ms (SIGTERM)"`. */
function describeExit(ran: Ran): string {
  const how = ran.signal ?? `exit code ${ran.exitCode}`;
  return ran.timedOut ? `killed after ${TIMEOUT_MS} ms (${how})` : how;
}

/** The scripted turn: talk, think, plan, run three commands, write a note, sum up. */
async function demo(turn: Turn, terminals: boolean): Promise<void> {
  await turn.say("Let me look around... I will run a few commands in real terminals.\n");
  await turn.say(
    "The client gives me PTYs, so colours and exit codes come through as they are.",
    "agent_thought_chunk",
  );
  await turn.plan(["in_progress", "pending", "pending"]);
  if (!terminals) {
    await turn.say("\nThis client offers no terminals, so I cannot show them.\n");
    return;
  }
  const ran: Ran[] = [];
  ran.push(
    await runCommand(
      turn,
      "Say hello in colour",
      "printf '\\033[1;32m✔ green\\033[0m \\033[1;33m● yellow\\033[0m \\033[1;34m◆ blue\\033[0m\\n' && uname -srm && ls -la",
    ),
  );
  await turn.plan(["completed", "in_progress", "pending"]);
  ran.push(
    await runCommand(turn, "A check that fails", "echo 'checking the frobnicator...'; exit 3"),
  );
  ran.push(
    await runCommand(
      turn,
      "A command that runs too long",
      "echo 'waiting forever...'; sleep 30",
      TIMEOUT_MS,
    ),
  );
  await turn.plan(["completed", "completed", "in_progress"]);
  const wrote = await writeNote(turn);
  await turn.plan(["completed", "completed", "completed"]);
  const seen = ran.map((r) => `- ${r.title}: ${describeExit(r)}`);
  await turn.say(`\nDone. Exit statuses seen:\n${seen.join("\n")}\n${wrote}\n`);
}

/** Per session: its cwd and the controller that cancels its running turn. */
const sessions = new Map<string, { cwd: string; turn?: AbortController }>();
let clientTerminals = false;

const app = acp.agent({ name: "termbridge-demo" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientTerminals = params.clientCapabilities?.terminal === true;
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {},
      authMethods: [],
      agentInfo: { name: "termbridge-demo", version: "1.0.0" },
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `demo-${crypto.randomUUID()}`;
    sessions.set(sessionId, { cwd: params.cwd });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (session === undefined) throw acp.RequestError.sessionNotFound(params.sessionId);
    const controller = new AbortController();
    session.turn = controller;
    try {
      await demo(
        new Turn(client, params.sessionId, session.cwd, controller.signal),
        clientTerminals,
      );
      return { stopReason: "end_turn" };
    } catch (error) {
      // After session/cancel, client requests may fail too: the turn is cancelled either way.
      if (controller.signal.aborted) return { stopReason: "cancelled" };
      throw error;
    } finally {
      session.turn = undefined;
    }
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.turn?.abort();
  });

const connection = app.connect(
  acp.ndJsonStream(
    Writable.toWeb(process.stdout) as unknown as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>,
  ),
);
await connection.closed;
process.exit(0);
