/**
 * The person at termbridge's terminal, as the `acp` mode needs them beyond
 * permission questions: the agent's questions (`elicitation/create`) asked in
 * the chat or declined when nobody can answer, and the terminal handed over
 * to a program they type into (an agent's terminal login).
 * @module
 */

import type * as acp from "@agentclientprotocol/sdk";
import { runtime } from "../runtime/mod.ts";
import type { Safety } from "../safety/setup.ts";
import type { AcpOptions } from "./acp_options.ts";
import type { RunLogin } from "./authentication.ts";
import { askElicitation } from "./elicitation.ts";
import type { AcpHost } from "./host.ts";
import type { ChatConsole } from "./prompt_sources.ts";
import type { Renderer } from "./render/types.ts";

/** What the person can be asked and given, for one run. */
export class Person {
  readonly #renderer: Renderer;
  readonly #chat: ChatConsole | undefined;
  readonly #options: AcpOptions;
  readonly #host: AcpHost;
  readonly #safety: Safety;

  constructor(context: {
    renderer: Renderer;
    chat: ChatConsole | undefined;
    options: AcpOptions;
    host: AcpHost;
    safety: Safety;
  }) {
    this.#renderer = context.renderer;
    this.#chat = context.chat;
    this.#options = context.options;
    this.#host = context.host;
    this.#safety = context.safety;
  }

  /** The person can answer questions: an interactive chat, no --prompt. */
  get canAsk(): boolean {
    return this.#chat !== undefined && this.#options.prompts.length === 0;
  }

  /**
   * Runs a terminal login in a PTY handed to the person, when termbridge runs
   * in a terminal (without --json) and the host can; else undefined.
   */
  login(): RunLogin | undefined {
    const run = this.#host.runInTerminal;
    const interactive = runtime.isTerminal("stdin") && runtime.isTerminal("stdout") &&
      !this.#options.json;
    if (run === undefined || !interactive) return undefined;
    return (argv, env) =>
      this.#handOver(
        () => run(argv, { env, cwd: this.#options.cwd, safety: this.#safety }),
        true,
      );
  }

  /** `elicitation/create`: asked in the chat; declined (and said so) without one. */
  async elicit(
    request: acp.CreateElicitationRequest,
    signal: AbortSignal,
  ): Promise<acp.CreateElicitationResponse> {
    const chat = this.#chat;
    const question = JSON.stringify(request.message);
    if (chat === undefined || !this.canAsk) {
      const why = this.#options.json
        ? "--json"
        : this.#options.prompts.length > 0
        ? "--prompt"
        : "stdin is not a terminal";
      this.#renderer.event({
        type: "warning",
        message:
          `Declined the agent's question ${question}: nobody can answer it here (${why}); run termbridge acp in a terminal without --prompt to answer it in the chat`,
      });
      return { action: "decline" };
    }
    const outcome = await this.#handOver(() => askElicitation(request, chat, signal));
    this.#renderer.event({
      type: "notice",
      message: `The agent's question ${question}: ${outcome.summary}`,
    });
    return outcome.response;
  }

  /**
   * Gives the person's terminal to `body`: the renderer's live area steps
   * aside, and with `program` (a program reads the keyboard) the chat too.
   */
  async #handOver<T>(body: () => Promise<T>, program = false): Promise<T> {
    const resume = this.#renderer.suspend();
    await runtime.writeStdout(""); // What was shown so far comes first.
    if (program) this.#chat?.pause();
    try {
      return await body();
    } finally {
      if (program) this.#chat?.resume();
      resume();
    }
  }
}
