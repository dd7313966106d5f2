/**
 * The keys the REPL adds to node:readline: Ctrl+R searches the history (see
 * `history_search.ts`), and a Tab read together with other input still
 * completes.
 * @module
 */

import process from "node:process";
import type { Interface } from "node:readline";
import { HistorySearch, type Keypress } from "./history_search.ts";

type KeyListener = (text: string | undefined, key: Keypress | undefined) => void;

/**
 * readline takes a Tab that arrives with more input in one read (a paste,
 * tmux send-keys, a fast terminal) as text: a Tab ending the line to
 * complete is such a key, not text to complete. Removes it from `rl`'s line
 * and returns the line without it, for the completer.
 */
export function withoutPastedTabs(rl: Interface, line: string): string {
  const typed = line.replace(/\t+$/, "");
  const tabs = line.length - typed.length;
  if (tabs > 0) {
    const editable = rl as Interface & { line: string; cursor: number };
    editable.line = editable.line.slice(0, editable.cursor - tabs) +
      editable.line.slice(editable.cursor);
    editable.cursor -= tabs;
  }
  return typed;
}

/** Ctrl+R on one readline interface: sees each key before readline does, until it closes. */
export class HistorySearchKeys {
  readonly #rl: Interface;
  readonly #history: () => readonly string[];
  readonly #canStart: () => boolean;
  #search: HistorySearch | undefined;
  /** readline's key listeners, held while a search takes the keys. */
  #held: KeyListener[] = [];

  /**
   * @param history The lines to search, newest first.
   * @param canStart Whether a search may start now (not while a command runs).
   */
  constructor(rl: Interface, history: () => readonly string[], canStart: () => boolean) {
    this.#rl = rl;
    this.#history = history;
    this.#canStart = canStart;
    process.stdin.prependListener("keypress", this.#onKeypress);
    rl.on("close", () => process.stdin.removeListener("keypress", this.#onKeypress));
  }

  readonly #onKeypress = (text: string | undefined, key: Keypress | undefined): void => {
    if (this.#search !== undefined) {
      this.#key(text, key ?? {});
    } else if (key?.ctrl && key.name === "r" && this.#canStart()) {
      this.#search = new HistorySearch(this.#history(), this.#rl.line);
      // readline must not see the keys of the search: hold its listeners until it ends.
      this.#held = process.stdin.listeners("keypress")
        .filter((listener) => listener !== this.#onKeypress) as KeyListener[];
      for (const listener of this.#held) process.stdin.removeListener("keypress", listener);
      process.stdout.write("\r\x1b[K" + this.#search.render());
    }
  };

  #key(text: string | undefined, key: Keypress): void {
    const step = this.#search!.key(text, key);
    if (step.kind === "update") {
      process.stdout.write("\r\x1b[K" + this.#search!.render());
      return;
    }
    this.#search = undefined;
    for (const listener of this.#held) process.stdin.on("keypress", listener);
    this.#held = [];
    process.stdout.write("\r\x1b[K");
    // Put the line back into readline (Ctrl+E Ctrl+U empties it and redraws the prompt).
    this.#rl.write(null, { ctrl: true, name: "e" });
    this.#rl.write(null, { ctrl: true, name: "u" });
    this.#rl.write(step.line + (step.kind === "accept" ? "\n" : ""));
  }
}
