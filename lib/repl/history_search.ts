/**
 * Ctrl+R in the REPL: an incremental search backwards through the history,
 * as readline's reverse-i-search in bash: type to narrow, Ctrl+R for the next
 * older match, Enter runs it, Escape or a movement key leaves it on the line
 * to edit, Ctrl+G or Ctrl+C gives the line back as it was.
 * @module
 */

/** A key as node:readline's `keypress` event describes it. */
export interface Keypress {
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
  sequence?: string;
}

/** What a key did to the search. */
export type SearchStep =
  | { kind: "update" }
  | { kind: "accept"; line: string }
  | { kind: "edit"; line: string }
  | { kind: "cancel"; line: string };

/** One search, from Ctrl+R until it ends. */
export class HistorySearch {
  readonly #history: readonly string[];
  readonly #original: string;
  #query = "";
  /** Index in the history (newest first) of the current match, or -1. */
  #index = -1;
  #failed = false;

  /**
   * @param history The lines to search, newest first.
   * @param original The line being edited when the search began.
   */
  constructor(history: readonly string[], original: string) {
    this.#history = history;
    this.#original = original;
  }

  /** The line the search shows now: the match, or the original line before one. */
  get line(): string {
    return this.#index === -1 ? this.#original : this.#history[this.#index];
  }

  /** The search prompt as bash shows it: "(reverse-i-search)`make': exec make test". */
  render(): string {
    return `(${this.#failed ? "failed " : ""}reverse-i-search)\`${this.#query}': ${this.line}`;
  }

  /** Takes one key. */
  key(text: string | undefined, key: Keypress = {}): SearchStep {
    if (key.ctrl && key.name === "r") {
      this.#find(this.#index + 1);
      return { kind: "update" };
    }
    if (key.ctrl && (key.name === "g" || key.name === "c")) {
      return { kind: "cancel", line: this.#original };
    }
    if (key.name === "return" || key.name === "enter") return { kind: "accept", line: this.line };
    if (key.name === "backspace") {
      this.#query = [...this.#query].slice(0, -1).join("");
      this.#find(0);
      return { kind: "update" };
    }
    const printable = text !== undefined && !key.ctrl && !key.meta && text.length >= 1 &&
      [...text].every((c) => c >= " " && c !== "\x7f");
    if (printable) {
      this.#query += text;
      this.#find(Math.max(this.#index, 0));
      return { kind: "update" };
    }
    return { kind: "edit", line: this.line };
  }

  /** Moves to the first line from `from` on (older) that contains the query. */
  #find(from: number): void {
    if (this.#query === "") {
      this.#failed = false;
      return;
    }
    for (let i = from; i < this.#history.length; i++) {
      if (this.#history[i].includes(this.#query)) {
        this.#index = i;
        this.#failed = false;
        return;
      }
    }
    this.#failed = true; // Keep the last match on show, as bash does.
  }
}
