/**
 * An append-only log of a terminal's output bytes, with an optional byte limit
 * that drops the oldest bytes first (as ACP's `outputByteLimit` asks).
 * @module
 */

/** Appends shorter than this are copied into a shared block instead of getting an array each. */
const SMALL_APPEND = 1024;

/** Capacity of a block that collects small appends. */
const BLOCK_SIZE = 16 * 1024;

/** A UTF-8 character has at most three continuation bytes; skipping more would eat binary data. */
const MAX_CONTINUATION_BYTES = 3;

/** Once this many dropped slots lead the chunk list (and they are at least half of it), compact it. */
const DEAD_SLOTS_BEFORE_COMPACTION = 1024;

const EMPTY = new Uint8Array(0);
const decoder = new TextDecoder();

/** Whether `byte` is a UTF-8 continuation byte (`0b10xxxxxx`). */
function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** `view` itself, or a copy of it when it would otherwise keep a much larger buffer alive. */
function tight(view: Uint8Array): Uint8Array {
  return view.byteLength * 2 < view.buffer.byteLength ? view.slice() : view;
}

/**
 * An append-only byte log with an optional limit that drops from the front on
 * a UTF-8 character boundary.
 *
 * Appends cost time in proportion to their own size: bytes are kept as a list
 * of arrays, small appends are packed into shared blocks, and trimming drops
 * whole arrays from the front. Appended bytes are copied, so callers may
 * reuse their buffers.
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
  #chunks: Uint8Array[] = [];
  /** Index of the first kept array in `#chunks`; the slots before it were dropped. */
  #head = 0;
  /** The block small appends are packed into, while it is the last kept array. */
  #block: Uint8Array | undefined;
  #blockUsed = 0;
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
      this.#keepTailOf(bytes);
      return;
    }
    if (length < SMALL_APPEND) {
      this.#appendSmall(bytes);
    } else {
      this.#sealBlock();
      this.#chunks.push(bytes.slice());
    }
    this.#byteLength += length;
    if (this.#skippable > 0) this.#skipContinuation();
    if (this.#byteLength > this.#limit) this.#trim();
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
    return decoder.decode(this.bytes());
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
    this.#chunks = [];
    this.#head = 0;
    this.#block = undefined;
    this.#byteLength = 0;
    this.#skippable = MAX_CONTINUATION_BYTES;
  }

  /** Replaces everything kept by the tail of `bytes`, which alone exceeds the limit. */
  #keepTailOf(bytes: Uint8Array): void {
    this.clear();
    this.#truncated = true;
    this.#chunks.push(bytes.subarray(bytes.byteLength - this.#limit));
    this.#byteLength = this.#limit;
    this.#skipContinuation();
    // Keep a copy: the caller's buffer is large and may be reused.
    if (this.#byteLength > 0) this.#chunks[this.#head] = this.#chunks[this.#head].slice();
  }

  /** Copies `bytes` into the current block, starting a new one when it is full. */
  #appendSmall(bytes: Uint8Array): void {
    const chunks = this.#chunks;
    let block = this.#block;
    const blockIsLast = block !== undefined && chunks.length > this.#head &&
      chunks[chunks.length - 1].buffer === block.buffer;
    if (block === undefined || !blockIsLast || this.#blockUsed + bytes.byteLength > BLOCK_SIZE) {
      this.#sealBlock();
      block = this.#block = new Uint8Array(BLOCK_SIZE);
      this.#blockUsed = 0;
      chunks.push(block.subarray(0, 0));
    }
    block.set(bytes, this.#blockUsed);
    this.#blockUsed += bytes.byteLength;
    // The kept part of the block starts where trimming left it (0 if untouched).
    const last = chunks.length - 1;
    chunks[last] = block.subarray(chunks[last].byteOffset, this.#blockUsed);
  }

  /** Stops packing into the current block, copying its used part if the rest is mostly empty. */
  #sealBlock(): void {
    const block = this.#block;
    if (block === undefined) return;
    this.#block = undefined;
    const last = this.#chunks.length - 1;
    if (last >= this.#head && this.#chunks[last].buffer === block.buffer) {
      this.#chunks[last] = tight(this.#chunks[last]);
    }
  }

  /** Drops from the front until within the limit, then up to the next character start. */
  #trim(): void {
    this.#truncated = true;
    this.#dropFront(this.#byteLength - this.#limit);
    this.#skippable = MAX_CONTINUATION_BYTES;
    this.#skipContinuation();
    if (this.#byteLength === 0) return;
    const first = this.#chunks[this.#head];
    // The open block is ours and bounded in size; copying it would only start a new one.
    if (first.buffer !== this.#block?.buffer) this.#chunks[this.#head] = tight(first);
  }

  /**
   * Drops continuation bytes from the front (at most `#skippable` in all, as
   * more cannot belong to one character), so the kept bytes start a character.
   */
  #skipContinuation(): void {
    while (this.#skippable > 0 && this.#byteLength > 0) {
      if (!isContinuation(this.#chunks[this.#head][0])) break;
      this.#dropFront(1);
      this.#skippable--;
    }
    // Something is kept, so the front is settled until the next cut.
    if (this.#byteLength > 0) this.#skippable = 0;
  }

  /** Drops exactly `count` kept bytes from the front. */
  #dropFront(count: number): void {
    const chunks = this.#chunks;
    this.#byteLength -= count;
    while (count > 0) {
      const first = chunks[this.#head];
      if (first.byteLength <= count) {
        count -= first.byteLength;
        chunks[this.#head++] = EMPTY; // let the dropped array be collected
      } else {
        chunks[this.#head] = first.subarray(count);
        count = 0;
      }
    }
    if (this.#head === chunks.length) {
      this.#chunks = [];
      this.#head = 0;
    } else if (this.#head >= DEAD_SLOTS_BEFORE_COMPACTION && this.#head * 2 >= chunks.length) {
      this.#chunks = chunks.slice(this.#head);
      this.#head = 0;
    }
  }

  /** A copy of the last `size` kept bytes (`size` <= `byteLength`). */
  #tail(size: number): Uint8Array {
    const result = new Uint8Array(size);
    let end = size;
    for (let i = this.#chunks.length - 1; end > 0; i--) {
      const chunk = this.#chunks[i];
      const take = Math.min(chunk.byteLength, end);
      result.set(
        take === chunk.byteLength ? chunk : chunk.subarray(chunk.byteLength - take),
        end - take,
      );
      end -= take;
    }
    return result;
  }
}
