/**
 * Which lines of a flood nobody could see: the ones that scroll out of the
 * screen and its scrollback before the chunk that holds them ends. The
 * emulator need not build their rows; both output logs keep every byte.
 * @module
 */

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const ESC = 0x1b;
const LEFT_BRACKET = 0x5b;
const SEMICOLON = 0x3b;
const ZERO = 0x30;
const NINE = 0x39;
const LOWER_M = 0x6d;

/**
 * Bytes looked at before judging from their line density whether the whole
 * chunk can hold enough lines to skip some. Scanning every byte of a 64 KiB
 * chunk of long lines cost 5-11 ms of CPU per MB (Bun, Deno): a fifth of a
 * plain flood's, for nothing.
 */
const PROBE = 4096;

/** An SGR sequence longer than this ends the skippable start (xterm keeps 32 parameters). */
export const MAX_SGR = 64;

/** What of a chunk need not be parsed. */
export interface LineSkip {
  /** Where parsing may start: just after a line feed, or 0 to parse it all. */
  from: number;
  /**
   * What to parse instead of the skipped lines: the SGR sequences that set
   * the attributes in force at `from` (from the last one that starts with a
   * reset, `ESC [ m` or `ESC [ 0 ; ... m`, or all of them when none does),
   * then the CR LF the last skipped line ended with.
   */
  prelude: Uint8Array;
  /**
   * Whether all of the chunk was text, line ends and SGR sequences (the
   * skippable start reached its end, or an unfinished SGR sequence or
   * UTF-8 character that runs to its end: see `unfinished`): what follows
   * `from` then changes no mode and asks nothing.
   */
  clean: boolean;
  /**
   * The length of the unfinished piece a clean chunk ends with (the start of
   * an SGR sequence or of a UTF-8 character, which the next chunk may finish;
   * see {@linkcode completion}), else 0: the parser is then in its ground state
   * after the chunk.
   */
  unfinished: number;
}

const NO_PRELUDE = new Uint8Array(0);

/**
 * Where to start parsing `bytes` so that only lines nobody could see are
 * skipped. The chunk's skippable start is looked at: printable text (ASCII,
 * tabs, well-formed UTF-8 that is no C1 control), each line feed right after
 * a carriage return, and SGR sequences (`ESC [` digits and `;` `m`, without
 * the underline colour 58 and 59, whose reset is not complete in xterm).
 * Nothing there moves the cursor off its line or changes a mode; only the
 * attributes carry over from line to line. When more than `keep` of its
 * lines follow a CR LF (enough to scroll every row that was there before out
 * of the scrollback, wherever the cursor stands: the caller counts them), the
 * lines before the last `keep` of them would scroll out before the chunk
 * ends. Starting after them, with their attributes and a CR LF parsed first,
 * leaves the same screen, scrollback, cursor and attributes:
 * each kept line starts in column 0 of a new line either way, and the rows a
 * line feed adds take the same background. When the line density of the first
 * {@linkcode PROBE} bytes says `room` bytes (the chunk, or more that may be
 * held with it) cannot hold that many lines, it answers at once: skipping is
 * only ever a saving, never needed for a right screen.
 */
export function linesToSkip(bytes: Uint8Array, keep: number, room = bytes.length): LineSkip {
  const { lines, stop } = skippableLines(bytes, keep, room);
  const unfinished = stop === bytes.length ? 0 : unfinishedLength(bytes, stop);
  const clean = stop === bytes.length || unfinished > 0;
  const skipped = lines - keep - 1; // Keep `keep` whole lines, and one more.
  if (skipped <= 0) return { from: 0, prelude: NO_PRELUDE, clean, unfinished };
  let from = 0;
  for (let seen = 0; seen < skipped; seen++) from = bytes.indexOf(LF, from) + 1;
  return { from, prelude: preludeFor(bytes, from), clean, unfinished };
}

/**
 * How many bytes at the start of `next` finish `piece` (the unfinished end of
 * a clean chunk: see {@linkcode LineSkip.unfinished}) into an SGR sequence
 * that skipping may carry over, or into a UTF-8 character that is no C1
 * control; 0 when they do not (anything else: the chunks are parsed).
 */
export function completion(piece: Uint8Array, next: Uint8Array): number {
  const joined = new Uint8Array(piece.length + Math.min(next.length, MAX_SGR));
  joined.set(piece);
  joined.set(next.subarray(0, joined.length - piece.length), piece.length);
  const length = piece[0] === ESC ? sgrLength(joined, 0) : utf8Length(joined, 0);
  return length > piece.length ? length - piece.length : 0;
}

/**
 * The length of the piece at `at` when it runs to the end of `bytes` as the
 * start of an SGR sequence (`ESC`, `ESC [`, then digits and semicolons) or of
 * a UTF-8 character (a lead byte, then continuation bytes); else 0.
 */
function unfinishedLength(bytes: Uint8Array, at: number): number {
  const length = bytes.length - at;
  if (bytes[at] === ESC) {
    if (length >= MAX_SGR || (length > 1 && bytes[at + 1] !== LEFT_BRACKET)) return 0;
    for (let i = at + 2; i < bytes.length; i++) {
      if (bytes[i] !== SEMICOLON && (bytes[i] < ZERO || bytes[i] > NINE)) return 0;
    }
    return length;
  }
  const lead = bytes[at];
  const needs = lead < 0xc2 ? 0 : lead <= 0xdf ? 2 : lead <= 0xef ? 3 : lead <= 0xf4 ? 4 : 0;
  if (length >= needs) return 0;
  for (let i = at + 1; i < bytes.length; i++) if ((bytes[i] & 0xc0) !== 0x80) return 0;
  return length;
}

/**
 * The SGR sequences that set the attributes in force at the end of `bytes`,
 * then a CR LF, for bytes that are all text, line ends and SGR sequences (a
 * clean chunk: see {@linkcode LineSkip.clean}). Parsed instead of those
 * bytes, followed by more lines than the screen and scrollback hold, they
 * leave what parsing the bytes would have.
 */
export function attributesAtEnd(bytes: Uint8Array): Uint8Array {
  return preludeFor(bytes, bytes.length);
}

/** What a byte is to the scan: text (printable ASCII, CR, tab), a line feed, an escape, or other. */
const TEXT = 0;
const LINE_FEED = 1;
const ESCAPE = 2;
const BYTE_KIND = Uint8Array.from(
  { length: 256 },
  (_, byte) =>
    byte >= 0x20 && byte < 0x7f || byte === CR || byte === TAB
      ? TEXT
      : byte === LF
      ? LINE_FEED
      : byte === ESC
      ? ESCAPE
      : 3,
);

/**
 * How many lines the skippable start of `bytes` holds, and where that start
 * ends (`bytes.length` when it is all of them); no lines when `room` bytes
 * at the density of the first {@linkcode PROBE} would hold too few.
 */
function skippableLines(
  bytes: Uint8Array,
  keep: number,
  room: number,
): { lines: number; stop: number } {
  const end = bytes.length;
  // Runs of printable ASCII are passed four bytes at a time, from the first aligned index on.
  const aligned = (4 - (bytes.byteOffset & 3)) & 3;
  const words = end < aligned + 4
    ? new Uint32Array(0)
    : new Uint32Array(bytes.buffer, bytes.byteOffset + aligned, (end - aligned) >> 2);
  let lines = 0;
  let i = 0;
  for (let limit = Math.min(PROBE, end);; limit = end) {
    while (i < limit) {
      const kind = BYTE_KIND[bytes[i]];
      if (kind === TEXT) {
        i++;
        if (((i - aligned) & 3) === 0 && i >= aligned) {
          i = printableWordsEnd(words, i, limit, aligned);
        }
      } else if (kind === LINE_FEED) {
        if (i === 0 || bytes[i - 1] !== CR) return { lines, stop: i };
        lines++;
        i++;
      } else {
        const length = kind === ESCAPE ? sgrLength(bytes, i) : utf8Length(bytes, i);
        if (length === 0) return { lines, stop: i };
        i += length;
      }
    }
    if (limit === end) return { lines, stop: end };
    // At this line density `room` holds too few lines to skip any: a flood of long lines
    // stops here instead of paying the scan for nothing.
    if (lines * room < (keep + 2) * i) return { lines: 0, stop: i };
  }
}

/**
 * Where the whole words of printable ASCII (0x20-0x7e) that start at the
 * aligned index `i` end, at most at `limit`: a word with any other byte stops
 * it (the byte loop then looks at that word's bytes one by one).
 */
function printableWordsEnd(words: Uint32Array, i: number, limit: number, aligned: number): number {
  let w = (i - aligned) >> 2;
  const last = (limit - aligned) >> 2;
  while (w < last) {
    const word = words[w];
    const low = (word - 0x20202020) & ~word; // bytes below 0x20 (and from 0x80 up)
    const del = (word ^ 0x7f7f7f7f) - 0x01010101 & ~(word ^ 0x7f7f7f7f); // bytes equal to 0x7f
    if (((low | del | word) & 0x80808080) !== 0) break;
    w++;
  }
  return aligned + (w << 2);
}

/**
 * The length of the SGR sequence at `at` that skipping may carry over, or 0:
 * `ESC [`, digits and semicolons, `m`, no parameter 58 or 59.
 */
function sgrLength(bytes: Uint8Array, at: number): number {
  if (bytes[at + 1] !== LEFT_BRACKET) return 0;
  let parameter = 0;
  for (let i = at + 2; i < bytes.length && i - at < MAX_SGR; i++) {
    const byte = bytes[i];
    if (byte >= ZERO && byte <= NINE) {
      parameter = Math.min(parameter * 10 + byte - ZERO, 1000);
      continue;
    }
    if (parameter === 58 || parameter === 59) return 0;
    if (byte === LOWER_M) return i - at + 1;
    if (byte !== SEMICOLON) return 0;
    parameter = 0;
  }
  return 0;
}

/**
 * The length of the UTF-8 character at `at`, or 0 for anything else: a
 * malformed or unfinished one, or a C1 control (U+0080-U+009F, which xterm
 * acts on: U+009B is CSI).
 */
function utf8Length(bytes: Uint8Array, at: number): number {
  const lead = bytes[at];
  const length = lead < 0xc2 ? 0 : lead <= 0xdf ? 2 : lead <= 0xef ? 3 : lead <= 0xf4 ? 4 : 0;
  if (length === 0 || at + length > bytes.length) return 0;
  if (lead === 0xc2 && bytes[at + 1] < 0xa0) return 0;
  for (let i = at + 1; i < at + length; i++) {
    if ((bytes[i] & 0xc0) !== 0x80) return 0;
  }
  return length;
}

/** Whether the SGR sequence at `at` starts with a reset: `ESC [ m`, `ESC [ ;`, `ESC [ 0 m`, `ESC [ 0 ;`. */
function startsWithReset(bytes: Uint8Array, at: number): boolean {
  let i = at + 2;
  while (bytes[i] === ZERO) i++;
  return bytes[i] === LOWER_M || bytes[i] === SEMICOLON;
}

/**
 * The SGR sequences in the skippable start before `from` that set the
 * attributes in force there, joined, and a CR LF: every ESC there begins
 * one, so they are found walking back from `from` to the last reset (or to
 * the start).
 */
function preludeFor(bytes: Uint8Array, from: number): Uint8Array {
  const starts: number[] = [];
  let size = 0;
  for (let at = bytes.lastIndexOf(ESC, from - 1); at >= 0; at = bytes.lastIndexOf(ESC, at - 1)) {
    starts.push(at);
    size += sgrLength(bytes, at);
    if (startsWithReset(bytes, at) || at === 0) break;
  }
  const prelude = new Uint8Array(size + 2);
  let filled = 0;
  for (let k = starts.length - 1; k >= 0; k--) {
    const length = sgrLength(bytes, starts[k]);
    prelude.set(bytes.subarray(starts[k], starts[k] + length), filled);
    filled += length;
  }
  prelude[filled] = CR;
  prelude[filled + 1] = LF;
  return prelude;
}
