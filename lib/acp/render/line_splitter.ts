/**
 * Splitting streamed text into whole lines, holding an incomplete last line
 * until the rest of it arrives.
 * @module
 */

/** Longest incomplete line held back; a longer one is let out in pieces of this size. */
export const MAX_HELD_LINE = 16 * 1024;

/**
 * Turns text that arrives in pieces into complete lines.
 *
 * @example
 * ```ts
 * const lines = new LineSplitter();
 * lines.push("a\nb"); // ["a"]
 * lines.push("c\n"); // ["bc"]
 * lines.flush(); // undefined
 * ```
 */
export class LineSplitter {
  #held = "";
  readonly #maxHeld: number;

  /** @param maxHeld The longest incomplete line to hold back, in UTF-16 code units. */
  constructor(maxHeld = MAX_HELD_LINE) {
    this.#maxHeld = maxHeld;
  }

  /** The incomplete line held so far. */
  get held(): string {
    return this.#held;
  }

  /**
   * Takes the next piece of text.
   *
   * @returns The lines it completes, without their line feeds.
   */
  push(text: string): string[] {
    if (text === "") return [];
    const parts = text.split("\n");
    parts[0] = this.#held + parts[0];
    this.#held = parts.pop()!;
    while (this.#held.length > this.#maxHeld) {
      // Never cut between the two halves of a surrogate pair.
      const high = this.#held.charCodeAt(this.#maxHeld - 1);
      const at = high >= 0xd800 && high <= 0xdbff ? this.#maxHeld - 1 : this.#maxHeld;
      parts.push(this.#held.slice(0, at));
      this.#held = this.#held.slice(at);
    }
    return parts;
  }

  /**
   * Ends the stream.
   *
   * @returns The incomplete line that was held, or undefined when there was none.
   */
  flush(): string | undefined {
    const held = this.#held;
    this.#held = "";
    return held === "" ? undefined : held;
  }
}
