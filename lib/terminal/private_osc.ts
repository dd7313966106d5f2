/**
 * Keeps a program's private OSC strings (`ESC ] 6973;...` up to its end) out
 * of a byte stream, across chunk boundaries. termbridge's shell hooks talk to
 * termbridge this way; what they say (a one-time token among it) is for
 * termbridge alone, never for the raw log, attached clients or recordings.
 * @module
 */

const ESC = 0x1b;
const BRACKET = 0x5d; // ]
const BEL = 0x07;
const CAN = 0x18;
const SUB = 0x1a;
const BACKSLASH = 0x5c;
const EMPTY = new Uint8Array(0);
/**
 * What a removed string leaves: an empty SOS string (`ESC X ESC \`), which
 * every parser ignores and which ends what came before exactly as the
 * string's own ESC did (an unfinished sequence or string, a lone ESC).
 */
const EMPTY_STRING = new Uint8Array([ESC, 0x58, ESC, 0x5c]);

/**
 * Replaces OSC strings whose text starts with `NUMBER;` by an empty SOS
 * string (`ESC X ESC \`). A string ends where the terminal's parser (`text_stream.ts`)
 * ends it: BEL, ST (`ESC \` or U+009C), CAN, SUB, or an ESC that starts
 * something else (kept).
 */
export class PrivateOscFilter {
  /** `ESC ] NUMBER ;` */
  readonly #start: Uint8Array;
  #inside = false;
  /**
   * The end of the last chunk, looked at again with the next: in ground, a
   * possible start of `#start`; inside, an ESC or the first byte of U+009C.
   */
  #held: Uint8Array = EMPTY;

  constructor(osc: number) {
    this.#start = new TextEncoder().encode(`\x1b]${osc};`);
  }

  /** The chunk without the private strings in it (the chunk itself when it had none). */
  strip(chunk: Uint8Array): Uint8Array {
    const last = chunk[chunk.length - 1];
    if (
      !this.#inside && this.#held.length === 0 && last !== ESC && chunk.indexOf(BRACKET) === -1
    ) return chunk;
    const data = this.#held.length === 0 ? chunk : concat([this.#held, chunk]);
    this.#held = EMPTY;
    const kept: Uint8Array[] = [];
    let from = 0; // the start of the bytes to keep
    let i = 0;
    while (i < data.length) {
      if (this.#inside) {
        i = this.#skipString(data, i);
        from = i;
        continue;
      }
      const bracket = data.indexOf(BRACKET, i);
      if (bracket === -1) {
        // An ESC at the very end may begin a string in the next chunk.
        if (data[data.length - 1] === ESC) this.#held = data.slice(data.length - 1);
        break;
      }
      const start = bracket - 1;
      const seen = Math.min(this.#start.length, data.length - start);
      if (start < 0 || !startsWith(data, start, this.#start, seen)) {
        i = bracket + 1;
        continue;
      }
      if (seen < this.#start.length) {
        this.#held = data.slice(start); // The chunk ends inside `ESC ] NUMBER ;`.
        break;
      }
      if (start > from) kept.push(data.subarray(from, start));
      kept.push(EMPTY_STRING);
      this.#inside = true;
      i = start + this.#start.length;
      from = i;
    }
    const end = data.length - this.#held.length;
    if (!this.#inside && end > from) kept.push(data.subarray(from, end));
    if (data === chunk && kept.length === 1 && kept[0].length === chunk.length) return chunk;
    return concat(kept);
  }

  /**
   * Ends the stream: bytes held back in case they began a private string are
   * given back (nothing of an unfinished one). The filter can then be used again.
   */
  end(): Uint8Array {
    const held = this.#inside ? EMPTY : this.#held;
    this.#inside = false;
    this.#held = EMPTY;
    return held;
  }

  /** Skips string bytes from `i`; returns where ground resumes, or the end (still inside). */
  #skipString(data: Uint8Array, i: number): number {
    for (; i < data.length; i++) {
      const code = data[i];
      if (code === BEL || code === CAN || code === SUB) {
        this.#inside = false;
        return i + 1;
      }
      if (code === ESC || code === 0xc2) {
        if (i + 1 === data.length) {
          this.#held = data.slice(i); // Decided by the next byte.
          return data.length;
        }
        if (code === ESC) {
          // `ESC \` ends the string; an ESC that starts something else ends it too, and is kept.
          this.#inside = false;
          return data[i + 1] === BACKSLASH ? i + 2 : i;
        }
        if (data[i + 1] === 0x9c) {
          this.#inside = false;
          return i + 2;
        }
      }
    }
    return data.length;
  }
}

function startsWith(data: Uint8Array, at: number, prefix: Uint8Array, length: number): boolean {
  for (let k = 0; k < length; k++) if (data[at + k] !== prefix[k]) return false;
  return true;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 0) return EMPTY;
  if (parts.length === 1) return parts[0];
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
