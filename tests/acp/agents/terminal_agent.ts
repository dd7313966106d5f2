/**
 * A scripted ACP agent for the tests of `termbridge acp`: each prompt names a
 * scenario (its first word) that exercises one part of the client, and the
 * agent reports what it saw with `report()` (JSON in an agent message chunk).
 *
 * Scenarios:
 * - `lifecycle`: every terminal method, exit codes, signals, env, cwd,
 *   truncation, errors for a released id, and a second release.
 * - `embed`: a terminal embedded in a tool call and its updates.
 * - `orphans`: a command with a background grandchild, released.
 * - `hang`: a command with a grandchild, then waits for `session/cancel`
 *   (answers `cancelled` without releasing anything).
 * - `fs`: reads and writes real files in the session's cwd, and bad paths.
 * - `permission [KINDS...]`: asks permission offering one option of each
 *   kind (optionId = kind; default allow_once reject_once), reports the outcome.
 * - `deaf`: a command with a grandchild, then ignores `session/cancel` (the
 *   turn never ends).
 * - `invalid`: two `usage_update`s with `used: null` (as claude-agent-acp
 *   0.23.1 sends), one update of a kind newer than the schema, then text.
 * - `meta_failed`: a command shown only through `_meta` (terminal_info,
 *   output) whose tool call fails with "Exit code 2" and no terminal_exit.
 * - `echo WORDS`: answers `echo: WORDS`.
 * - `burst N`: N message chunks in a row, then the end of the turn at once.
 * - `flood BYTES`: a command printing BYTES bytes at once, then a few chunks.
 * - `run COMMAND LINE`: starts the command, reports `started`, then waits for
 *   `session/cancel` without releasing it.
 * @module
 */

import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import {
  attempt,
  GRANDCHILD_COMMAND,
  GRANDCHILD_PIDS,
  initializeResponse,
  pollOutput,
  promptText,
  report,
  say,
  serveStdio,
} from "./kit.ts";

/** What a scenario gets. */
interface Scene {
  client: acp.AgentContext;
  sessionId: string;
  cwd: string;
  /** Arguments after the scenario name. */
  args: string[];
  /** Aborts when the client cancels the turn. */
  signal: AbortSignal;
  report(name: string, value: unknown): Promise<void>;
}

type Scenario = (scene: Scene) => Promise<acp.StopReason>;

const SCENARIOS: Record<string, Scenario> = {
  async lifecycle({ client, sessionId, cwd, report }) {
    const create = (params: Omit<acp.CreateTerminalRequest, "sessionId">) =>
      client.createTerminal({ sessionId, ...params });

    const exits = await create({ command: "sh", args: ["-c", "echo out; echo err >&2; exit 7"] });
    await report("exit7.wait", await exits.waitForExit());
    await report("exit7.output", await exits.currentOutput());
    await exits.release();

    const sleeper = await create({ command: "sleep", args: ["100"] });
    await report("sleep.running", await sleeper.currentOutput());
    await report("sleep.kill", await sleeper.kill());
    await report("sleep.wait", await sleeper.waitForExit());
    await report("sleep.afterKill", await sleeper.currentOutput());
    await report("sleep.release", await sleeper.release() ?? {});
    await report("sleep.afterRelease", await attempt(() => sleeper.currentOutput()));
    // claude-code-acp's KillShell releases twice: the second must succeed.
    await report("sleep.releaseAgain", await attempt(async () => await sleeper.release() ?? {}));
    await report("sleep.killAfterRelease", await attempt(() => sleeper.kill()));
    await report("sleep.waitAfterRelease", await attempt(() => sleeper.waitForExit()));
    await report("sleep.id", sleeper.id);

    const env = await create({
      command: 'printf "%s|%s" "$TB_TEST" "$PWD"',
      env: [{ name: "TB_TEST", value: "from the agent" }],
      cwd,
    });
    await env.waitForExit();
    await report("env.output", (await env.currentOutput()).output);
    await env.release();

    const limited = await create({ command: "printf", args: ["abcdéé"], outputByteLimit: 5 });
    await limited.waitForExit();
    await report("limit.output", await limited.currentOutput());
    await limited.release();

    await report(
      "relativeCwd",
      await attempt(() => create({ command: "true", cwd: "relative/dir" })),
    );
    await report("missingProgram", await attempt(() => create({ command: "no-such-program-tb" })));
    return "end_turn";
  },

  async embed({ client, sessionId, report }) {
    const terminal = await client.createTerminal({ sessionId, command: "echo embedded output" });
    const update = (update: acp.SessionUpdate) =>
      client.notify(acp.methods.client.session.update, { sessionId, update });
    const content: acp.ToolCallContent[] = [{ type: "terminal", terminalId: terminal.id }];
    await update({
      sessionUpdate: "tool_call",
      toolCallId: "embed-1",
      title: "Echo something",
      kind: "execute",
      status: "in_progress",
      content,
    });
    const exit = await terminal.waitForExit();
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "embed-1",
      status: exit.exitCode === 0 ? "completed" : "failed",
      content,
    });
    await terminal.release();
    await report("embed", { terminalId: terminal.id, exit });
    return "end_turn";
  },

  async orphans({ client, sessionId, report }) {
    const terminal = await client.createTerminal({ sessionId, command: GRANDCHILD_COMMAND });
    const [, leader, child] = await pollOutput(terminal, GRANDCHILD_PIDS);
    await report("pids", { leader: Number(leader), child: Number(child) });
    await terminal.release();
    await report("released", terminal.id);
    return "end_turn";
  },

  async hang({ client, sessionId, signal, report }) {
    const terminal = await client.createTerminal({ sessionId, command: GRANDCHILD_COMMAND });
    const [, leader, child] = await pollOutput(terminal, GRANDCHILD_PIDS);
    await report("pids", { leader: Number(leader), child: Number(child) });
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    await say(client, sessionId, "got session/cancel");
    return "cancelled";
  },

  /** Creates a terminal for the line in the prompt; reports what create answered, and its exit. */
  async policed({ client, sessionId, args, report }) {
    const created = await attempt(() =>
      client.createTerminal({ sessionId, command: args.join(" ") })
    );
    await report("create", "error" in created ? created : { id: created.id });
    if (!("error" in created)) {
      await report("exit", await created.waitForExit());
      await created.release();
    }
    return "end_turn";
  },

  async run({ client, sessionId, args, signal, report }) {
    const terminal = await client.createTerminal({ sessionId, command: args.join(" ") });
    await report("started", terminal.id);
    await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    return "cancelled";
  },

  async deaf({ client, sessionId, report }) {
    const terminal = await client.createTerminal({ sessionId, command: GRANDCHILD_COMMAND });
    const [, leader, child] = await pollOutput(terminal, GRANDCHILD_PIDS);
    await report("pids", { leader: Number(leader), child: Number(child) });
    return await new Promise<never>(() => {}); // Deaf to session/cancel.
  },

  async invalid({ client, sessionId }) {
    const send = (update: unknown) =>
      client.notify(acp.methods.client.session.update, {
        sessionId,
        update: update as acp.SessionUpdate,
      });
    await send({ sessionUpdate: "usage_update", used: null, size: 200000 });
    await send({ sessionUpdate: "usage_update", used: null, size: 200000 });
    await send({ sessionUpdate: "kind_from_the_future", anything: 1 });
    await say(client, sessionId, "after the invalid updates");
    return "end_turn";
  },

  async meta_failed({ client, sessionId, cwd }) {
    const update = (update: Record<string, unknown>) =>
      client.notify(acp.methods.client.session.update, {
        sessionId,
        update: update as acp.SessionUpdate,
      });
    await update({
      sessionUpdate: "tool_call",
      toolCallId: "meta-1",
      title: "Run the failing check",
      kind: "execute",
      status: "in_progress",
      content: [],
      _meta: { terminal_info: { terminal_id: "meta-1", cwd } },
    });
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "meta-1",
      _meta: { terminal_output: { terminal_id: "meta-1", data: "checking...\nboom\n" } },
    });
    await update({
      sessionUpdate: "tool_call_update",
      toolCallId: "meta-1",
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "Exit code 2\nboom" } }],
    });
    await say(client, sessionId, "the check failed");
    return "end_turn";
  },

  async fs({ client, sessionId, cwd, report }) {
    const { fs } = acp.methods.client;
    const path = join(cwd, "notes.txt");
    await report(
      "write",
      await attempt(() =>
        client.request(fs.writeTextFile, { sessionId, path, content: "one\ntwo\nthree\n" })
      ),
    );
    await report("read", await attempt(() => client.request(fs.readTextFile, { sessionId, path })));
    await report(
      "readLines",
      await attempt(() => client.request(fs.readTextFile, { sessionId, path, line: 2, limit: 1 })),
    );
    await report(
      "relative",
      await attempt(() => client.request(fs.readTextFile, { sessionId, path: "notes.txt" })),
    );
    await report(
      "missing",
      await attempt(() =>
        client.request(fs.readTextFile, { sessionId, path: join(cwd, "missing.txt") })
      ),
    );
    await report(
      "missingDirectory",
      await attempt(() =>
        client.request(fs.writeTextFile, {
          sessionId,
          path: join(cwd, "no-such-dir", "x.txt"),
          content: "x",
        })
      ),
    );
    return "end_turn";
  },

  async permission({ client, sessionId, signal, args, report }) {
    const kinds =
      (args.length > 0 ? args : ["allow_once", "reject_once"]) as acp.PermissionOptionKind[];
    const options: acp.PermissionOption[] = kinds.map((kind) => ({
      optionId: kind,
      name: kind,
      kind,
    }));
    const answer: acp.RequestPermissionResponse = await client.request(
      acp.methods.client.session.requestPermission,
      {
        sessionId,
        toolCall: { toolCallId: "perm-1", title: "Delete everything", kind: "delete" },
        options,
      },
      { cancellationSignal: signal },
    );
    await report("permission", answer.outcome);
    return "end_turn";
  },

  async echo({ client, sessionId, args }) {
    await say(client, sessionId, `echo: ${args.join(" ")}`);
    return "end_turn";
  },

  async burst({ client, sessionId, args }) {
    const count = Number(args[0] ?? 20);
    for (let i = 1; i <= count; i++) await say(client, sessionId, `chunk ${i};`);
    return "end_turn";
  },

  async flood({ client, sessionId, args }) {
    const bytes = Number(args[0] ?? 300_000);
    const terminal = await client.createTerminal({
      sessionId,
      command: `head -c ${bytes} /dev/zero | tr '\\0' x`,
    });
    await terminal.waitForExit();
    const { output } = await terminal.currentOutput();
    await terminal.release();
    await report(client, sessionId, "flood", { length: output.length });
    for (let i = 1; i <= 5; i++) await say(client, sessionId, `after ${i};`);
    return "end_turn";
  },
};

const sessions = new Map<string, { cwd: string; cancel?: AbortController }>();

const app = acp.agent({ name: "terminal-agent" })
  .onRequest(acp.methods.agent.initialize, () => initializeResponse("terminal-agent"))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `terminal-agent-${sessions.size + 1}`;
    sessions.set(sessionId, { cwd: params.cwd });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (session === undefined) throw acp.RequestError.sessionNotFound(params.sessionId);
    const [name = "", ...args] = promptText(params.prompt).trim().split(/\s+/);
    const scenario = SCENARIOS[name];
    if (scenario === undefined) {
      throw acp.RequestError.invalidParams(undefined, `Unknown scenario "${name}"`);
    }
    session.cancel = new AbortController();
    const { sessionId } = params;
    return {
      stopReason: await scenario({
        client,
        sessionId,
        cwd: session.cwd,
        args,
        signal: session.cancel.signal,
        report: (name, value) => report(client, sessionId, name, value),
      }),
    };
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    sessions.get(params.sessionId)?.cancel?.abort();
  });

await serveStdio(app);
