/**
 * A headless terminal emulator (`@xterm/headless`, the one VS Code uses) fed
 * synchronously, so that parsing paces the reader instead of queueing.
 * @module
 */

import xterm from "@xterm/headless";
import { SerializeAddon } from "@xterm/addon-serialize";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { attributesAtEnd, completion, linesToSkip, MAX_SGR } from "./flood_skip.ts";
import { RowTexts, type RowTextsCore } from "./row_texts.ts";
import { readLines, type ScreenScope } from "./screen.ts";
import { unfinishedCharStart } from "./utf8_edges.ts";
import {
  afterResize,
  beforeDispose,
  beforeResize,
  fillScreenRows,
  fixXterm,
} from "./xterm_fixes.ts";

/** Size and history of an emulator. */
export interface EmulatorOptions {
  cols: number;
  rows: number;
  /** Lines kept above the visible screen. */
  scrollback: number;
}

/** The cursor, 0-based, relative to the visible screen. */
export interface Cursor {
  x: number;
  y: number;
}

/**
 * The input handler's `parse` parses in the caller's turn (what xterm's
 * `writeSync` does, without its queue, whose state a parser exception left
 * stuck). xterm's public `write` parses on a timer and silently discards
 * input once ~50 MB are pending; these are internal, so the version of
 * `@xterm/headless` is pinned and tests cover it. The cursor's visibility
 * and the mouse encoding have no public getter either.
 */
export interface XtermCore {
  writeSync(data: Uint8Array | string): void;
  coreService: { isCursorHidden: boolean; modes: { insertMode: boolean } };
  coreMouseService: { activeEncoding: string };
  _inputHandler: {
    parse(data: Uint8Array | string): unknown;
    _processSGR0?(attr: XtermAttributes): void;
    _parser?: { currentState: number; reset?(): void };
  };
  buffer: { scrollTop: number; scrollBottom: number; lines: { get(index: number): unknown } };
}

/** xterm's current attributes (`AttributeData`), as far as a reset touches them. */
interface XtermAttributes {
  fg: number;
  bg: number;
  extended: { underlineStyle: number; underlineColor: number };
  updateExtended(): void;
}

/**
 * Makes xterm's SGR 0 (`ESC [ 0 m`, the reset that ends nearly every colour
 * run) stop copying the extended attributes when it would not change them.
 * xterm copies them on every reset (they are shared with the cells written
 * before, and copied before any change); that one small object per reset is
 * most of the garbage a coloured flood makes, and under Bun's collector it
 * raised the flood's peak RSS by up to 25 MB. When underline style and colour
 * are already clear the reset is the same without the copy: fg and bg go back
 * to xterm's defaults (0), the extended attributes stay as they are. Other
 * resets take xterm's own path. Without the internal method nothing changes.
 */
export function resetWithoutCopy(core: XtermCore): void {
  const handler = core._inputHandler;
  const reset = handler._processSGR0?.bind(handler);
  if (reset === undefined) return;
  handler._processSGR0 = (attr) => {
    const extended = attr.extended;
    if (extended.underlineStyle !== 0 || (extended.underlineColor & 0x03ffffff) !== 0) {
      reset(attr);
      return;
    }
    attr.fg = 0;
    attr.bg = 0;
    attr.updateExtended();
  };
}

/** xterm's `BufferLine`, as far as copying one line into another touches it. */
interface XtermBufferLine {
  _data: Uint32Array;
  length: number;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
  isWrapped: boolean;
  copyFrom(line: XtermBufferLine): void;
}

/** Whether an object has no own enumerable keys (without allocating a key list). */
function isEmpty(object: object): boolean {
  for (const _ in object) return false;
  return true;
}

const patchedLines = new WeakSet<object>();

/**
 * Stops xterm's `BufferLine.copyFrom` from allocating two objects per line
 * when neither line has combined characters or extended attributes. Once the
 * scrollback is full every line feed at the bottom recycles the oldest line
 * with `copyFrom`, which replaced its `_combined` and `_extendedAttrs` with
 * new objects each time: a flood of short lines (`yes`: a million lines a
 * second) made ~100 bytes of garbage per line, which let the collector grow
 * the heap by tens of MB (the session server peaked at +80 to +120 MB under a
 * `yes` flood). Empty objects owned by the line are kept instead; anything
 * else goes to xterm's own copy. The class is patched once, on its prototype.
 */
export function copyLinesWithoutGarbage(line: unknown): void {
  const prototype = line === null || typeof line !== "object"
    ? undefined
    : Object.getPrototypeOf(line) as XtermBufferLine | undefined;
  if (prototype === undefined || patchedLines.has(prototype)) return;
  const copy = prototype.copyFrom;
  if (typeof copy !== "function") return;
  patchedLines.add(prototype);
  prototype.copyFrom = function (this: XtermBufferLine, from: XtermBufferLine) {
    if (
      !isEmpty(from._combined) || !isEmpty(from._extendedAttrs) || !isEmpty(this._combined) ||
      !isEmpty(this._extendedAttrs) || this.length !== from.length
    ) {
      copy.call(this, from);
      return;
    }
    this._data.set(from._data);
    this.isWrapped = from.isWrapped;
  };
}

/** The mouse report encodings a program can choose (xterm.js also knows URXVT's, unused). */
export type MouseEncoding = "DEFAULT" | "SGR" | "SGR_PIXELS";

/**
 * The modes a program set that change what a real terminal must send it or
 * show: what a person's terminal mirrors when it takes the program over.
 */
export interface TerminalModes {
  /** DECCKM: arrows send `ESC O A` instead of `ESC [ A`. */
  applicationCursorKeys: boolean;
  /** DECKPAM: the keypad sends application sequences. */
  applicationKeypad: boolean;
  /** Pasted text is to be wrapped in `ESC [ 200 ~` ... `ESC [ 201 ~`. */
  bracketedPaste: boolean;
  /** Mouse events the program asked for (DECSET 9, 1000, 1002, 1003). */
  mouseTracking: "none" | "x10" | "vt200" | "drag" | "any";
  /** Their encoding, in xterm's names: `"SGR"` is DECSET 1006, `"SGR_PIXELS"` 1016. */
  mouseEncoding: MouseEncoding;
  /** Focus in/out reports (DECSET 1004). */
  sendFocus: boolean;
  /** The cursor was hidden (DECTCEM off). */
  cursorHidden: boolean;
}

/**
 * What xterm's serializer writes before the alternate screen, which it puts
 * after the normal one.
 */
const TO_ALTERNATE_SCREEN = "\x1b[?1049h\x1b[H";

/** Chunks shorter than this are parsed whole (an echo, a prompt): the scan would not pay. */
const MIN_SKIP_CHUNK = 4096;
/**
 * The most bytes of a flood's last lines held unparsed while more of it is on
 * its way: room for the lines a skip keeps, and a chunk more.
 */
const MAX_HELD = 1024 * 1024;
const LF = 0x0a;
const CR = 0x0d;
/**
 * The most bytes xterm's parser decodes at once: a longer call is cut into
 * slices of this size wherever they fall, inside a character too.
 */
const XTERM_SLICE = 131072;

/** One emulated screen with its scrollback. */
export class Emulator {
  #term: xterm.Terminal;
  #core: XtermCore;
  #scrollback: number;
  /** The last byte parsed (0 before any): an ASCII one leaves no UTF-8 character begun. */
  #lastByte = 0;
  #skipped = 0;
  /**
   * A flood's last lines, not parsed yet (a copy): the next chunk may scroll
   * them out unseen. Only text, line ends and SGR sequences, so nothing but
   * the screen's rows, the scrollback and the cursor waits for them: every
   * read of those parses them first.
   */
  #held: Uint8Array | undefined;
  /** The unfinished SGR sequence or UTF-8 character the held lines end with: its length, or 0. */
  #heldUnfinished = 0;
  /** Where held lines are copied: made on the first hold, then reused (a copy each would be garbage). */
  #heldStore: Uint8Array | undefined;
  /** The start of a UTF-8 character the bytes parsed so far end in the middle of (see `#feed`). */
  #cutChar: Uint8Array | undefined;
  #title = "";
  #serializer: SerializeAddon | undefined;
  #rowTexts: RowTexts;
  #failure: string | undefined;

  constructor(options: EmulatorOptions) {
    this.#scrollback = options.scrollback;
    this.#term = new xterm.Terminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback,
      allowProposedApi: true,
      logLevel: "off",
    });
    this.#term.loadAddon(new Unicode11Addon());
    this.#term.unicode.activeVersion = "11";
    this.#term.onTitleChange((title) => this.#title = title);
    this.#core = (this.#term as unknown as { _core: XtermCore })._core;
    resetWithoutCopy(this.#core);
    copyLinesWithoutGarbage(this.#core.buffer.lines.get(0));
    fixXterm(this.#core);
    this.#rowTexts = new RowTexts(this.#core as unknown as RowTextsCore, () => this.#term.rows);
  }

  /**
   * Parses output bytes (a UTF-8 character split across calls is parsed whole).
   * A chunk that starts with more lines of text than the screen and
   * scrollback hold skips the ones that would scroll out of both before the
   * chunk ends (see {@linkcode linesToSkip}): nobody could see them.
   *
   * @param more more of this output probably follows at once (a reader
   *   behind a flood): the last lines of a chunk of plain or coloured text
   *   may then be held instead of parsed, with the clean chunks after it,
   *   and skipped in turn when later lines scroll them out. Every read of
   *   the screen, the scrollback or the cursor, and a resize, parses them
   *   first (only the lines that can still be seen).
   */
  write(bytes: Uint8Array | string, more = false): void {
    if (this.#held !== undefined) {
      if (typeof bytes !== "string" && this.#writeAfterHeld(bytes)) return;
      this.#parseHeld();
    }
    if (typeof bytes !== "string" && bytes.length >= MIN_SKIP_CHUNK) {
      if (!this.#canSkip()) {
        // The last chunk ended inside a sequence or a character (reads end anywhere): its line
        // ends here first, and the skip may start after it.
        const end = bytes.indexOf(LF) + 1;
        if (end === 0 || end > MIN_SKIP_CHUNK) {
          this.#parse(bytes);
          return;
        }
        this.#parse(bytes.subarray(0, end));
        bytes = bytes.subarray(end);
        if (!this.#canSkip()) {
          this.#parse(bytes);
          return;
        }
      } else if (bytes[0] === LF && this.#lastByte === CR) {
        // A CR LF split between two chunks (a third of the chunks of `yes`): the line ends first.
        this.#parse(bytes.subarray(0, 1));
        bytes = bytes.subarray(1);
      }
      // A chunk with too few lines to skip any may still be held, and the chunks after it.
      const skip = linesToSkip(bytes, this.#linesKept(), more ? MAX_HELD : bytes.length);
      if (skip.from > 0) {
        this.#feed(skip.prelude);
        bytes = bytes.subarray(skip.from);
        this.#skipped += skip.from;
      }
      if (more && skip.clean && this.#hold(bytes, skip.unfinished)) return;
    }
    this.#parse(bytes);
  }

  /**
   * With lines held: when `bytes` skips lines of its own, the held ones
   * would have scrolled out before them; only their attributes carry over.
   * When it has too few lines but is clean too (text, line ends and SGR
   * sequences), it is held after them (the held lines that it and the rest
   * scroll out are dropped first, should the store overflow): a flood read
   * in chunks of a few hundred lines is then parsed only as far as a read
   * needs. Held lines that end in an unfinished SGR sequence or UTF-8
   * character, or in the CR of a CR LF, are finished by the first bytes of
   * `bytes`. Returns whether `bytes` was taken (else the held lines are
   * parsed first, and `bytes` the usual way).
   */
  #writeAfterHeld(bytes: Uint8Array): boolean {
    const held = this.#held!;
    const finish = this.#heldFinish(bytes);
    if (finish < 0) return false;
    const rest = bytes.subarray(finish);
    const skip = linesToSkip(rest, this.#linesKept(), MAX_HELD);
    if (skip.from === 0) return skip.clean && this.#holdMore(bytes, skip.unfinished);
    // The held bytes with their last piece finished (the store has room past MAX_HELD).
    const whole = this.#heldStore!.subarray(0, held.length + finish);
    whole.set(bytes.subarray(0, finish), held.length);
    this.#held = undefined;
    this.#skipped += whole.length + skip.from;
    this.#feed(attributesAtEnd(whole));
    this.#feed(skip.prelude);
    const kept = rest.subarray(skip.from);
    if (!(skip.clean && this.#hold(kept, skip.unfinished))) this.#parse(kept);
    return true;
  }

  /**
   * How many bytes at the start of `bytes` finish the held bytes' unfinished
   * piece (or the LF of their last CR), or -1 when they do not finish it.
   */
  #heldFinish(bytes: Uint8Array): number {
    const held = this.#held!;
    // Without an unfinished piece, the parser would stand where the held bytes end in its
    // ground state (they are whole sequences), with no character begun.
    if (this.#heldUnfinished > 0) {
      return completion(held.subarray(held.length - this.#heldUnfinished), bytes) || -1;
    }
    return held[held.length - 1] === CR && bytes[0] === LF ? 1 : 0;
  }

  /** Holds clean `bytes` after the held ones when there is room; returns whether it did. */
  #holdMore(bytes: Uint8Array, unfinished: number): boolean {
    if (this.#held!.length + bytes.length > MAX_HELD) this.#trimHeld();
    const held = this.#held!;
    if (held.length + bytes.length > MAX_HELD) return false;
    this.#heldStore!.set(bytes, held.length);
    this.#held = this.#heldStore!.subarray(0, held.length + bytes.length);
    this.#heldUnfinished = unfinished;
    return true;
  }

  /**
   * Drops the held lines that the held lines after them scroll out of the
   * scrollback (their attributes carry over), as a chunk's are skipped.
   */
  #trimHeld(): void {
    const held = this.#held!;
    const skip = linesToSkip(held, this.#linesKept());
    if (skip.from === 0) return;
    this.#feed(skip.prelude);
    this.#skipped += skip.from;
    this.#heldStore!.copyWithin(0, skip.from, held.length);
    this.#held = this.#heldStore!.subarray(0, held.length - skip.from);
  }

  /** Holds `bytes` (a copy) unparsed when small enough; returns whether it did. */
  #hold(bytes: Uint8Array, unfinished: number): boolean {
    if (bytes.length > MAX_HELD) return false;
    this.#heldStore ??= new Uint8Array(MAX_HELD + MAX_SGR);
    this.#heldStore.set(bytes);
    this.#held = this.#heldStore.subarray(0, bytes.length);
    this.#heldUnfinished = unfinished;
    return true;
  }

  /** Parses the held lines, if any: before every read of the rows, the cursor or a resize. */
  #parseHeld(): void {
    if (this.#held === undefined) return;
    this.#trimHeld();
    const held = this.#held;
    this.#held = undefined;
    this.#parse(held);
  }

  #parse(bytes: Uint8Array | string): void {
    this.#feed(bytes);
    if (bytes.length > 0) this.#lastByte = typeof bytes === "string" ? 0 : bytes[bytes.length - 1];
  }

  /**
   * Hands bytes to xterm's parser, each UTF-8 character whole: one that a
   * chunk ends in the middle of waits for the rest, which is parsed with it
   * and what follows (see utf8_edges.ts; xterm would keep it too, and lose
   * some). Should xterm throw (a bug a program's output reached; see
   * `xterm_fixes.ts` for those known), the rest of the chunk is lost to the
   * screen, not to the logs: the parser goes back to its ground state, the
   * screen gets all its rows, and `takeFailure` says what happened; the
   * emulator goes on with the next chunk.
   */
  #feed(data: Uint8Array | string): void {
    const cut = this.#cutChar;
    this.#cutChar = undefined;
    if (typeof data === "string") {
      if (cut !== undefined) this.#parseWhole(cut); // As it was: a string holds no rest of it.
      this.#parseWhole(data);
      return;
    }
    if (cut !== undefined) {
      const joined = new Uint8Array(cut.length + data.length);
      joined.set(cut);
      joined.set(data, cut.length);
      data = joined;
    }
    const end = unfinishedCharStart(data);
    if (end < data.length) this.#cutChar = data.slice(end);
    // Slices of at most xterm's own (it cuts a longer call into 128 KiB slices, anywhere).
    for (let at = 0; at < end;) {
      const sliceEnd = end - at <= XTERM_SLICE
        ? end
        : at + unfinishedCharStart(data.subarray(at, at + XTERM_SLICE));
      this.#parseWhole(data.subarray(at, sliceEnd));
      at = sliceEnd;
    }
  }

  /** Hands xterm's parser bytes that end on a character's edge (see `#feed`). */
  #parseWhole(data: Uint8Array | string): void {
    if (data.length === 0) return;
    const handler = this.#core._inputHandler;
    try {
      this.#rowTexts.write(() => handler.parse(data));
    } catch (error) {
      this.#rowTexts.forget();
      handler._parser?.reset?.();
      fillScreenRows(this.#core.buffer, this.#term.rows);
      this.#failure ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
  }

  /** What xterm failed on since the last call (see `#feed`), once; undefined when nothing. */
  takeFailure(): string | undefined {
    const failure = this.#failure;
    this.#failure = undefined;
    return failure;
  }

  /** Bytes at the end of the output that wait for the rest of their UTF-8 character (see `#feed`). */
  get unfinishedBytes(): number {
    this.#parseHeld();
    return this.#cutChar?.length ?? 0;
  }

  /** Bytes of lines not parsed because they would have scrolled out unseen. */
  get skippedBytes(): number {
    return this.#skipped;
  }

  /**
   * How many of a chunk's last lines a skip keeps: enough to fill the
   * scrollback and the screen, plus a screen more. The cursor may stand
   * above the bottom row (a fresh or cleared screen, a resize to more rows):
   * the first kept lines then overwrite the rows below it, which keep what
   * was written there before, and must scroll out as the skipped lines
   * would have made them.
   */
  #linesKept(): number {
    return 2 * this.#term.rows + this.#scrollback;
  }

  /**
   * Whether skipping lines leaves the same screen: the parser is in its
   * ground state with no UTF-8 character begun, the normal screen scrolls as
   * a whole (no scroll region) and characters replace (no insert mode).
   */
  #canSkip(): boolean {
    const core = this.#core;
    const buffer = core.buffer;
    return this.#lastByte < 0x80 && core._inputHandler._parser?.currentState === 0 &&
      !this.altScreen && buffer.scrollTop === 0 && buffer.scrollBottom === this.#term.rows - 1 &&
      !core.coreService.modes.insertMode;
  }

  /**
   * The visible screen as ANSI text: its characters with the colours and
   * attributes they have (SGR sequences), rows separated by CR LF, as xterm's
   * serializer writes them (`@xterm/addon-serialize`, loaded on first use).
   */
  ansiScreen(): string {
    this.#parseHeld();
    const alternate = this.altScreen;
    const text = this.#serializerAddon().serialize({
      scrollback: 0,
      excludeModes: true,
      excludeAltBuffer: !alternate,
    });
    return alternate
      ? text.slice(text.lastIndexOf(TO_ALTERNATE_SCREEN) + TO_ALTERNATE_SCREEN.length)
      : text;
  }

  /**
   * The whole state as text that rebuilds it in another xterm.js of the same
   * size: up to `scrollback` lines of scrollback, both screens, the cursor and
   * the modes (xterm's serializer, `@xterm/addon-serialize`).
   */
  serialize(scrollback: number): string {
    this.#parseHeld();
    return this.#serializerAddon().serialize({ scrollback });
  }

  #serializerAddon(): SerializeAddon {
    if (this.#serializer === undefined) {
      this.#serializer = new SerializeAddon();
      this.#term.loadAddon(this.#serializer);
    }
    return this.#serializer;
  }

  /** Changes the size; lines re-wrap as in xterm. */
  resize(cols: number, rows: number): void {
    this.#parseHeld();
    beforeResize(this.#core);
    this.#term.resize(cols, rows);
    afterResize(this.#core, rows);
    this.#rowTexts.forget();
  }

  /** Empties the screen and the scrollback and homes the cursor; modes are kept. */
  clear(): void {
    this.write("\x1b[H\x1b[2J\x1b[3J");
  }

  /** How many rows' texts are kept between reads (see row_texts.ts): a bound tests check. */
  get keptRowTexts(): number {
    return this.#rowTexts.size;
  }

  /** Lines of the screen (see `readLines`). */
  lines(scope: ScreenScope, joinWrapped = false): string[] {
    this.#parseHeld();
    return readLines(
      this.#term.buffer.active,
      this.#term.rows,
      scope,
      joinWrapped,
      (y, line) => this.#rowTexts.text(y, line),
    );
  }

  get cols(): number {
    return this.#term.cols;
  }

  get rows(): number {
    return this.#term.rows;
  }

  get cursor(): Cursor {
    this.#parseHeld();
    const buffer = this.#term.buffer.active;
    return { x: buffer.cursorX, y: buffer.cursorY };
  }

  /** Whether a full-screen program switched to the alternate screen. */
  get altScreen(): boolean {
    return this.#term.buffer.active.type === "alternate";
  }

  /** The window title the program set (OSC 0/2), or "". */
  get title(): string {
    return this.#title;
  }

  /** The input and display modes the program set (see `TerminalModes`). */
  get modes(): TerminalModes {
    const modes = this.#term.modes;
    return {
      applicationCursorKeys: modes.applicationCursorKeysMode,
      applicationKeypad: modes.applicationKeypadMode,
      bracketedPaste: modes.bracketedPasteMode,
      mouseTracking: modes.mouseTrackingMode,
      mouseEncoding: mouseEncoding(this.#core.coreMouseService.activeEncoding),
      sendFocus: modes.sendFocusMode,
      cursorHidden: this.#core.coreService.isCursorHidden,
    };
  }

  /** DECCKM: arrows send `ESC O A` instead of `ESC [ A`. */
  get applicationCursorKeys(): boolean {
    return this.#term.modes.applicationCursorKeysMode;
  }

  /** Whether the program asked for pasted text to be bracketed. */
  get bracketedPaste(): boolean {
    return this.#term.modes.bracketedPasteMode;
  }

  /** Frees xterm's terminal and its pending timers. */
  dispose(): void {
    beforeDispose(this.#core);
    this.#term.dispose();
  }
}

function mouseEncoding(name: string): MouseEncoding {
  return name === "SGR" || name === "SGR_PIXELS" ? name : "DEFAULT";
}
