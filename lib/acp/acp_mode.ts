/**
 * `termbridge acp -- AGENT`: an Agent Client Protocol client whose terminals
 * are real. Runs the agent, opens a session, sends prompts, renders what the
 * agent does, answers its permission requests and serves its `terminal/*`
 * and `fs/*` requests.
 * @module
 */

import { settleWithin } from "../base/timing.ts";
import * as acp from "@agentclientprotocol/sdk";
import { VERSION } from "../cli/usage.ts";
import { runtime, type ShutdownSignal } from "../runtime/mod.ts";
import { TerminalService } from "../service/terminal_service.ts";
import { ACP_EXIT, type AcpOptions, HELP, parseOptions } from "./acp_options.ts";
import { type AgentProcess, startAgent } from "./agent_process.ts";
import { AgentDiagnostics } from "./agent_diagnostics.ts";
import { checkUpdates } from "./agent_stream.ts";
import { V2Terminals } from "./v2_terminals.ts";
import { serveFiles, serveTerminals } from "./client_handlers.ts";
import { watchFileRequests } from "./file_activity.ts";
import { type AskPerson, PermissionDesk, toPermissionResponse } from "./permissions.ts";
import { MAX_REFUSAL_FOLLOW_UPS, PermissionGate, refusalPrompt } from "./permission_gate.ts";
import { AgentReports } from "./agent_reports.ts";
import { askingMeta, switchToAskingMode } from "./agent_controls.ts";
import { startHookFor, type ToolHook, withHook } from "./tool_hook.ts";
import { ChatConsole, stdinLines } from "./prompt_sources.ts";
import { chooseRenderMode, createRenderer } from "./render/mod.ts";
import { serviceSafety, startSafety } from "../cli/safety_options.ts";
import type { Safety } from "../safety/setup.ts";
import { agentSettings } from "../sandbox/mod.ts";
import type { Approval, ApprovalRequest } from "../safety/types.ts";
import type { Renderer } from "./render/types.ts";
import { authenticate, describeMethods } from "./authentication.ts";
import { Person } from "./person.ts";
import type { AcpHost, ToolsServer } from "./host.ts";
import { agentArgv, terminalsMeta } from "./agent_shell.ts";
import { ToolCards } from "./tool_cards.ts";
import {
  canClose,
  CapabilityError,
  formatSessions,
  listSessions,
  openSession,
} from "./session_lifecycle.ts";

/** How long termbridge waits for the answer to `session/close` at the end. */
const CLOSE_WAIT_MS = 1000;

/** How long after `session/cancel` the agent may take to end the turn before termbridge stops it. */
export const CANCEL_GRACE_MS = 2000;

/** How long termbridge waits for the answer to `initialize` before it says it is waiting. */
export const INIT_NOTICE_MS = 2000;

/**
 * Runs `termbridge acp`; resolves with the exit code. `host` lends what the
 * mode cannot reach itself (see {@linkcode AcpHost}).
 */
export async function acpMain(args: string[], host: AcpHost = {}): Promise<number> {
  const options = parseOptions(args);
  if (options === "help") {
    await runtime.writeStdout(HELP);
    return 0;
  }
  const safety = await startSafety("acp", options.safety);
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
  const agent = await startAgent(agentArgv(options.agent, options.terminals), {
    logFile: options.agentLog,
    settings: agentSettings(safety.loaded.config, safety.sandbox, runtime.env()),
    workspace: options.cwd,
  });
  const run = new AcpRun(options, agent, renderer, safety, host);
  try {
    await host.started?.(run.service);
    return await run.execute();
  } finally {
    await run.shutdown();
    await host.finished?.();
    await renderer.close();
    safety.close();
  }
}

/** One run of the `acp` mode: a connection, a session, its turns. */
class AcpRun {
  readonly #options: AcpOptions;
  readonly #agent: AgentProcess;
  readonly #renderer: Renderer;
  readonly #service: TerminalService;
  readonly #chat: ChatConsole | undefined;
  readonly #safety: Safety;
  readonly #host: AcpHost;
  readonly #person: Person;
  #init: acp.InitializeResponse | undefined;
  #tools: ToolsServer | undefined;
  #hook: ToolHook | undefined;
  readonly #cards: ToolCards;
  readonly #desk: PermissionDesk;
  /** The policy in front of the agent's permission requests. */
  readonly #gate: PermissionGate;
  /** The audit of the commands the agent reports running on its own. */
  readonly #reports: AgentReports;
  readonly #connection: acp.ClientConnection;
  #sessionId = "";
  #policyAsks = 0;
  #turn: Promise<acp.PromptResponse> | undefined;
  /** The run ends as cancelled (exit 4): a signal, or a turn the agent would not end. */
  #cancelled = false;
  /** `session/cancel` was sent for the running turn; a second interrupt quits. */
  #cancelling = false;
  #graceTimer: ReturnType<typeof setTimeout> | undefined;
  #removeSignals: (() => void)[] = [];
  #gone: Promise<number> | undefined;
  readonly #diagnostics: AgentDiagnostics;

  constructor(
    options: AcpOptions,
    agent: AgentProcess,
    renderer: Renderer,
    safety: Safety,
    host: AcpHost,
  ) {
    this.#options = options;
    this.#safety = safety;
    this.#host = host;
    this.#agent = agent;
    this.#renderer = renderer;
    this.#diagnostics = new AgentDiagnostics(agent, (event) => renderer.event(event));
    this.#service = new TerminalService({
      cwd: options.cwd,
      outputCeiling: options.outputLimit,
      ...serviceSafety(safety),
    });
    this.#service.onEvent((event) => renderer.terminal(event));
    this.#cards = new ToolCards((update) => renderer.update(update), () => this.#sessionId);
    const chatting = options.policy === "ask" ||
      (options.prompts.length === 0 && runtime.isTerminal("stdin"));
    this.#chat = chatting && !options.json ? new ChatConsole() : undefined;
    this.#person = new Person({ renderer, chat: this.#chat, options, host, safety });
    const chat = this.#chat;
    const ask: AskPerson | undefined = chat && (async (request, signal) => {
      const resume = renderer.suspend();
      await runtime.writeStdout(""); // What was shown so far comes before the question.
      try {
        return await chat.choose(request, signal);
      } finally {
        resume();
      }
    });
    this.#desk = new PermissionDesk(options.policy, ask);
    const accessOf = (sessionId: string) => this.#service.fileAccess(sessionId);
    this.#gate = new PermissionGate(this.#desk, accessOf);
    this.#reports = new AgentReports(this.#gate, accessOf);
    safety.guard.setApprover((request, signal) => this.#askPolicy(request, signal));
    const app = serveFiles(
      serveTerminals(acp.client({ name: "termbridge" }), this.#service),
      this.#service,
      { maxReadBytes: safety.loaded.config.maxReadBytes },
    )
      .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
        const decision = await this.#gate.decide(params, signal);
        renderer.permission(decision);
        return toPermissionResponse(decision);
      })
      .onRequest(
        acp.methods.client.elicitation.create,
        ({ params, signal }) => this.#person.elicit(params, signal),
      )
      // Shown by `checkUpdates` below as they are read, which validated them:
      // only valid ones get here, and the SDK need not validate them again.
      .onNotification(acp.methods.client.session.update, { parse: (params) => params }, () => {});
    // The SDK hands notifications to handlers asynchronously, so a turn's
    // response could overtake its last updates: render them as they are read.
    // ACP v2's agent-owned terminals arrive as kinds newer than v1: shown as _meta cards.
    const v2 = new V2Terminals();
    const checked = checkUpdates(agent.stream, {
      update: (received) => {
        for (const update of [received, ...v2.translate(received)]) {
          this.#reports.update(update);
          this.#cards.observe(update);
          renderer.update(update);
        }
      },
      invalid: (invalid) => this.#diagnostics.invalidUpdate(invalid),
    });
    this.#connection = app.connect(
      watchFileRequests(checked, (activity) => renderer.event(activity)),
    );
    agent.onNoise((line) => this.#diagnostics.noise(line));
  }

  /**
   * Asks about a command or file the policy asks about, exactly as about the
   * agent's own permission requests (the same prompt, --yes and --no).
   */
  async #askPolicy(request: ApprovalRequest, signal?: AbortSignal): Promise<Approval> {
    const action = request.kind === "command" ? "Run" : request.kind === "read" ? "Read" : "Write";
    const decision = await this.#desk.decide({
      sessionId: this.#sessionId,
      toolCall: {
        toolCallId: `termbridge-policy-${++this.#policyAsks}`,
        title: `${action} ${request.subject} (termbridge policy: ${request.verdict.reason})`,
        kind: request.kind === "command" ? "execute" : request.kind === "read" ? "read" : "edit",
        status: "pending",
      },
      options: [
        { optionId: "allow", name: "Allow once", kind: "allow_once" },
        { optionId: "reject", name: "Reject", kind: "reject_once" },
      ],
    }, signal ?? new AbortController().signal);
    this.#renderer.permission(decision);
    return { approved: decision.option?.kind === "allow_once", by: decision.source };
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
    // Gone before answering anything: its sandbox may be what could not start.
    const failure = this.#init === undefined && status?.exitCode !== 0
      ? await this.#agent.whyGone()
      : null;
    if (failure !== null) {
      this.#renderer.event({ type: "error", message: failure });
      return ACP_EXIT.failure;
    }
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
    const init = await this.#initialize();
    if (typeof init === "number") return init;
    this.#diagnostics.initialized();
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
      enclosure: this.#agent.enclosure,
    });
    this.#init = init;
    if (this.#options.listSessions) return await this.#listSessions(init);
    const authenticated = await this.#authenticate(init.authMethods ?? []);
    if (authenticated !== undefined) return authenticated;
    const method = this.#options.session === undefined ? "session/new" : "session/resume";
    try {
      this.#tools = await this.#startTools();
      this.#hook = await startHookFor(
        init.agentInfo?.name,
        () => this.#sessionId === "" ? undefined : this.#service.fileAccess(this.#sessionId),
        (id, verdict) => this.#gate.remember(id, verdict),
        { socketDir: this.#agent.runtimeDir, loopback: this.#agent.loopbackHook },
      );
      const opened = await openSession(ctx, init, {
        cwd: this.#options.cwd,
        session: this.#options.session,
        addDirs: this.#options.addDirs,
        mcpServers: this.#tools === undefined ? [] : [this.#tools.server],
        meta: withHook(
          askingMeta(
            this.#tools === undefined ? undefined : terminalsMeta(this.#options.terminals),
          ),
          this.#hook,
        ),
      });
      this.#sessionId = opened.sessionId;
      if (opened.how !== "new") {
        this.#renderer.event({
          type: "notice",
          message: `Resumed session ${opened.sessionId} (session/${
            opened.how === "resumed" ? "resume" : "load"
          })`,
        });
      }
      const switched = await switchToAskingMode(ctx, {
        sessionId: this.#sessionId,
        agentName: init.agentInfo?.name,
        modes: opened.modes,
      });
      if (switched !== undefined) this.#renderer.event(switched);
    } catch (error) {
      if (error instanceof CapabilityError) return this.#failed(error.message);
      return this.#protocolError(method, error, init.authMethods ?? []);
    }
    this.#renderer.event({ type: "session", sessionId: this.#sessionId, cwd: this.#options.cwd });
    return await this.#turns();
  }

  /** Sends `initialize`; says so when the agent is slow to answer and gives up after the timeout. */
  async #initialize(): Promise<acp.InitializeResponse | number> {
    const answer = this.#connection.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {
        fs: { readTextFile: true, writeTextFile: true },
        terminal: true,
        elicitation: { form: {}, url: {} },
        auth: { terminal: this.#person.login() !== undefined },
        _meta: { terminal_output: true },
      },
      clientInfo: { name: "termbridge", version: VERSION },
    });
    const waiting = setTimeout(() => {
      this.#renderer.event({
        type: "notice",
        message: this.#diagnostics.stillWaiting(INIT_NOTICE_MS, this.#options.initTimeoutMs),
      });
    }, INIT_NOTICE_MS);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.#options.initTimeoutMs);
    });
    try {
      const init = await Promise.race([answer, timedOut]);
      if (init !== "timeout") return init;
      answer.catch(() => {}); // Abandoned: the connection closes with the run.
      this.#renderer.event({
        type: "error",
        message: this.#diagnostics.gaveUp(this.#options.initTimeoutMs, this.#options.agent[0]),
      });
      return ACP_EXIT.protocol;
    } catch (error) {
      return this.#protocolError("initialize", error);
    } finally {
      clearTimeout(waiting);
      clearTimeout(timer);
    }
  }

  async #authenticate(methods: acp.AuthMethod[]): Promise<number | undefined> {
    const outcome = await authenticate(
      this.#connection.agent,
      methods,
      this.#options.auth,
      this.#options.agent,
      this.#person.login(),
    );
    if (outcome.ok) {
      if (outcome.notice) this.#renderer.event({ type: "notice", message: outcome.notice });
      return undefined;
    }
    if ("message" in outcome) return this.#failed(outcome.message);
    return this.#protocolError("authenticate", outcome.error);
  }

  /** `--list-sessions`: prints the agent's sessions in the working directory. */
  async #listSessions(init: acp.InitializeResponse): Promise<number> {
    try {
      const sessions = await listSessions(this.#connection.agent, init, this.#options.cwd);
      await runtime.writeStdout(
        this.#options.json
          ? JSON.stringify({ type: "sessions", cwd: this.#options.cwd, sessions }) + "\n"
          : formatSessions(sessions, this.#options.cwd),
      );
      return ACP_EXIT.ok;
    } catch (error) {
      if (error instanceof CapabilityError) return this.#failed(error.message);
      return this.#protocolError("session/list", error);
    }
  }

  /** Shows `message` as an error; the run ends with exit 6. */
  #failed(message: string): number {
    this.#renderer.event({ type: "error", message });
    return ACP_EXIT.protocol;
  }

  /** Starts termbridge's MCP tools for the agent, unless `--terminals agent` or no host offers them. */
  async #startTools(): Promise<ToolsServer | undefined> {
    if (this.#options.terminals === "agent" || this.#host.startTools === undefined) {
      return undefined;
    }
    return await this.#host.startTools({
      safety: this.#safety,
      cwd: this.#options.cwd,
      events: (event) => this.#cards.event(event),
      socketDir: this.#agent.runtimeDir,
    });
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

  async #runTurn(text: string, followUps = 0): Promise<number> {
    this.#gate.takeRefusals(); // Only this turn's refusals can have ended it.
    this.#renderer.event({ type: "prompt", sessionId: this.#sessionId, text });
    this.#chat?.onInterrupt(() => this.#interrupt(false));
    const turn = this.#connection.agent.request(acp.methods.agent.session.prompt, {
      sessionId: this.#sessionId,
      prompt: [{ type: "text", text }],
    });
    this.#turn = turn;
    let response: acp.PromptResponse;
    let interrupted = false;
    try {
      response = await turn;
      interrupted = this.#cancelling || this.#cancelled;
    } catch (error) {
      return this.#protocolError("session/prompt", error);
    } finally {
      this.#turn = undefined;
      this.#cancelling = false;
      clearTimeout(this.#graceTimer);
      this.#chat?.onInterrupt(() => this.#quit());
    }
    this.#renderer.event({
      type: "stop",
      sessionId: this.#sessionId,
      stopReason: response.stopReason,
    });
    const refusals = this.#gate.takeRefusals();
    if (
      response.stopReason === "cancelled" && !interrupted && refusals.length > 0 &&
      followUps < MAX_REFUSAL_FOLLOW_UPS
    ) {
      // The agent ended the turn on the policy's refusal (codex-acp's only
      // reject option aborts it): tell it why, and let it carry on.
      return await this.#runTurn(refusalPrompt(refusals), followUps + 1);
    }
    if (response.stopReason === "end_turn") return ACP_EXIT.ok;
    return response.stopReason === "cancelled" ? ACP_EXIT.cancelled : ACP_EXIT.stopped;
  }

  async *#prompts(): AsyncGenerator<string> {
    if (this.#options.prompts.length > 0) {
      yield* this.#options.prompts;
    } else if (this.#chat !== undefined) {
      while (!this.#cancelled) {
        await runtime.writeStdout(""); // The header and the last turn are on screen before the prompt.
        const line = await this.#chat.next();
        if (line === undefined) return;
        yield line;
      }
    } else {
      yield* stdinLines();
    }
  }

  /**
   * Ctrl+C (or SIGINT) during a turn: the first sends `session/cancel` and
   * gives the agent {@linkcode CANCEL_GRACE_MS} to end the turn before
   * termbridge kills every terminal and stops (exit 4); a second quits at
   * once. Without a turn, it quits. `endRun` (a signal, not the chat) makes
   * the run end once the cancelled turn has.
   */
  #interrupt(endRun: boolean): void {
    const turn = this.#turn;
    if (turn === undefined || this.#cancelling) return this.#quit();
    this.#cancelling = true;
    if (endRun) this.#cancelled = true;
    void this.#cancelTurn("Ctrl+C again to quit");
    this.#graceTimer = setTimeout(() => {
      if (this.#turn !== turn) return;
      this.#renderer.event({
        type: "error",
        message: `The agent did not end the turn within ${
          CANCEL_GRACE_MS / 1000
        } s of session/cancel: killing its terminals and stopping`,
      });
      this.#stop();
    }, CANCEL_GRACE_MS);
  }

  /** Sends `session/cancel` for the running turn and cancels pending permission questions. */
  #cancelTurn(hint: string): Promise<void> {
    if (this.#turn === undefined || this.#sessionId === "") return Promise.resolve();
    this.#desk.cancelAll();
    this.#renderer.event({ type: "notice", message: `Cancelling the turn (${hint})` });
    return this.#connection.agent
      .notify(acp.methods.agent.session.cancel, { sessionId: this.#sessionId })
      .catch(() => {}); // The agent is gone: there is nothing left to cancel.
  }

  /**
   * Cancels the turn and gives the agent a moment to end it (so its last
   * updates and the `cancelled` stop are shown), then stops.
   */
  #quit(): void {
    this.#cancelled = true;
    clearTimeout(this.#graceTimer);
    const turn = this.#turn?.catch(() => {}); // Its failure is reported where it is awaited.
    const ended = this.#cancelTurn("quitting").then(() => turn);
    void settleWithin(ended, 1000).then(() => this.#stop());
  }

  /** Ends the run as cancelled: closing the connection ends `execute()`; `shutdown()` kills the rest. */
  #stop(): void {
    this.#cancelled = true;
    this.#connection.close();
  }

  #watchSignals(): void {
    const signals: ShutdownSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
    this.#removeSignals = signals.map((signal) =>
      runtime.onSignal(signal, () => signal === "SIGINT" ? this.#interrupt(true) : this.#quit())
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
      message += `; authenticate with --auth ID, one of: ${describeMethods(authMethods)}`;
    }
    this.#renderer.event({ type: "error", message });
    return ACP_EXIT.protocol;
  }

  /** Sends `session/close` when a session is open and the agent supports it; waits a moment. */
  async #closeSession(): Promise<void> {
    if (this.#sessionId === "" || !canClose(this.#init) || this.#connection.signal.aborted) return;
    const closing = this.#connection.agent
      .request(acp.methods.agent.session.close, { sessionId: this.#sessionId })
      .catch(() => {}); // The agent's business: termbridge ends either way.
    await settleWithin(closing, CLOSE_WAIT_MS);
  }

  /** The run's terminals. */
  get service(): TerminalService {
    return this.#service;
  }

  /** Releases every terminal, stops the agent and the console. */
  async shutdown(): Promise<void> {
    clearTimeout(this.#graceTimer);
    this.#removeSignals.forEach((remove) => remove());
    this.#chat?.close();
    this.#desk.cancelAll();
    await this.#closeSession();
    await this.#reports.finish();
    await this.#service.releaseAll();
    await this.#tools?.close();
    this.#hook?.close();
    this.#connection.close();
    await this.#agent.stop();
  }
}
