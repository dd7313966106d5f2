/**
 * Splitting a byte stream into lines, with a ceiling on a line's length: a
 * line above it is skipped (and reported) instead of growing memory or
 * ending the stream.
 * @module
 */

/** Ceiling of one incoming line by default (a 64 MiB fs/write_text_file fits). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;

/** One line of input, or the report of a line that was too long and skipped. */
export type Line = { kind: "line"; text: string } | { kind: "too-long"; bytes: number };

const NEWLINE = 0x0a;

/** Splits chunks of bytes into lines (without the newline); decodes each line as UTF-8. */
export class LineSplitter {
  readonly #maxBytes: number;
  readonly #decoder = new TextDecoder();
  #parts: Uint8Array[] = [];
  #length = 0;
  #skipping = false;

  /** `maxBytes`: the longest line kept; a longer one is reported as `too-long`. */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The longest line kept, in bytes. */
  get maxBytes(): number {
    return this.#maxBytes;
  }

  /** The lines completed by `chunk`, in order. */
  push(chunk: Uint8Array): Line[] {
    const lines: Line[] = [];
    let start = 0;
    while (start <= chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        this.#add(chunk.subarray(start));
        break;
      }
      this.#add(chunk.subarray(start, end));
      lines.push(this.#take());
      start = end + 1;
    }
    return lines;
  }

  /** The last line when the input ended without a newline, if any. */
  flush(): Line | undefined {
    return this.#length === 0 && !this.#skipping ? undefined : this.#take();
  }

  #add(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#length += bytes.length;
    if (this.#length > this.#maxBytes) {
      this.#skipping = true;
      this.#parts = [];
    }
    if (!this.#skipping) this.#parts.push(bytes.slice());
  }

  #take(): Line {
    const bytes = this.#length;
    const line: Line = this.#skipping
      ? { kind: "too-long", bytes }
      : { kind: "line", text: this.#decode() };
    this.#parts = [];
    this.#length = 0;
    this.#skipping = false;
    return line;
  }

  #decode(): string {
    if (this.#parts.length === 1) return this.#decoder.decode(this.#parts[0]);
    const joined = new Uint8Array(this.#length);
    let offset = 0;
    for (const part of this.#parts) {
      joined.set(part, offset);
      offset += part.length;
    }
    return this.#decoder.decode(joined);
  }
}
