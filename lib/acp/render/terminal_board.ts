/**
 * Which terminals a human renderer shows, and when: a terminal is shown once
 * the service announced it and a tool call embedded it (in either order), or
 * once a `_meta` extension speaks of it. The board follows each shown
 * terminal's output and tells a {@linkcode TerminalDisplay} what happened,
 * always in the order open, output..., exit, release. A terminal no tool
 * call embeds within {@linkcode EMBED_WAIT_MS} of its start still gets a
 * brief line when it starts and when it exits: whatever the agent runs is
 * seen.
 * @module
 */

import type { TerminalEvent } from "../../service/terminal_service.ts";
import type { Terminal } from "../../terminal/terminal.ts";
import type { ExitInfo } from "./format.ts";
import type { TerminalMeta } from "./meta.ts";

/** How long a new terminal may wait for a tool call to embed it before its brief line is shown. */
export const EMBED_WAIT_MS = 200;

/** A terminal on display. */
export interface ShownTerminal {
  /** The terminal id (as the agent knows it). */
  readonly id: string;
  /** Short name of the tool call that embedded it (a `_meta` terminal's follows its tool call's title). */
  label: string;
  /** The command line, when known (a `_meta` terminal's may become known later). */
  command?: string;
  /** The directory it runs in, when the agent says (`terminal_info.cwd`). */
  cwd?: string;
  /** The live terminal, readable until `release`; undefined for `_meta` terminals. */
  terminal?: Terminal;
}

/** How a renderer shows terminals; the board calls it. */
export interface TerminalDisplay {
  /** A terminal is shown for the first time. */
  open(shown: ShownTerminal): void;
  /**
   * New output: `data` for a `_meta` terminal, undefined for a live terminal,
   * whose output the display reads from `shown.terminal` itself.
   */
  output(shown: ShownTerminal, data?: string): void;
  /** The program ended; called at most once per terminal. */
  exit(shown: ShownTerminal, exit: ExitInfo): void;
  /** A `_meta` terminal's label, command or cwd became known or changed. */
  named(shown: ShownTerminal): void;
  /** The terminal was released: `shown.terminal` must not be read any more. */
  release(shown: ShownTerminal): void;
  /**
   * A terminal no tool call embedded: one line as it starts (`exit`
   * undefined), one as it ends. `shown.label` is its id.
   */
  brief(shown: ShownTerminal, exit?: ExitInfo): void;
}

interface Entry {
  id: string;
  label?: string;
  command?: string;
  terminal?: Terminal;
  /** The service announced it (always true for `_meta` terminals). */
  known: boolean;
  startedAt: number;
  exit?: ExitInfo;
  released: boolean;
  shown?: ShownTerminal;
  unsubscribe?: () => void;
  /** Pending: the brief start line, unless a tool call embeds the terminal first. */
  briefTimer?: ReturnType<typeof setTimeout>;
  /** The brief start line was shown. */
  briefed?: boolean;
  /** The tool call a `_meta` terminal belongs to. */
  toolCallId?: string;
  cwd?: string;
}

/** Merges terminal events, embeddings and `_meta` extensions into display calls. */
export class TerminalBoard {
  readonly #display: TerminalDisplay;
  readonly #service = new Map<string, Entry>();
  readonly #meta = new Map<string, Entry>();
  #closed = false;

  /** @param display Where shown terminals go. */
  constructor(display: TerminalDisplay) {
    this.#display = display;
  }

  /** Takes an event of the terminal service. */
  terminalEvent(event: TerminalEvent): void {
    if (this.#closed) return;
    const entry = this.#entry(this.#service, event.id, false);
    switch (event.type) {
      case "created":
        entry.known = true;
        entry.terminal = event.terminal;
        entry.command = event.command;
        entry.startedAt = performance.now();
        if (entry.label !== undefined) this.#show(entry);
        else entry.briefTimer = setTimeout(() => this.#briefStart(entry), EMBED_WAIT_MS);
        break;
      case "exited":
        if (entry.exit !== undefined) break;
        entry.exit = { ...event.status, durationMs: event.durationMs };
        if (entry.shown !== undefined) {
          this.#display.exit(entry.shown, entry.exit);
        } else {
          this.#briefStart(entry);
          this.#display.brief(this.#briefShown(entry), entry.exit);
        }
        break;
      case "released":
        this.#release(entry);
        break;
      default:
        break; // A kill shows in the exit status.
    }
  }

  /** A tool call embeds terminal `id`; the first tool call to do so names it. */
  embed(id: string, label: string): void {
    if (this.#closed) return;
    const entry = this.#entry(this.#service, id, false);
    entry.label ??= label;
    clearTimeout(entry.briefTimer);
    entry.briefTimer = undefined;
    if (entry.known && entry.shown === undefined) this.#show(entry);
  }

  /** A `_meta` terminal extension of tool call `toolCallId`, named `label`. */
  meta(event: TerminalMeta, label: string, toolCallId: string): void {
    if (this.#closed) return;
    // A terminal the service runs is shown from the service, not twice.
    if (this.#service.get(event.terminalId)?.known) return;
    const entry = this.#entry(this.#meta, event.terminalId, true);
    entry.label ??= label;
    entry.toolCallId ??= toolCallId;
    if (event.kind === "info" && event.cwd !== undefined) entry.cwd = event.cwd;
    if (event.kind === "info" && event.command !== undefined) entry.command ??= event.command;
    if (entry.shown === undefined) this.#show(entry);
    const shown = entry.shown!;
    if (event.kind === "info" && event.cwd !== undefined && shown.cwd !== event.cwd) {
      shown.cwd = event.cwd;
      this.#display.named(shown);
    } else if (event.kind === "output") {
      this.#display.output(shown, event.data);
    } else if (event.kind === "exit" && entry.exit === undefined) {
      entry.exit = {
        exitCode: event.exitCode,
        signal: event.signal,
        durationMs: performance.now() - entry.startedAt,
      };
      this.#display.exit(shown, entry.exit);
    }
  }

  /**
   * Tool call `toolCallId` is now called `label` and runs `command` (known
   * from a later `tool_call_update`'s `rawInput` or title): its `_meta`
   * terminals are renamed.
   */
  describe(toolCallId: string, label: string, command: string | undefined): void {
    if (this.#closed) return;
    for (const entry of this.#meta.values()) {
      if (entry.toolCallId !== toolCallId) continue;
      const shown = entry.shown;
      entry.label = label;
      entry.command = command ?? entry.command;
      if (shown === undefined || (shown.label === label && shown.command === entry.command)) {
        continue;
      }
      shown.label = label;
      if (entry.command !== undefined) shown.command = entry.command;
      this.#display.named(shown);
    }
  }

  /**
   * Tool call `toolCallId` ended with `status`: its `_meta` terminals whose
   * exit the agent did not report end with that status, and with the exit
   * code its text gave (`exitCode`), if any.
   */
  toolCallEnded(toolCallId: string, status: "completed" | "failed", exitCode?: number): void {
    if (this.#closed) return;
    for (const entry of this.#meta.values()) {
      if (entry.toolCallId !== toolCallId || entry.exit !== undefined) continue;
      entry.exit = {
        exitCode: exitCode ?? null,
        signal: null,
        status,
        durationMs: performance.now() - entry.startedAt,
      };
      if (entry.shown !== undefined) this.#display.exit(entry.shown, entry.exit);
    }
  }

  /**
   * Stops following every terminal; later calls are ignored. A `_meta`
   * terminal whose end the agent never reported ends now, saying so: the
   * agent is gone (or stopped), and its card must not claim it still runs.
   */
  close(): void {
    for (const entry of this.#meta.values()) {
      if (entry.exit !== undefined || entry.shown === undefined) continue;
      entry.exit = {
        exitCode: null,
        signal: null,
        status: "unreported",
        durationMs: performance.now() - entry.startedAt,
      };
      this.#display.exit(entry.shown, entry.exit);
    }
    this.#closed = true;
    for (const entry of this.#service.values()) {
      clearTimeout(entry.briefTimer);
      entry.unsubscribe?.();
      entry.unsubscribe = undefined;
      entry.terminal = undefined;
    }
  }

  #entry(map: Map<string, Entry>, id: string, known: boolean): Entry {
    let entry = map.get(id);
    if (entry === undefined) {
      entry = { id, known, startedAt: performance.now(), released: false };
      map.set(id, entry);
    }
    return entry;
  }

  /** Shows the brief start line of a terminal no tool call embedded (once). */
  #briefStart(entry: Entry): void {
    clearTimeout(entry.briefTimer);
    entry.briefTimer = undefined;
    if (this.#closed || entry.briefed || entry.shown !== undefined) return;
    entry.briefed = true;
    this.#display.brief(this.#briefShown(entry));
  }

  #briefShown(entry: Entry): ShownTerminal {
    return {
      id: entry.id,
      label: entry.id,
      ...(entry.command === undefined ? {} : { command: entry.command }),
    };
  }

  #show(entry: Entry): void {
    const terminal = entry.released ? undefined : entry.terminal;
    const shown: ShownTerminal = {
      id: entry.id,
      label: entry.label ?? entry.id,
      terminal,
      ...(entry.command === undefined ? {} : { command: entry.command }),
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }),
    };
    entry.shown = shown;
    this.#display.open(shown);
    if (terminal !== undefined) {
      entry.unsubscribe = terminal.onChange(() => {
        try {
          this.#display.output(shown);
        } catch {
          // This runs inside the terminal's read loop: a display fault must
          // cost a line of display, never the command's output.
        }
      });
      this.#display.output(shown); // What it printed before it was embedded.
    }
    if (entry.exit !== undefined) this.#display.exit(shown, entry.exit);
    if (entry.released) this.#display.release(shown);
  }

  #release(entry: Entry): void {
    if (entry.released) return;
    entry.released = true;
    const shown = entry.shown;
    if (shown !== undefined) {
      if (entry.exit === undefined) {
        const status = entry.terminal?.exitStatus ?? { exitCode: null, signal: null };
        entry.exit = { ...status, durationMs: performance.now() - entry.startedAt };
        this.#display.exit(shown, entry.exit);
      }
      entry.unsubscribe?.();
      entry.unsubscribe = undefined;
      this.#display.release(shown);
      shown.terminal = undefined;
    }
    entry.terminal = undefined;
  }
}
