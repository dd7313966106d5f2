/**
 * What termbridge tells the user about an agent that does not behave: one
 * that is slow to answer `initialize` (most often because it needs a flag to
 * speak ACP), prints lines that are not JSON-RPC, or sends `session/update`s
 * that fail the schema. Each is said once, in words; the details go to the
 * agent log.
 * @module
 */

import type { AgentProcess } from "./agent_process.ts";
import type { InvalidUpdate } from "./agent_stream.ts";
import type { ConversationEvent } from "./render/types.ts";

/** Messages and warnings about one agent. */
export class AgentDiagnostics {
  readonly #agent: Pick<AgentProcess, "noise" | "logging" | "log">;
  readonly #show: (event: ConversationEvent) => void;
  #initialized = false;
  #noiseWarned = false;
  readonly #warnedKinds = new Set<string>();

  /**
   * @param agent The agent: what it printed, and its log.
   * @param show Shows a warning (the renderer's `event`).
   */
  constructor(
    agent: Pick<AgentProcess, "noise" | "logging" | "log">,
    show: (event: ConversationEvent) => void,
  ) {
    this.#agent = agent;
    this.#show = show;
  }

  /** The agent answered `initialize`: later lines that are not JSON-RPC get a warning. */
  initialized(): void {
    this.#initialized = true;
  }

  /** The notice while `initialize` has had no answer for `afterMs`. */
  stillWaiting(afterMs: number, limitMs: number): string {
    return `The agent has not answered initialize after ${
      afterMs / 1000
    } s: termbridge is waiting (up to ${
      limitMs / 1000
    } s, --init-timeout). Many agents speak ACP only when started with a flag, such as --acp or --experimental-acp: see the agent's --help.${this.#noiseSoFar()}`;
  }

  /** The error once `initialize` has had no answer within `limitMs`. */
  gaveUp(limitMs: number, program: string | undefined): string {
    return `Cannot start the conversation: the agent did not answer initialize within ${
      limitMs / 1000
    } s. Is "${program}" an ACP agent, started with the flag it needs to speak ACP (such as --acp)?${this.#noiseSoFar()}`;
  }

  /** A line the agent printed on stdout that is not JSON-RPC; after `initialize`, said once. */
  noise(line: string): void {
    if (!this.#initialized || this.#noiseWarned) return;
    this.#noiseWarned = true;
    const where = this.#agent.logging
      ? "the agent log has them all"
      : "--agent-log FILE keeps them";
    this.#show({
      type: "warning",
      message:
        `The agent printed a line on stdout that is not JSON-RPC: ignored, as are later ones (${where}): ${line}`,
    });
  }

  /** A `session/update` that fails the schema: one warning per kind, each raw message in the agent log. */
  invalidUpdate({ message, kind, problem }: InvalidUpdate): void {
    const what = `${kind === undefined ? "" : `${kind}: `}${problem}`;
    this.#agent.log(`ignored an invalid session/update (${what}): ${JSON.stringify(message)}`);
    if (this.#warnedKinds.has(kind ?? "")) return;
    this.#warnedKinds.add(kind ?? "");
    this.#show({
      type: "warning",
      message: `The agent sent an invalid session/update (${what}): ignored`,
    });
  }

  /** The first lines the agent printed that are not JSON-RPC, as the end of a message. */
  #noiseSoFar(): string {
    const lines = this.#agent.noise;
    if (lines.length === 0) return " It has printed nothing on stdout.";
    return `\nIt printed on stdout (not JSON-RPC):\n${
      lines.map((line) => `  | ${line}`).join("\n")
    }`;
  }
}
