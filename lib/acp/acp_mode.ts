/**
 * `termbridge acp -- AGENT`: an Agent Client Protocol client whose terminals
 * are real. Runs the agent, opens a session, sends prompts, renders what the
 * agent does, answers its permission requests and serves its `terminal/*`
 * and `fs/*` requests.
 * @module
 */

import { settleWithin } from "../terminal/timing.ts";
import * as acp from "@agentclientprotocol/sdk";
import { directoryOption, numberOption, parseModeArgs } from "../cli/args.ts";
import { UsageError, VERSION } from "../cli/usage.ts";
import { runtime, type ShutdownSignal } from "../runtime/mod.ts";
import { TerminalService } from "../service/terminal_service.ts";
import { type AgentProcess, startAgent } from "./agent_process.ts";
import { serveFiles, serveTerminals } from "./client_handlers.ts";
import {
  type AskPerson,
  PermissionDesk,
  type PermissionPolicy,
  toPermissionResponse,
} from "./permissions.ts";
import { ChatConsole, stdinLines } from "./prompt_sources.ts";
import { chooseRenderMode, createRenderer } from "./render/mod.ts";
import { inArrivalOrder } from "./stdio.ts";
import type { Renderer } from "./render/types.ts";

const HELP = `Usage: termbridge acp [OPTIONS] -- AGENT [ARGS...]

Runs AGENT as an Agent Client Protocol (v1) agent on its stdio, opens a
session and sends it prompts. Its terminal/* requests run in real PTYs, its
fs/* requests read and write real files, and what it does is shown as it
happens.

Prompts come from --prompt (one turn each, then exit); otherwise, on a
terminal, from an interactive chat (Ctrl+C cancels a turn, twice quits);
otherwise one prompt per line of stdin.

Options:
  -p, --prompt TEXT      send TEXT as a prompt (repeatable, in order)
      --cwd DIR          the session's working directory (default: the current one)
  -y, --yes              answer permission requests with the allow_once option
                         (reject_once when the agent offers no allow_once)
  -n, --no               answer permission requests with the reject_once option
      --json             print one JSON object per line instead of rendering
      --agent-log FILE   append the agent's stderr to FILE (default: pass it through)
      --auth ID          authenticate with this method before the session
      --output-limit N   hard ceiling of kept output per terminal, bytes (default 16 MiB)
  -h, --help             show this help

Without --yes or --no, permission requests are asked on a terminal and
answered reject_once otherwise. A flag never picks an allow_always or
reject_always option (agents remember those for later runs); with no option
of the kind it picks, the answer is "cancelled", and the output says so.

Exit status: 0 every turn ended with end_turn; 1 termbridge failed; 2 bad
command line; 3 a turn ended otherwise (refusal, max_tokens,
max_turn_requests); 4 cancelled (Ctrl+C or a signal); 5 the agent exited or
crashed; 6 protocol error (unsupported version, the agent answered an error).
`;

/** Exit codes of the `acp` mode (documented in its help). */
export const ACP_EXIT = {
  ok: 0,
  failure: 1,
  stopped: 3,
  cancelled: 4,
  agentGone: 5,
  protocol: 6,
} as const;

interface AcpOptions {
  agent: string[];
  prompts: string[];
  cwd: string;
  policy: PermissionPolicy;
  json: boolean;
  agentLog?: string;
  auth?: string;
  outputLimit?: number;
}

function parseOptions(args: string[]): AcpOptions | "help" {
  const split = args.indexOf("--");
  const own = split === -1 ? args : args.slice(0, split);
  const { values, positionals } = parseModeArgs("acp", own, {
    prompt: { type: "string", short: "p", multiple: true },
    cwd: { type: "string" },
    yes: { type: "boolean", short: "y" },
    no: { type: "boolean", short: "n" },
    json: { type: "boolean" },
    "agent-log": { type: "string" },
    auth: { type: "string" },
    "output-limit": { type: "string" },
    help: { type: "boolean", short: "h" },
  }, true);
  if (values.help) return "help";
  const agent = split === -1 ? positionals : [...positionals, ...args.slice(split + 1)];
  if (agent.length === 0) {
    throw new UsageError(
      'Cannot start "acp" without an agent: give it after "--", e.g. termbridge acp -- my-agent --stdio',
    );
  }
  if (values.yes && values.no) throw new UsageError("Cannot use --yes and --no together: pick one");
  const interactive = runtime.isTerminal("stdin") && !values.json;
  return {
    agent,
    prompts: values.prompt ?? [],
    cwd: directoryOption("cwd", values.cwd) ?? runtime.cwd(),
    policy: values.yes ? "yes" : values.no ? "no" : interactive ? "ask" : "reject",
    json: values.json ?? false,
    agentLog: values["agent-log"],
    auth: values.auth,
    outputLimit: numberOption("output-limit", values["output-limit"]),
  };
}

/** Runs `termbridge acp`; resolves with the exit code. */
export async function acpMain(args: string[]): Promise<number> {
  const options = parseOptions(args);
  if (options === "help") {
    await runtime.writeStdout(HELP);
    return 0;
  }
  const renderer = createRenderer({
    mode: chooseRenderMode({
      json: options.json,
      tty: runtime.isTerminal("stdout"),
      env: runtime.env(),
    }),
    target: {
      write: (text: string) => void runtime.writeStdout(text),
      get columns() {
        return runtime.consoleSize()?.cols;
      },
    },
  });
  const agent = startAgent(options.agent, { logFile: options.agentLog });
  const run = new AcpRun(options, agent, renderer);
  try {
    return await run.execute();
  } finally {
    await run.shutdown();
    await renderer.close();
  }
}

/** One run of the `acp` mode: a connection, a session, its turns. */
class AcpRun {
  readonly #options: AcpOptions;
  readonly #agent: AgentProcess;
  readonly #renderer: Renderer;
  readonly #service: TerminalService;
  readonly #chat: ChatConsole | undefined;
  readonly #desk: PermissionDesk;
  readonly #connection: acp.ClientConnection;
  #sessionId = "";
  #turn: Promise<acp.PromptResponse> | undefined;
  #cancelled = false;
  #removeSignals: (() => void)[] = [];
  #gone: Promise<number> | undefined;

  constructor(options: AcpOptions, agent: AgentProcess, renderer: Renderer) {
    this.#options = options;
    this.#agent = agent;
    this.#renderer = renderer;
    this.#service = new TerminalService({ cwd: options.cwd, outputCeiling: options.outputLimit });
    this.#service.onEvent((event) => renderer.terminal(event));
    const chatting = options.policy === "ask" ||
      (options.prompts.length === 0 && runtime.isTerminal("stdin"));
    this.#chat = chatting && !options.json ? new ChatConsole() : undefined;
    const chat = this.#chat;
    const ask: AskPerson | undefined = chat && (async (request, signal) => {
      const resume = renderer.suspend();
      try {
        return await chat.choose(request, signal);
      } finally {
        resume();
      }
    });
    this.#desk = new PermissionDesk(options.policy, ask);
    const app = serveFiles(
      serveTerminals(acp.client({ name: "termbridge" }), this.#service),
      (path, content) =>
        renderer.event({
          type: "file_written",
          sessionId: this.#sessionId,
          path,
          bytes: new TextEncoder().encode(content).length,
        }),
    )
      .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
        const decision = await this.#desk.decide(params, signal);
        renderer.permission(decision);
        return toPermissionResponse(decision);
      })
      // Shown by `inArrivalOrder` below; the SDK still validates and accepts them here.
      .onNotification(acp.methods.client.session.update, () => {});
    // The SDK hands notifications to handlers asynchronously, so a turn's
    // response could overtake its last updates: render them as they are read.
    this.#connection = app.connect(
      inArrivalOrder(agent.stream, (update) => renderer.update(update as acp.SessionNotification)),
    );
  }

  /** Initializes, opens the session and runs every turn; returns the exit code. */
  async execute(): Promise<number> {
    this.#watchSignals();
    const closed = this.#connection.closed.then(() => "closed" as const);
    const outcome = await Promise.race([this.#converse(), closed]);
    if (outcome !== "closed") return outcome;
    return this.#cancelled ? ACP_EXIT.cancelled : await this.#agentGone();
  }

  /** Reports (once) that the agent went away (its stdout closed), with its exit status. */
  #agentGone(): Promise<number> {
    this.#gone ??= this.#reportAgentGone();
    return this.#gone;
  }

  async #reportAgentGone(): Promise<number> {
    const status = await settleWithin(this.#agent.exited, 2000);
    const how = status === undefined
      ? "closed its output"
      : status.signal === null
      ? `exited with exit code ${status.exitCode}`
      : `was killed by ${status.signal}`;
    this.#renderer.event({
      type: "error",
      message: `The agent ${how} before the conversation ended`,
    });
    return ACP_EXIT.agentGone;
  }

  async #converse(): Promise<number> {
    const ctx = this.#connection.agent;
    let init: acp.InitializeResponse;
    try {
      init = await ctx.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: true },
          terminal: true,
          _meta: { terminal_output: true },
        },
        clientInfo: { name: "termbridge", version: VERSION },
      });
    } catch (error) {
      return this.#protocolError("initialize", error);
    }
    if (init.protocolVersion !== acp.PROTOCOL_VERSION) {
      this.#renderer.event({
        type: "error",
        message:
          `Cannot talk to the agent: it speaks ACP protocol version ${init.protocolVersion}, termbridge speaks version ${acp.PROTOCOL_VERSION}`,
      });
      return ACP_EXIT.protocol;
    }
    this.#renderer.event({
      type: "agent",
      name: init.agentInfo?.name ?? this.#options.agent[0],
      version: init.agentInfo?.version,
      protocolVersion: init.protocolVersion,
    });
    const authenticated = await this.#authenticate(init.authMethods ?? []);
    if (authenticated !== undefined) return authenticated;
    try {
      const session = await ctx.request(acp.methods.agent.session.new, {
        cwd: this.#options.cwd,
        mcpServers: [],
      });
      this.#sessionId = session.sessionId;
    } catch (error) {
      return this.#protocolError("session/new", error, init.authMethods ?? []);
    }
    this.#renderer.event({ type: "session", sessionId: this.#sessionId, cwd: this.#options.cwd });
    return await this.#turns();
  }

  async #authenticate(methods: acp.AuthMethod[]): Promise<number | undefined> {
    if (this.#options.auth === undefined) {
      if (methods.length > 0) {
        const offered = methods.map((m) => `${m.id} (${m.name})`).join(", ");
        this.#renderer.event({
          type: "notice",
          message:
            `The agent offers authentication: ${offered}; choose one with --auth ID if it asks`,
        });
      }
      return undefined;
    }
    if (!methods.some((m) => m.id === this.#options.auth)) {
      const known = methods.map((m) => `"${m.id}"`).join(", ") || "none";
      this.#renderer.event({
        type: "error",
        message: `Cannot authenticate with "${this.#options.auth}": the agent offers ${known}`,
      });
      return ACP_EXIT.protocol;
    }
    try {
      await this.#connection.agent.request(acp.methods.agent.authenticate, {
        methodId: this.#options.auth,
      });
      return undefined;
    } catch (error) {
      return this.#protocolError("authenticate", error);
    }
  }

  async #turns(): Promise<number> {
    let worst: number = ACP_EXIT.ok;
    for await (const text of this.#prompts()) {
      if (text.trim() === "") continue;
      const code = await this.#runTurn(text);
      if (code === ACP_EXIT.protocol || code === ACP_EXIT.cancelled && this.#cancelled) return code;
      if (code !== ACP_EXIT.ok) worst = Math.max(worst, code);
    }
    return worst;
  }

  async #runTurn(text: string): Promise<number> {
    this.#renderer.event({ type: "prompt", sessionId: this.#sessionId, text });
    let interrupts = 0;
    this.#chat?.onInterrupt(() => {
      interrupts++;
      if (interrupts === 1) void this.#cancelTurn();
      else this.#quit();
    });
    this.#turn = this.#connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId: this.#sessionId,
      prompt: [{ type: "text", text }],
    });
    let response: acp.PromptResponse;
    try {
      response = await this.#turn;
    } catch (error) {
      return this.#protocolError("session/prompt", error);
    } finally {
      this.#turn = undefined;
      this.#chat?.onInterrupt(() => this.#quit());
    }
    this.#renderer.event({
      type: "stop",
      sessionId: this.#sessionId,
      stopReason: response.stopReason,
    });
    if (response.stopReason === "end_turn") return ACP_EXIT.ok;
    return response.stopReason === "cancelled" ? ACP_EXIT.cancelled : ACP_EXIT.stopped;
  }

  async *#prompts(): AsyncGenerator<string> {
    if (this.#options.prompts.length > 0) {
      yield* this.#options.prompts;
    } else if (this.#chat !== undefined) {
      this.#chat.onInterrupt(() => this.#quit());
      while (!this.#cancelled) {
        const line = await this.#chat.next();
        if (line === undefined) return;
        yield line;
      }
    } else {
      yield* stdinLines();
    }
  }

  /** Sends `session/cancel` for the running turn and cancels pending permission questions. */
  /** Sends `session/cancel` for the running turn; resolves once it was written (or failed). */
  #cancelTurn(hint = "Ctrl+C again to quit"): Promise<void> {
    if (this.#turn === undefined || this.#sessionId === "") return Promise.resolve();
    this.#desk.cancelAll();
    this.#renderer.event({ type: "notice", message: `Cancelling the turn (${hint})` });
    return this.#connection.agent
      .notify(acp.methods.agent.session.cancel, { sessionId: this.#sessionId })
      .catch(() => {}); // The agent is gone: there is nothing left to cancel.
  }

  /**
   * Cancels the turn and gives the agent a moment to end it (so its last
   * updates and the `cancelled` stop are shown), then closes.
   */
  #quit(): void {
    this.#cancelled = true;
    const turn = this.#turn?.catch(() => {}); // Its failure is reported where it is awaited.
    const ended = this.#cancelTurn("quitting").then(() => turn);
    void settleWithin(ended, 1000).then(() => this.#connection.close());
  }

  #watchSignals(): void {
    const signals: ShutdownSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    this.#removeSignals = signals.map((signal) =>
      runtime.onSignal(signal, () => {
        if (signal === "SIGINT" && this.#turn !== undefined && !this.#cancelled) {
          this.#cancelled = true;
          void this.#cancelTurn();
          return;
        }
        this.#quit();
      })
    );
  }

  async #protocolError(
    method: string,
    error: unknown,
    authMethods: acp.AuthMethod[] = [],
  ): Promise<number> {
    if (this.#cancelled) return ACP_EXIT.cancelled;
    if (this.#connection.signal.aborted) return await this.#agentGone();
    const detail = error instanceof Error ? error.message : JSON.stringify(error);
    const code = (error as { code?: number }).code;
    let message = `The agent answered ${method} with an error: ${detail}`;
    if (code === -32000 && authMethods.length > 0) {
      message += `; authenticate with --auth ID, one of: ${
        authMethods.map((m) => `${m.id} (${m.name})`).join(", ")
      }`;
    }
    this.#renderer.event({ type: "error", message });
    return ACP_EXIT.protocol;
  }

  /** Releases every terminal, stops the agent and the console. */
  async shutdown(): Promise<void> {
    this.#removeSignals.forEach((remove) => remove());
    this.#chat?.close();
    this.#desk.cancelAll();
    await this.#service.releaseAll();
    this.#connection.close();
    await this.#agent.stop();
  }
}
