/**
 * An append-only log of a terminal's output bytes, with an optional byte limit
 * that drops the oldest bytes first (as ACP's `outputByteLimit` asks).
 * @module
 */

/** Size of a log's first block; each new block doubles the last one, up to `MAX_BLOCK`. */
const FIRST_BLOCK = 4 * 1024;

/** Largest block: a full log of 16 MiB is 256 of them. */
const MAX_BLOCK = 64 * 1024;

/** Dropped blocks kept for reuse, at most: enough for appends of 1 MiB to allocate nothing. */
const MAX_SPARES = 16;

/** A UTF-8 character has at most three continuation bytes; skipping more would eat binary data. */
const MAX_CONTINUATION_BYTES = 3;

const EMPTY = new Uint8Array(0);
const encoder = new TextEncoder();

/**
 * Where `appendText` encodes, a piece at a time: one buffer for the whole
 * process (JavaScript runs one append at a time), so that encoding a chunk
 * of text allocates nothing.
 */
const scratch = new Uint8Array(MAX_BLOCK);

/** Whether `byte` is a UTF-8 continuation byte (`0b10xxxxxx`). */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * An append-only byte log with an optional limit that drops from the front on
 * a UTF-8 character boundary.
 *
 * The bytes live in a list of blocks the log owns (4 KiB, doubling up to 64
 * KiB), filled in order: an append costs one copy of its bytes, a full log
 * holds its limit plus at most one block, and what an append pushes out is
 * dropped before it is written, whole blocks at a time, so that the blocks
 * freed take the new bytes: a full log that keeps growing allocates nothing. Appended bytes are
 * copied, so callers may reuse their buffers.
 *
 * @example
 * ```ts
 * const log = new OutputLog(5);
 * log.append(new TextEncoder().encode("a😀b")); // 6 bytes
 * log.text(); // "😀b"
 * log.truncated; // true
 * ```
 */
export class OutputLog {
  #limit: number;
  /** The blocks holding the kept bytes, oldest first. */
  #blocks: Uint8Array[] = [];
  /** Offset of the first kept byte in the first block. */
  #start = 0;
  /** Bytes used in the last block. */
  #end = 0;
  /** Dropped blocks kept for reuse. */
  #spares: Uint8Array[] = [];
  #byteLength = 0;
  #totalBytes = 0;
  #truncated = false;
  /**
   * How many continuation bytes may still be skipped at the front: after a cut
   * left the log empty, the next bytes may finish the character that was cut.
   */
  #skippable = 0;

  /**
   * Creates an empty log.
   *
   * @param limit The most bytes to keep; `undefined` or `Infinity` keeps everything.
   * @throws {RangeError} When `limit` is negative, fractional or not a number.
   */
  constructor(limit: number = Infinity) {
    const valid = typeof limit === "number" && limit >= 0 &&
      (Number.isInteger(limit) || limit === Infinity);
    if (!valid) {
      throw new RangeError(
        `Cannot create output log: limit must be a whole number of bytes >= 0, got "${limit}"`,
      );
    }
    this.#limit = limit;
  }

  /** Bytes currently kept. */
  get byteLength(): number {
    return this.#byteLength;
  }

  /** Total bytes ever appended, including dropped and cleared ones. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Whether anything was dropped from the front to stay within the limit. */
  get truncated(): boolean {
    return this.#truncated;
  }

  /**
   * Appends a copy of `bytes`, then drops from the front what exceeds the limit.
   *
   * @param bytes Output bytes, in the order they were read.
   */
  append(bytes: Uint8Array): void {
    const length = bytes.byteLength;
    if (length === 0) return;
    this.#totalBytes += length;
    if (length > this.#limit) {
      // Only its tail can stay: replace everything by it.
      this.#dropFront(this.#byteLength);
      this.#truncated = true;
      this.#skippable = MAX_CONTINUATION_BYTES;
      this.#write(bytes.subarray(length - this.#limit));
    } else {
      // What the append pushes out goes first, so that its blocks take the new bytes.
      const excess = this.#byteLength + length - this.#limit;
      if (excess > 0) {
        this.#truncated = true;
        this.#dropFront(excess);
        this.#skippable = MAX_CONTINUATION_BYTES;
      }
      this.#write(bytes);
    }
    this.#settle();
  }

  /**
   * Appends `text` encoded as UTF-8, as `append(encoder.encode(text))` would,
   * without allocating: it is encoded a piece at a time into a shared buffer.
   *
   * @param text Text to append; a lone surrogate becomes U+FFFD.
   * @returns How many bytes it was.
   */
  appendText(text: string): number {
    let rest = text;
    let bytes = 0;
    while (rest !== "") {
      const { read, written } = encoder.encodeInto(rest, scratch);
      this.append(scratch.subarray(0, written));
      bytes += written;
      rest = read === rest.length ? "" : rest.slice(read);
    }
    return bytes;
  }

  /**
   * The kept bytes as one array.
   *
   * @returns A new array; changing it does not change the log.
   */
  bytes(): Uint8Array {
    return this.#tail(this.#byteLength);
  }

  /**
   * The kept bytes decoded as UTF-8. The kept bytes always start on a character
   * boundary; invalid sequences become U+FFFD.
   *
   * @returns The kept text.
   */
  text(): string {
    // Block by block: no copy of the whole log on the way to the string.
    const decoder = new TextDecoder();
    let text = "";
    this.#forEachPiece(this.#byteLength, (piece) => {
      text += decoder.decode(piece, { stream: true });
    });
    return text + decoder.decode();
  }

  /**
   * The bytes appended after absolute offset `from`, as far as they are still kept.
   *
   * @param from An offset counted like {@linkcode OutputLog.totalBytes}, e.g. a
   *   `totalBytes` value read earlier.
   * @returns A new array; empty when nothing newer than `from` is kept.
   * @throws {RangeError} When `from` is not a whole number >= 0.
   *
   * @example
   * ```ts
   * const log = new OutputLog();
   * log.append(new TextEncoder().encode("abc"));
   * const seen = log.totalBytes;
   * log.append(new TextEncoder().encode("def"));
   * new TextDecoder().decode(log.since(seen)); // "def"
   * ```
   */
  since(from: number): Uint8Array {
    if (!Number.isSafeInteger(from) || from < 0) {
      throw new RangeError(
        `Cannot read output log: offset must be a whole number >= 0, got "${from}"`,
      );
    }
    const keptFrom = this.#totalBytes - this.#byteLength;
    return this.#tail(this.#totalBytes - Math.min(Math.max(from, keptFrom), this.#totalBytes));
  }

  /**
   * Drops everything kept; `totalBytes` and `truncated` stay as they are. As
   * the cleared bytes may have ended inside a character, continuation bytes
   * that start the next append are dropped too.
   */
  clear(): void {
    this.#blocks = [];
    this.#start = 0;
    this.#end = 0;
    this.#byteLength = 0;
    this.#skippable = MAX_CONTINUATION_BYTES;
  }

  /**
   * Lowers the limit to `limit` (never raises it), dropping from the front
   * what exceeds it, and frees the spare blocks: a log that will not grow
   * again gives its memory back.
   *
   * @param limit The most bytes to keep from now on.
   */
  shrink(limit: number): void {
    this.#limit = Math.min(this.#limit, Math.max(0, Math.floor(limit)));
    this.#settle();
    this.#spares = [];
  }

  /** Copies `bytes` after the kept ones, adding blocks as they fill. */
  #write(bytes: Uint8Array): void {
    const length = bytes.byteLength;
    let done = 0;
    while (done < length) {
      let last = this.#blocks[this.#blocks.length - 1];
      if (last === undefined || this.#end === last.byteLength) {
        last = this.#newBlock();
        this.#blocks.push(last);
        this.#end = 0;
      }
      const count = Math.min(length - done, last.byteLength - this.#end);
      last.set(
        done === 0 && count === length ? bytes : bytes.subarray(done, done + count),
        this.#end,
      );
      this.#end += count;
      done += count;
    }
    this.#byteLength += length;
  }

  /** The next block: twice the last one (at most `MAX_BLOCK`, hardly more than the limit). */
  #newBlock(): Uint8Array {
    const last = this.#blocks[this.#blocks.length - 1]?.byteLength ?? 0;
    const size = Math.min(Math.max(FIRST_BLOCK, last * 2), MAX_BLOCK, Math.max(this.#limit, 64));
    const spare = this.#spares.pop();
    if (spare !== undefined && spare.byteLength === size) return spare;
    if (spare !== undefined) this.#spares = []; // Blocks are growing: the small ones are of no use.
    return new Uint8Array(size);
  }

  /** After an append: finishes a cut character at the front, then keeps within the limit. */
  #settle(): void {
    if (this.#skippable > 0) this.#skipContinuation();
    if (this.#byteLength > this.#limit) {
      this.#truncated = true;
      this.#dropFront(this.#byteLength - this.#limit);
      this.#skippable = MAX_CONTINUATION_BYTES;
      this.#skipContinuation();
    }
  }

  /**
   * Drops continuation bytes from the front (at most `#skippable` in all, as
   * more cannot belong to one character), so the kept bytes start a character.
   */
  #skipContinuation(): void {
    while (this.#skippable > 0 && this.#byteLength > 0) {
      if (!isContinuation(this.#blocks[0][this.#start])) break;
      this.#dropFront(1);
      this.#skippable--;
    }
    // Something is kept, so the front is settled until the next cut.
    if (this.#byteLength > 0) this.#skippable = 0;
  }

  /** Drops exactly `count` kept bytes from the front, freeing the blocks it empties. */
  #dropFront(count: number): void {
    this.#byteLength -= count;
    while (count > 0) {
      const first = this.#blocks[0];
      const used = (this.#blocks.length === 1 ? this.#end : first.byteLength) - this.#start;
      if (used > count) {
        this.#start += count;
        return;
      }
      count -= used;
      this.#blocks.shift();
      this.#keepSpare(first);
      this.#start = 0;
    }
    if (this.#blocks.length === 0) this.#end = 0;
    else if (this.#start === (this.#blocks.length === 1 ? this.#end : this.#blocks[0].byteLength)) {
      // The first block was used up exactly: it is empty now.
      this.#keepSpare(this.#blocks.shift()!);
      this.#start = 0;
      if (this.#blocks.length === 0) this.#end = 0;
    }
  }

  #keepSpare(block: Uint8Array): void {
    if (this.#spares.length < MAX_SPARES) this.#spares.push(block);
  }

  /** Calls `visit` with the last `size` kept bytes (`size` <= `byteLength`), a block at a time. */
  #forEachPiece(size: number, visit: (piece: Uint8Array) => void): void {
    let skip = this.#byteLength - size;
    const blocks = this.#blocks;
    for (let i = 0; i < blocks.length; i++) {
      const from = i === 0 ? this.#start : 0;
      const to = i === blocks.length - 1 ? this.#end : blocks[i].byteLength;
      const used = to - from;
      if (skip >= used) {
        skip -= used;
        continue;
      }
      visit(blocks[i].subarray(from + skip, to));
      skip = 0;
    }
  }

  /** A copy of the last `size` kept bytes (`size` <= `byteLength`). */
  #tail(size: number): Uint8Array {
    if (size === 0) return EMPTY.slice();
    const result = new Uint8Array(size);
    let offset = 0;
    this.#forEachPiece(size, (piece) => {
      result.set(piece, offset);
      offset += piece.byteLength;
    });
    return result;
  }
}
