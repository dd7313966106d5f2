/**
 * Plain text from a raw terminal output stream, for views that show output
 * without emulating a screen.
 * @module
 */

const TAB = 0x09;
const LF = 0x0a;
const CAN = 0x18;
const SUB = 0x1a;
const ESC = 0x1b;
const DEL = 0x7f;
const BACKSLASH = 0x5c;
const C1_DCS = 0x90;
const C1_SOS = 0x98;
const C1_CSI = 0x9b;
const C1_OSC = 0x9d;
const C1_PM = 0x9e;
const C1_APC = 0x9f;

/** Parser states, after the VT500 parser (states that only differ in what they keep are merged). */
const GROUND = 0;
/** After ESC. */
const ESCAPE = 1;
/** After ESC and one or more intermediates (0x20-0x2F), as in `ESC ( B`. */
const ESCAPE_INTERMEDIATE = 2;
/** After `ESC [` or U+009B, until a final byte (0x40-0x7E). */
const CSI = 3;
/** Inside an OSC string, ended by BEL or ST. */
const OSC_STRING = 4;
/** Inside a DCS, SOS, PM or APC string, ended by ST only. */
const CONTROL_STRING = 5;
/** After ESC inside a string: `\` ends the string, anything else aborts it and starts a new escape. */
const STRING_ESCAPE = 6;
/** The same after ESC inside an OSC string (whose end is reported as a mark). */
const OSC_ESCAPE = 7;

/**
 * OSC strings longer than this (clipboard, images) are not reported as marks.
 * A shell's typed-line request, with the line and the aliases, fits.
 */
export const OSC_MARK_CAP = 256 * 1024;
/** ASCII bytes as a string (never given anything else: "latin1" is windows-1252 above 0x7f). */
const ascii = new TextDecoder("latin1");

/** An OSC string found in the stream and where it was in the plain text. */
export interface OscMark {
  /** The string between `ESC ]` and its terminator, e.g. `"133;D;0"`. */
  osc: string;
  /**
   * Plain text before it, counted since the marks were last taken: in
   * characters (UTF-16 code units) after `push`, in UTF-8 bytes after `pushInto`.
   */
  at: number;
}

/** Where `pushInto` writes plain text (an `OutputLog` is one). */
export interface TextSink {
  /** Takes UTF-8 bytes; they may be a view of a buffer that is reused at once. */
  append(bytes: Uint8Array): void;
  /** Takes text; returns how many UTF-8 bytes it was. */
  appendText(text: string): number;
}

/** `pushInto` strips ASCII output a piece of this size at a time, in one shared buffer. */
const PIECE = 64 * 1024;
const piece = new Uint8Array(PIECE);

/** `piece` four bytes at a time, for `textRunEnd`. */
const pieceWords = new Uint32Array(piece.buffer);

/**
 * Where the run of text that starts at `start` in `piece` ends: the index of
 * the first byte in `ENDS_TEXT`, or `length`. Whole words are tested four
 * bytes at a time (any byte below 0x20, equal to 0x7f or from 0x80 up).
 */
function textRunEnd(start: number, length: number): number {
  let i = start;
  while (i < length && (i & 3) !== 0) {
    if (ENDS_TEXT[piece[i]] === 1) return i;
    i++;
  }
  while (i + 4 <= length) {
    const word = pieceWords[i >>> 2];
    const low = (word - 0x20202020) & ~word; // bytes below 0x20 (and bytes from 0x80 up)
    const del = (word ^ 0x7f7f7f7f) - 0x01010101 & ~(word ^ 0x7f7f7f7f); // bytes equal to 0x7f
    if (((low | del | word) & 0x80808080) !== 0) break;
    i += 4;
  }
  while (i < length && ENDS_TEXT[piece[i]] === 0) i++;
  return i;
}

/**
 * Where a CSI sequence whose parameters start at `start` in `piece` ends
 * (the index after its final byte), when it is complete and holds nothing
 * but parameter and intermediate bytes; else -1, and the state machine
 * takes it (controls inside, a sequence cut by the end of the piece).
 */
function completeCsiEnd(start: number, length: number): number {
  for (let i = start; i < length; i++) {
    const code = piece[i];
    if (code >= 0x20 && code < 0x40) continue;
    return code >= 0x40 && code < DEL ? i + 1 : -1;
  }
  return -1;
}

/** Moves `piece[from, end)` down to `to` (short runs by hand: the call costs more than they do). */
function moveDown(to: number, from: number, end: number): void {
  if (end - from > 32) {
    piece.copyWithin(to, from, end);
    return;
  }
  while (from < end) piece[to++] = piece[from++];
}

/** What `#runAscii` returns when the piece was not all ASCII after all. */
const NOT_ASCII = -1;

/** Bytes that end a run of text in the ground state: C0 controls but tab and LF, DEL, non-ASCII. */
const ENDS_TEXT = Uint8Array.from(
  { length: 256 },
  (_, code) => (code < 0x20 ? code !== LF && code !== TAB : code >= DEL) ? 1 : 0,
);

/** UTF-8 bytes of `text`'s first `end` code units (a lone surrogate counts as U+FFFD). */
function utf8Length(text: string, end: number = text.length): number {
  let bytes = end;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < end) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2; // four bytes for two code units
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

type State = number;

/**
 * What the fast path removes in one native pass from text in the ground state:
 * complete CSI sequences, complete escape sequences other than string
 * introducers, and carriage returns. (A regex that starts with few distinct
 * characters lets V8, Deno's engine, skip ahead quickly; one led by a
 * character class scans at a fraction of the speed. Other controls have
 * their own pass.)
 */
const SEQUENCE =
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  /\x1b(?:\[[\x20-\x3f]*[\x40-\x7e]|[\x20-\x2f]+[\x30-\x7e]|[\x30-\x4f\x51-\x57\x59\x5a\x5c\x60-\x7e])|\r/g;
// deno-lint-ignore no-control-regex -- matching control characters is the point
const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/**
 * Left after the fast pass only where the text needs the state machine: a
 * string (OSC, DCS, ...), a malformed or unfinished sequence, a C1 control.
 */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const NEEDS_STATE = /[\x1b\x80-\x9f]/;
/** Controls dropped in the ground state (all C0 but tab, line feed and ESC; DEL). */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const GROUND_CONTROL = /[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g;
// deno-lint-ignore no-control-regex -- matching control characters is the point
const GROUND_SPECIAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
// deno-lint-ignore no-control-regex -- matching control characters is the point
const OSC_END = /[\x07\x18\x1a\x1b\x9c]/g;
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL_STRING_END = /[\x18\x1a\x1b\x9c]/g;

/** The state a C1 control (U+0080-U+009F) leads to: introducers start their sequence, the rest are dropped. */
function afterC1(code: number): State {
  switch (code) {
    case C1_CSI:
      return CSI;
    case C1_OSC:
      return OSC_STRING;
    case C1_DCS:
    case C1_SOS:
    case C1_PM:
    case C1_APC:
      return CONTROL_STRING;
    default:
      return GROUND;
  }
}

/** The state after the character following ESC (printable ASCII only). */
function afterEscape(code: number): State {
  switch (code) {
    case 0x5b: // [
      return CSI;
    case 0x5d: // ]
      return OSC_STRING;
    case 0x50: // P
    case 0x58: // X
    case 0x5e: // ^
    case 0x5f: // _
      return CONTROL_STRING;
    default:
      return code < 0x30 ? ESCAPE_INTERMEDIATE : GROUND;
  }
}

/**
 * Turns a raw terminal output stream into plain text: decodes UTF-8 as a
 * stream and removes control sequences, carrying state across chunks, so that
 * the text does not depend on how the stream was split into reads.
 *
 * Removed: CSI sequences (also private ones such as `ESC [ ? 1049 h`), OSC
 * strings (ended by BEL or ST), DCS/SOS/PM/APC strings (ended by ST), other
 * escape sequences (`ESC ( B`, `ESC =`, `ESC 7`, ...), their 8-bit C1 forms,
 * and every C0 control except tab and line feed. `"\r\n"` becomes `"\n"` and a
 * lone `"\r"` is removed, which is the same as removing every `"\r"`. As in a
 * terminal, CAN and SUB abort a sequence, an ESC inside one starts a new one,
 * and tab and line feed inside a CSI or plain escape sequence still count.
 *
 * @example
 * ```ts
 * const stream = new PlainTextStream();
 * const encoder = new TextEncoder();
 * stream.push(encoder.encode("\x1b[1;3")); // ""
 * stream.push(encoder.encode("1mred\x1b[0m\r")); // "red"
 * stream.push(encoder.encode("\n")); // "\n"
 * stream.end(); // ""
 * ```
 */
export class PlainTextStream {
  #decoder = new TextDecoder();
  #state: State = GROUND;
  /** The OSC string being read, or undefined outside one (or past the cap). */
  #osc: string | undefined;
  #marks: OscMark[] = [];
  /** Characters of text returned since the marks were last taken: the base of new marks' offsets. */
  #pendingOffset = 0;
  /** UTF-8 bytes `pushInto` wrote since the marks were last taken. */
  #pendingBytes = 0;
  /** Whether the decoder may hold the start of a character (the last chunk it saw ended in one). */
  #decoderPending = false;

  /**
   * Takes the next chunk of the stream.
   *
   * @param bytes Raw output bytes; may end inside a character or a sequence.
   * @returns The plain text this chunk completes (may be empty).
   */
  push(bytes: Uint8Array): string {
    return this.#strip(this.#decoder.decode(bytes, { stream: true }));
  }

  /**
   * Takes the next chunk of the stream and writes the plain text it completes
   * to `out` as UTF-8: the same bytes as `out.append(encode(push(bytes)))`,
   * but output that is all ASCII (the common flood) is stripped byte by byte
   * in a shared buffer, without making strings. OSC marks taken after it
   * count UTF-8 bytes. Use either this or `push` between two `takeOscMarks`.
   *
   * @param bytes Raw output bytes; may end inside a character or a sequence.
   * @param out Where the plain text goes.
   */
  pushInto(bytes: Uint8Array, out: TextSink): void {
    if (this.#decoderPending) {
      this.#pushDecoded(bytes, out);
      return;
    }
    for (let from = 0; from < bytes.length; from += PIECE) {
      const length = Math.min(PIECE, bytes.length - from);
      piece.set(
        from === 0 && length === bytes.length ? bytes : bytes.subarray(from, from + length),
      );
      const before = { state: this.#state, osc: this.#osc, marks: this.#marks.length };
      const kept = this.#runAscii(length);
      if (kept === NOT_ASCII) {
        // Undo this piece and take the rest through the decoder.
        this.#state = before.state;
        this.#osc = before.osc;
        this.#marks.length = before.marks;
        this.#pushDecoded(from === 0 ? bytes : bytes.subarray(from), out);
        return;
      }
      if (kept > 0) out.append(piece.subarray(0, kept));
      this.#pendingBytes += kept;
    }
  }

  /** `pushInto` for output that is not all ASCII: through `push`, marks converted to bytes. */
  #pushDecoded(bytes: Uint8Array, out: TextSink): void {
    const firstMark = this.#marks.length;
    const offset = this.#pendingOffset;
    this.#pendingOffset = 0;
    const text = this.push(bytes);
    this.#pendingOffset = offset;
    for (let i = firstMark; i < this.#marks.length; i++) {
      const mark = this.#marks[i];
      mark.at = this.#pendingBytes + utf8Length(text, mark.at);
    }
    if (text !== "") this.#pendingBytes += out.appendText(text);
    this.#decoderPending = bytes.length > 0 && bytes[bytes.length - 1] >= 0x80;
  }

  /**
   * Ends the stream: an incomplete character at the end becomes U+FFFD and an
   * unfinished sequence is dropped. The stream can then be used again.
   *
   * @returns The plain text that was still pending (often empty).
   */
  end(): string {
    const text = this.#strip(this.#decoder.decode());
    this.#state = GROUND;
    this.#decoderPending = false;
    return text;
  }

  /**
   * Returns the OSC strings (`"133;C"`, `"7;file://host/dir"`) completed by the
   * chunks pushed since the last call, each with its position in the text
   * those chunks returned (concatenated), and forgets them.
   */
  takeOscMarks(): OscMark[] {
    const marks = this.#marks;
    this.#marks = [];
    this.#pendingOffset = 0;
    this.#pendingBytes = 0;
    return marks;
  }

  /**
   * Removes control characters and sequences from `text`, continuing from the
   * saved state: by one native replace when the text holds only what that can
   * remove (the common case, escape-coloured output included), else by the
   * state machine.
   */
  #strip(text: string): string {
    let head = "";
    let from = 0;
    if (this.#state !== GROUND) {
      // A read that ended inside a sequence: finish it, then go fast again.
      const finished = this.#run(text, true);
      if (this.#state !== GROUND) return finished.text; // The whole text was inside it.
      head = finished.text;
      from = finished.end;
    }
    const rest = from === 0 ? text : text.slice(from);
    let stripped = rest.replace(SEQUENCE, "");
    if (ANY_CONTROL.test(stripped)) {
      if (NEEDS_STATE.test(stripped)) return head + this.#run(rest, false).text;
      stripped = stripped.replace(GROUND_CONTROL, "");
    }
    this.#pendingOffset += stripped.length;
    return head === "" ? stripped : head + stripped;
  }

  /**
   * The state machine: strips `text` one sequence at a time, reporting OSC
   * strings as marks.
   *
   * @param toGround Stop as soon as the state is back to ground.
   * @returns The text it kept and, with `toGround`, the index where the
   *   ground state resumed (otherwise the text was taken whole).
   */
  #run(text: string, toGround: boolean): { text: string; end: number } {
    const pieces: string[] = [];
    let produced = 0;
    const emit = (piece: string) => {
      pieces.push(piece);
      produced += piece.length;
    };
    const length = text.length;
    let state = this.#state;
    let i = 0;
    while (i < length) {
      if (state === GROUND) {
        if (toGround) break;
        // The fast path: copy runs of text up to the next control character.
        GROUND_SPECIAL.lastIndex = i;
        const match = GROUND_SPECIAL.exec(text);
        const next = match === null ? length : match.index;
        if (next > i) emit(i === 0 && next === length ? text : text.slice(i, next));
        if (next === length) break;
        const code = text.charCodeAt(next);
        state = code === ESC ? ESCAPE : code >= 0x80 ? afterC1(code) : GROUND;
        if (state === OSC_STRING) this.#osc = "";
        i = next + 1;
      } else if (state === OSC_STRING || state === CONTROL_STRING) {
        // Strings can be long (OSC 52, sixel): search for the end instead of stepping.
        const end = state === OSC_STRING ? OSC_END : CONTROL_STRING_END;
        end.lastIndex = i;
        const match = end.exec(text);
        if (state === OSC_STRING) this.#collectOsc(text.slice(i, match?.index ?? length));
        if (match === null) break;
        const terminator = text.charCodeAt(match.index);
        if (state === OSC_STRING && (terminator === 0x07 || terminator === 0x9c)) {
          this.#finishOsc(this.#pendingOffset + produced);
        }
        if (terminator !== ESC && state === OSC_STRING) this.#osc = undefined;
        state = terminator === ESC ? (state === OSC_STRING ? OSC_ESCAPE : STRING_ESCAPE) : GROUND;
        i = match.index + 1;
      } else if (state === STRING_ESCAPE || state === OSC_ESCAPE) {
        if (text.charCodeAt(i) === BACKSLASH) {
          if (state === OSC_ESCAPE) this.#finishOsc(this.#pendingOffset + produced);
          state = GROUND;
          i++;
        } else {
          state = ESCAPE; // the string was aborted; this character follows a new ESC
        }
        this.#osc = undefined;
      } else {
        const code = text.charCodeAt(i++);
        if (code >= 0x20 && code < DEL) {
          if (state === ESCAPE) {
            state = afterEscape(code);
            if (state === OSC_STRING) this.#osc = "";
          } else if (state === ESCAPE_INTERMEDIATE) state = code < 0x30 ? state : GROUND;
          else state = code < 0x40 ? state : GROUND; // CSI: parameters, intermediates, final
        } else if (code === ESC) {
          state = ESCAPE;
        } else if (code === CAN || code === SUB) {
          state = GROUND;
        } else if (code === LF || code === TAB) {
          emit(code === LF ? "\n" : "\t");
        } else if (code >= 0x80 && code <= C1_APC) {
          state = afterC1(code);
          if (state === OSC_STRING) this.#osc = "";
        } else if (code > C1_APC) {
          state = GROUND; // text ends a malformed sequence and is kept
          i--;
        }
        // Other C0 controls and DEL inside a sequence are ignored.
      }
    }
    this.#state = state;
    this.#pendingOffset += produced;
    return { text: pieces.length === 1 ? pieces[0] : pieces.join(""), end: i };
  }

  /**
   * The state machine of `#run` for ASCII bytes (where a byte is its code
   * unit), stripping the first `length` bytes of `piece` in place.
   *
   * @returns How many bytes of plain text it left at the start of `piece`,
   *   or `NOT_ASCII` when it met a byte >= 0x80 (then the state is half-way).
   */
  #runAscii(length: number): number {
    let state = this.#state;
    let i = 0;
    let kept = 0;
    while (i < length) {
      if (state === GROUND) {
        // Runs of text move down over what was dropped; C0 controls but tab and LF, and DEL, end them.
        const end = textRunEnd(i, length);
        if (end > i) {
          if (kept !== i) moveDown(kept, i, end);
          kept += end - i;
        }
        if (end === length) break;
        const code = piece[end];
        if (code >= 0x80) return NOT_ASCII;
        i = end + 1;
        if (code !== ESC) continue;
        const csiEnd = piece[i] === 0x5b ? completeCsiEnd(i + 1, length) : -1;
        if (csiEnd < 0) state = ESCAPE;
        else i = csiEnd; // the common colour change, skipped whole
      } else if (state === OSC_STRING || state === CONTROL_STRING) {
        let end = i;
        for (; end < length; end++) {
          const code = piece[end];
          if (code >= 0x80) return NOT_ASCII;
          if (code === ESC || code === CAN || code === SUB) break;
          if (code === 0x07 && state === OSC_STRING) break;
        }
        if (state === OSC_STRING && this.#osc !== undefined) {
          // Past the cap it is dropped anyway: never make a long string of it.
          this.#osc = this.#osc.length + end - i > OSC_MARK_CAP
            ? undefined
            : this.#osc + ascii.decode(piece.subarray(i, end));
        }
        if (end === length) {
          i = length;
          break;
        }
        const terminator = piece[end];
        if (state === OSC_STRING && terminator === 0x07) this.#finishOsc(this.#pendingBytes + kept);
        if (terminator !== ESC && state === OSC_STRING) this.#osc = undefined;
        state = terminator === ESC ? (state === OSC_STRING ? OSC_ESCAPE : STRING_ESCAPE) : GROUND;
        i = end + 1;
      } else if (state === STRING_ESCAPE || state === OSC_ESCAPE) {
        if (piece[i] === BACKSLASH) {
          if (state === OSC_ESCAPE) this.#finishOsc(this.#pendingBytes + kept);
          state = GROUND;
          i++;
        } else {
          state = ESCAPE; // the string was aborted; this character follows a new ESC
        }
        this.#osc = undefined;
      } else {
        const code = piece[i++];
        if (code >= 0x20 && code < DEL) {
          if (state === ESCAPE) {
            state = afterEscape(code);
            if (state === OSC_STRING) this.#osc = "";
          } else if (state === ESCAPE_INTERMEDIATE) state = code < 0x30 ? state : GROUND;
          else state = code < 0x40 ? state : GROUND; // CSI: parameters, intermediates, final
        } else if (code >= 0x80) {
          return NOT_ASCII;
        } else if (code === ESC) {
          state = ESCAPE;
        } else if (code === CAN || code === SUB) {
          state = GROUND;
        } else if (code === LF || code === TAB) {
          piece[kept++] = code; // kept < i: it never overtakes what is still to be read
        }
        // Other C0 controls and DEL inside a sequence are ignored.
      }
    }
    this.#state = state;
    return kept;
  }

  #collectOsc(piece: string): void {
    if (this.#osc === undefined) return;
    this.#osc = this.#osc.length + piece.length > OSC_MARK_CAP ? undefined : this.#osc + piece;
  }

  #finishOsc(at: number): void {
    if (this.#osc !== undefined) this.#marks.push({ osc: this.#osc, at });
    this.#osc = undefined;
  }
}
