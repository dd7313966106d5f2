import assert from "node:assert/strict";
import { Emulator } from "../../lib/terminal/emulator.ts";
import { completion, linesToSkip } from "../../lib/terminal/flood_skip.ts";
import { describe, it } from "../harness.ts";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

const decoder = new TextDecoder();
/** Where parsing may start. */
const skipFrom = (chunk: Uint8Array, keep: number) => linesToSkip(chunk, keep).from;

/**
 * A flood of `blocks` blocks of lines (seeded): attributes carried from line
 * to line (resets, backgrounds that fill new rows, underline, 256 and RGB
 * colours), the kinds that end the skippable start, raw-mode line feeds,
 * wide characters, and between blocks scroll regions, insert mode, the
 * alternate screen, titles split by chunks and lone bytes.
 */
function floodStream(blocks: number, random: (n: number) => number): Uint8Array {
  const colours = [
    "\x1b[0m",
    "\x1b[m",
    "\x1b[41m",
    "\x1b[1;4m",
    "\x1b[;7m",
    "\x1b[48;5;22m",
    "\x1b[38;2;1;2;3m",
    "\x1b[0;44m",
    "\x1b[24m",
  ];
  const enders = ["\x1b[58;5;3m", "\x1b[59m", "\x1b[4:3m", "\u009b32m", "\x1b[>4;1m"];
  const pieces: string[] = [];
  for (let block = 0; block < blocks; block++) {
    const kind = random(12);
    const count = 50 + random(400);
    for (let i = 0; i < count; i++) {
      const line = `${block}:${i}:${"abcdefghij".repeat(random(12))}`; // Some wrap.
      if (kind === 0) pieces.push(`\x1b[3${random(8)}m${line}\x1b[0m\r\n`);
      else if (kind === 9) pieces.push(`${colours[random(colours.length)]}${line}\r\n`);
      else if (kind === 10) pieces.push(`\t${line}\t界${colours[random(colours.length)]}x\r\n`);
      else if (kind === 11) {
        const colour = random(30) === 0
          ? enders[random(enders.length)]
          : colours[random(colours.length)];
        pieces.push(`${colour}${line}\r\n`);
      } else if (kind === 1) pieces.push(`${line}\n`); // Raw mode: a staircase.
      else if (kind === 2) pieces.push(`é ${line}\r\n`);
      else pieces.push(`${line}\r\n`);
    }
    if (kind === 3) pieces.push("\x1b[2;5r"); // A scroll region...
    if (kind === 4) pieces.push("\x1b[r"); // ...and none.
    if (kind === 5) pieces.push("\x1b[4h"); // Insert mode...
    if (kind === 6) pieces.push("\x1b[4l"); // ...and replace.
    if (kind === 7) pieces.push("\x1b[?1049h");
    if (kind === 8) pieces.push("\x1b[?1049l");
    if (random(3) === 0) pieces.push(`\x1b]0;title ${block}\x07`); // Split by chunks.
    if (random(4) === 0) pieces.push("\xe4".slice(0, 1)); // A lone Latin-1 char as UTF-8.
  }
  return bytes(pieces.join(""));
}

/** A seeded pseudo-random `random(n)` in [0, n). */
function seeded(seed: number): (n: number) => number {
  return (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
}

describe("emulator: lines that scroll out of the scrollback are skipped", () => {
  it("linesToSkip: where parsing may start, table-driven", () => {
    const lines = (n: number, text = "y") => `${text}\r\n`.repeat(n);
    const cases: { name: string; chunk: string; keep: number; expected: number }[] = [
      { name: "fewer lines than kept", chunk: lines(10), keep: 10, expected: 0 },
      { name: "one more than kept plus one", chunk: lines(12), keep: 10, expected: 3 },
      { name: "many short lines", chunk: lines(100), keep: 10, expected: 3 * 89 },
      {
        name: "a LF without CR ends the plain start",
        chunk: "y\n" + lines(100),
        keep: 10,
        expected: 0,
      },
      {
        name: "an SGR is carried over",
        chunk: "\x1b[31m" + lines(100),
        keep: 10,
        expected: 5 + 3 * 89,
      },
      { name: "a reset too", chunk: "\x1b[m" + lines(100), keep: 10, expected: 3 + 3 * 89 },
      { name: "UTF-8 is text", chunk: "é\r\n" + lines(100), keep: 10, expected: 4 + 3 * 89 },
      { name: "a tab is text", chunk: "\t" + lines(100), keep: 10, expected: 1 + 3 * 89 },
      { name: "a C1 control ends it", chunk: "\u009b" + lines(100), keep: 10, expected: 0 },
      { name: "a lone continuation byte", chunk: "\x80" + lines(100), keep: 10, expected: 0 },
      { name: "cursor movement ends it", chunk: "\x1b[2J" + lines(100), keep: 10, expected: 0 },
      {
        name: "a private CSI ending in m",
        chunk: "\x1b[>4;2m" + lines(100),
        keep: 10,
        expected: 0,
      },
      { name: "a colon sub-parameter", chunk: "\x1b[4:3m" + lines(100), keep: 10, expected: 0 },
      { name: "underline colour 58", chunk: "\x1b[58;5;1m" + lines(100), keep: 10, expected: 0 },
      { name: "underline colour off 59", chunk: "\x1b[1;59m" + lines(100), keep: 10, expected: 0 },
      { name: "58 as a colour index", chunk: "\x1b[38;5;58m" + lines(100), keep: 10, expected: 0 },
      { name: "a BEL ends it", chunk: "\x07" + lines(100), keep: 10, expected: 0 },
      {
        name: "only the plain start counts",
        chunk: lines(20) + "\x1b[2J" + lines(100),
        keep: 10,
        expected: 3 * 9,
      },
      { name: "a partial last line", chunk: lines(20) + "yy", keep: 10, expected: 3 * 9 },
    ];
    for (const { name, chunk, keep, expected } of cases) {
      assert.equal(skipFrom(bytes(chunk), keep), expected, name);
    }
  });

  it("linesToSkip: any byte at any place of a word, at any alignment, counts as the byte loop says", () => {
    // Runs of printable ASCII are passed four bytes at a time: a byte that is not printable
    // (a control, DEL, a lone byte from 0x80 up) must still end the skippable start, and a
    // tab or a CR must not.
    const line = "0123456789abcdef\r\n";
    const before = 30;
    const keep = 10;
    const ends = (code: number) => code < 0x20 ? code !== 0x09 && code !== 0x0d : code >= 0x7f;
    for (let code = 0; code < 0x100; code++) {
      if (code === 0x0a || code === 0x1b) continue; // A line feed and an escape have their own cases.
      for (let column = 0; column < 8; column++) {
        const marked = line.slice(0, column) + String.fromCharCode(code) + line.slice(column);
        const text = line.repeat(before) + marked + line.repeat(100);
        // Ended: the lines before the marked one count; else all of them do (the marked one is
        // a byte longer).
        const expected = ends(code)
          ? (before - keep - 1) * line.length
          : (before + 101 - keep - 1) * line.length + 1;
        for (let offset = 0; offset < 4; offset++) {
          const buffer = new Uint8Array(offset + text.length);
          for (let i = 0; i < text.length; i++) buffer[offset + i] = text.charCodeAt(i);
          const chunk = buffer.subarray(offset);
          assert.equal(
            skipFrom(chunk, keep),
            expected,
            `byte ${code} at column ${column}, offset ${offset}`,
          );
        }
      }
    }
  });

  it("linesToSkip: the prelude carries the attributes from the last reset, and a CR LF", () => {
    const lines = (n: number, line: string) => `${line}\r\n`.repeat(n);
    const prelude = (chunk: string) => decoder.decode(linesToSkip(bytes(chunk), 10).prelude);
    assert.equal(prelude(lines(100, "y")), "\r\n");
    assert.equal(
      prelude("\x1b[1m" + lines(100, "y\x1b[31mr")),
      "\x1b[1m" + "\x1b[31m".repeat(89) + "\r\n",
    );
    assert.equal(prelude(lines(100, "\x1b[0my\x1b[44mb")), "\x1b[0m\x1b[44m\r\n");
    assert.equal(prelude(lines(100, "\x1b[;1my\x1b[m")), "\x1b[m\r\n");
    assert.equal(prelude(lines(100, "\x1b[0;1my\x1b[4m")), "\x1b[0;1m\x1b[4m\r\n");
    assert.equal(prelude(lines(100, "\x1b[00m\x1b[7m")), "\x1b[00m\x1b[7m\r\n");
  });

  it("linesToSkip judges a large chunk by its first 4 KiB's line density", () => {
    const chunk = (...parts: [string, number][]) =>
      bytes(parts.map(([line, n]) => `${line}\r\n`.repeat(n)).join(""));
    const long = "x".repeat(99);
    // 64 KiB of 99-character lines: about 650 lines, fewer than 1040 kept: nothing to skip.
    assert.equal(skipFrom(chunk([long, 650]), 1040), 0);
    // 64 KiB of `yes`: all but the last 1041 lines go.
    assert.equal(skipFrom(chunk(["y", 21000]), 1040), 3 * (21000 - 1041));
    // Dense enough at the start: the whole plain start still counts.
    assert.equal(skipFrom(chunk(["y", 2000], [long, 200]), 1040), 3 * (2000 + 200 - 1041));
    // Long lines first, short ones after: judged too sparse, parsed whole (a saving missed, the
    // screen the same, as the test below checks for random floods).
    assert.equal(skipFrom(chunk([long, 50], ["y", 20000]), 1040), 0);
    // Judged for more room (a chunk that may be held with the next ones): looked at whole.
    const sparse = chunk([long, 650]);
    assert.equal(linesToSkip(sparse, 1040).clean, false, "not looked at");
    assert.equal(linesToSkip(sparse, 1040, 1024 * 1024).clean, true, "looked at");
  });

  it("a chunk of plain lines after any state leaves what parsing it whole leaves", () => {
    const size = { cols: 40, rows: 8, scrollback: 20 };
    const befores = ["", "abc", "\x1b[31mred ", "\x1b[2J\x1b[H", "x\r\n".repeat(50), "\x1b[5;3H"];
    for (const before of befores) {
      for (const count of [27, 28, 29, 30, 31, 35, 100, 2000]) {
        for (const length of [1, 39, 40, 150]) {
          const fast = new Emulator(size);
          const reference = new Emulator(size);
          try {
            let chunk = "";
            for (let i = 0; chunk.length < 4096 || i < count; i++) {
              chunk += `${i}:${"y".repeat(length)}\r\n`;
            }
            chunk += "last";
            fast.write(bytes(before));
            reference.write(bytes(before));
            fast.write(bytes(chunk));
            const all = bytes(chunk);
            for (let i = 0; i < all.length; i += 4000) reference.write(all.subarray(i, i + 4000));
            const what = `${JSON.stringify(before)} then ${count} lines of ${length}`;
            assert.deepEqual(fast.lines("all"), reference.lines("all"), what);
            assert.deepEqual(fast.cursor, reference.cursor, what);
            assert.equal(fast.ansiScreen(), reference.ansiScreen(), what);
          } finally {
            fast.dispose();
            reference.dispose();
          }
        }
      }
    }
  });

  it("an emulator fed floods in large chunks shows what one fed in small pieces shows", () => {
    // Small pieces (under the 4 KiB the skip needs) are parsed whole: the reference.
    const size = { cols: 40, rows: 8, scrollback: 20 };
    const fast = new Emulator(size);
    const reference = new Emulator(size);
    try {
      const random = seeded(7);
      const stream = floodStream(60, random);
      for (let at = 0; at < stream.length;) {
        const chunk = stream.subarray(at, at + 4096 + random(12_000));
        at += chunk.length;
        fast.write(chunk);
        for (let i = 0; i < chunk.length; i += 4000) reference.write(chunk.subarray(i, i + 4000));
        assert.deepEqual(fast.lines("all"), reference.lines("all"), `after byte ${at}`);
        assert.deepEqual(fast.cursor, reference.cursor, `cursor after byte ${at}`);
        assert.equal(fast.ansiScreen(), reference.ansiScreen(), `colours after byte ${at}`);
        assert.equal(
          fast.serialize(1000),
          reference.serialize(1000),
          `scrollback after byte ${at}`,
        );
        assert.equal(fast.altScreen, reference.altScreen);
        assert.equal(fast.title, reference.title);
      }
      // The attributes in force at the end: a cleared line takes the background, text the rest.
      for (const emulator of [fast, reference]) emulator.write(bytes("\x1b[2Kend"));
      assert.equal(fast.serialize(1000), reference.serialize(1000), "the attributes in force");
      assert.ok(fast.skippedBytes > stream.length / 40, `skipped ${fast.skippedBytes} bytes`);
      assert.equal(reference.skippedBytes, 0);
    } finally {
      fast.dispose();
      reference.dispose();
    }
  });

  it("a flood's last lines held while more follows: every read, resize and mode shows what parsing all shows", () => {
    const size = { cols: 40, rows: 8, scrollback: 20 };
    for (const seed of [7, 11, 12345]) {
      const held = new Emulator(size);
      const plain = new Emulator(size);
      const reference = new Emulator(size);
      try {
        const random = seeded(seed);
        const stream = floodStream(80, random);
        let chunks = 0;
        for (let at = 0; at < stream.length; chunks++) {
          const chunk = stream.subarray(at, at + 4096 + random(12_000));
          at += chunk.length;
          held.write(chunk, true);
          plain.write(chunk);
          for (let i = 0; i < chunk.length; i += 4000) {
            reference.write(chunk.subarray(i, i + 4000));
          }
          // What held lines cannot change is read after every chunk (it must not need them)...
          const what = `seed ${seed}, after byte ${at}`;
          assert.equal(held.altScreen, reference.altScreen, what);
          assert.equal(held.title, reference.title, what);
          assert.deepEqual(held.modes, reference.modes, what);
          // ...the rest now and then, so that lines stay held across several chunks.
          const read = random(12);
          if (read === 0) assert.deepEqual(held.lines("all"), reference.lines("all"), what);
          if (read === 1) assert.deepEqual(held.cursor, reference.cursor, what);
          if (read === 2) assert.equal(held.ansiScreen(), reference.ansiScreen(), what);
          if (read === 3) assert.equal(held.serialize(1000), reference.serialize(1000), what);
          if (read === 4 && random(4) === 0) {
            const [cols, rows] = [30 + random(20), 5 + random(6)];
            for (const emulator of [held, plain, reference]) emulator.resize(cols, rows);
          }
        }
        assert.equal(held.serialize(1000), reference.serialize(1000), `seed ${seed}, the end`);
        assert.deepEqual(held.cursor, reference.cursor, `seed ${seed}, the cursor at the end`);
        for (const emulator of [held, reference]) emulator.write(bytes("\x1b[2Kend"));
        assert.equal(held.serialize(1000), reference.serialize(1000), "the attributes in force");
        assert.ok(
          held.skippedBytes > plain.skippedBytes,
          `holding skipped more (${held.skippedBytes} > ${plain.skippedBytes} bytes, ${chunks} chunks)`,
        );
      } finally {
        held.dispose();
        plain.dispose();
        reference.dispose();
      }
    }
  });

  it("a chunk that starts with the LF of a CR LF split from the chunk before still skips", () => {
    const size = { cols: 40, rows: 8, scrollback: 20 };
    const first = bytes("y\r\n".repeat(3000) + "last y\r");
    const second = bytes("\n" + "\x1b[32mg\x1b[m\r\n".repeat(3000) + "end");
    for (const more of [false, true]) {
      const fast = new Emulator(size);
      const reference = new Emulator(size);
      try {
        fast.write(first, more);
        const before = fast.skippedBytes;
        fast.write(second, more);
        for (const chunk of [first, second]) {
          for (let i = 0; i < chunk.length; i += 4000) {
            reference.write(chunk.subarray(i, i + 4000));
          }
        }
        const what = `more: ${more}`;
        assert.ok(fast.skippedBytes - before > second.length / 2, `${what}: the second skips`);
        assert.equal(fast.serialize(1000), reference.serialize(1000), what);
        assert.deepEqual(fast.cursor, reference.cursor, what);
      } finally {
        fast.dispose();
        reference.dispose();
      }
    }
  });

  it("linesToSkip says whether the whole chunk was text, line ends and SGR sequences", () => {
    const lines = "\x1b[31my\x1b[m\r\n".repeat(100);
    const clean = (chunk: Uint8Array) => {
      const { clean, unfinished } = linesToSkip(chunk, 10);
      return { clean, unfinished };
    };
    assert.deepEqual(clean(bytes(lines)), { clean: true, unfinished: 0 });
    assert.deepEqual(clean(bytes(lines + "partial é")), { clean: true, unfinished: 0 });
    assert.deepEqual(clean(bytes(lines + "\x1b]0;title\x07")), { clean: false, unfinished: 0 });
    assert.deepEqual(clean(bytes(lines + "\x1b[2J")), { clean: false, unfinished: 0 });
    assert.deepEqual(clean(bytes(lines + "\x1b[?2")), { clean: false, unfinished: 0 });
    assert.deepEqual(clean(bytes(lines + "\x1b]0")), { clean: false, unfinished: 0 });
    assert.deepEqual(clean(bytes(lines + "\x1b[58;5;1m")), { clean: false, unfinished: 0 });
    // What the next chunk may finish: the start of an SGR sequence or of a UTF-8 character.
    assert.deepEqual(clean(bytes(lines + "\x1b")), { clean: true, unfinished: 1 });
    assert.deepEqual(clean(bytes(lines + "\x1b[")), { clean: true, unfinished: 2 });
    assert.deepEqual(clean(bytes(lines + "\x1b[01;3")), { clean: true, unfinished: 6 });
    assert.deepEqual(clean(new Uint8Array([...bytes(lines), 0xc3])), {
      clean: true,
      unfinished: 1,
    });
    const threeOfFour = new Uint8Array([...bytes(lines), 0xf0, 0x9f, 0x98]);
    assert.deepEqual(clean(threeOfFour), { clean: true, unfinished: 3 });
    assert.deepEqual(clean(new Uint8Array([...bytes(lines), 0xc3, 0x41])), {
      clean: false,
      unfinished: 0,
    });
    const few = linesToSkip(bytes("y\r\n".repeat(5)), 10);
    assert.deepEqual([few.from, few.clean], [0, true], "nothing to skip, and clean");
  });

  it("completion: the bytes of the next chunk that finish an unfinished SGR sequence or character", () => {
    assert.equal(completion(bytes("\x1b[01;3"), bytes("6mtext")), 2);
    assert.equal(completion(bytes("\x1b"), bytes("[0mtext")), 3);
    assert.equal(completion(bytes("\x1b[3"), bytes("?1049h")), 0, "not an SGR sequence");
    assert.equal(completion(bytes("\x1b[5"), bytes("8;5;1m")), 0, "the underline colour");
    assert.equal(completion(bytes("\x1b[3"), bytes("1")), 0, "still unfinished");
    assert.equal(completion(new Uint8Array([0xc3]), new Uint8Array([0xa9, 0x41])), 1);
    assert.equal(completion(new Uint8Array([0xf0, 0x9f]), new Uint8Array([0x98, 0x80])), 2);
    assert.equal(completion(new Uint8Array([0xc2]), new Uint8Array([0x9b])), 0, "C1 CSI");
    assert.equal(completion(new Uint8Array([0xc3]), bytes("A")), 0, "malformed");
  });

  it("held lines that end inside an SGR sequence or a character are skipped when the next chunk finishes it", () => {
    const size = { cols: 40, rows: 8, scrollback: 20 };
    // Long lines: the second chunk skips fewer bytes of its own than the first one holds.
    const coloured = (n: number) =>
      `\x1b[0m\x1b[01;34m${"d".repeat(60)}\x1b[0m  é ${"f".repeat(40)}\r\n`.repeat(n);
    const cases: [string, Uint8Array, Uint8Array, boolean][] = [
      ["an SGR sequence", bytes(coloured(100) + "\x1b[01;"), bytes("36mlink" + coloured(40)), true],
      ["a lone ESC", bytes(coloured(100) + "\x1b"), bytes("[7minverse\r\n" + coloured(40)), true],
      [
        "a character",
        new Uint8Array([...bytes(coloured(100) + "caf"), 0xc3]),
        new Uint8Array([0xa9, ...bytes("\r\n" + coloured(40))]),
        true,
      ],
      ["a CR LF", bytes(coloured(100) + "last\r"), bytes("\n" + coloured(40)), true],
      // Not an SGR sequence after all: the held lines are parsed, the mode is set.
      ["a mode", bytes(coloured(100) + "\x1b["), bytes("?1049h" + coloured(40)), false],
    ];
    for (const [what, first, second, skips] of cases) {
      const fast = new Emulator(size);
      const reference = new Emulator(size);
      try {
        fast.write(first, true);
        const before = fast.skippedBytes;
        fast.write(second, true);
        for (const chunk of [first, second]) {
          for (let i = 0; i < chunk.length; i += 4000) {
            reference.write(chunk.subarray(i, i + 4000));
          }
        }
        // The first chunk's last lines were held: skipped with the second chunk's, or parsed.
        const [held, skipped] = [first.length - before, fast.skippedBytes - before];
        assert.equal(skipped >= held, skips, `${what}: ${held} bytes held, ${skipped} skipped`);
        assert.equal(fast.altScreen, reference.altScreen, what);
        assert.equal(fast.serialize(1000), reference.serialize(1000), what);
        assert.deepEqual(fast.cursor, reference.cursor, what);
        for (const emulator of [fast, reference]) emulator.write(bytes("\x1b[2Kend"));
        assert.equal(fast.serialize(1000), reference.serialize(1000), `${what}: attributes`);
      } finally {
        fast.dispose();
        reference.dispose();
      }
    }
  });

  it("a skip leaves the same rows wherever the cursor stood, and the same re-wrap after it", () => {
    // The kept lines overwrite the rows below a cursor that stands above the bottom row; they
    // must scroll out (with the background the line feeds give) as the skipped lines made them.
    const plain = bytes("y\r\n".repeat(2000));
    const red = bytes("\x1b[41m" + "y\r\n".repeat(2000));
    const long = "0123456789".repeat(10);
    type Case = {
      what: string;
      size: { cols: number; rows: number; scrollback: number };
      before?: (emulator: Emulator) => void;
      chunks: Uint8Array[];
      after?: (emulator: Emulator) => void;
    };
    const cases: Case[] = [
      {
        what: "a fresh screen, a coloured flood",
        size: { cols: 20, rows: 5, scrollback: 0 },
        chunks: [red],
      },
      {
        what: "the cursor sent home over old text",
        size: { cols: 10, rows: 5, scrollback: 0 },
        before: (e) => e.write(bytes("X".repeat(50) + "\x1b[H")),
        chunks: [plain],
      },
      {
        what: "a soft-wrapped line below the cursor",
        size: { cols: 20, rows: 5, scrollback: 0 },
        before: (e) => e.write(bytes("x".repeat(100) + "\x1b[H")),
        chunks: [plain],
      },
      {
        what: "held lines on a fresh screen",
        size: { cols: 20, rows: 10, scrollback: 0 },
        chunks: [plain, bytes("\x1b[44m" + "y\r\n".repeat(2000))],
      },
      {
        what: "a screen made taller",
        size: { cols: 20, rows: 5, scrollback: 0 },
        before: (e) => {
          e.write(bytes("old\r\n".repeat(20)));
          e.resize(20, 10);
        },
        chunks: [red],
      },
      {
        what: "with a scrollback, after a clear",
        size: { cols: 20, rows: 4, scrollback: 3 },
        before: (e) => e.write(bytes("old\r\n".repeat(20) + "\x1b[H\x1b[2J")),
        chunks: [red, plain],
      },
      ...[2000, 2001, 2002].map((count): Case => ({
        what: `a long line re-wrapped after ${count} lines`,
        size: { cols: 80, rows: 2, scrollback: 1 },
        chunks: [bytes("old\r\n".repeat(count) + long + "\r\n")],
        after: (e) => e.resize(10, 2),
      })),
    ];
    for (const { what, size, before, chunks, after } of cases) {
      const fast = new Emulator(size);
      const reference = new Emulator(size);
      try {
        for (const emulator of [fast, reference]) before?.(emulator);
        const skippedBefore = fast.skippedBytes;
        for (const chunk of chunks) {
          fast.write(chunk, true);
          for (let i = 0; i < chunk.length; i += 4000) reference.write(chunk.subarray(i, i + 4000));
        }
        assert.ok(fast.skippedBytes > skippedBefore, `${what}: nothing skipped`);
        for (const emulator of [fast, reference]) after?.(emulator);
        assert.deepEqual(fast.lines("all"), reference.lines("all"), what);
        assert.equal(fast.ansiScreen(), reference.ansiScreen(), what);
        assert.equal(fast.serialize(1000), reference.serialize(1000), what);
        assert.deepEqual(fast.cursor, reference.cursor, what);
      } finally {
        fast.dispose();
        reference.dispose();
      }
    }
  });

  it("a flood read in chunks of fewer lines than are kept is held across chunks and skipped", () => {
    // A reader behind a flood hands on chunks of a few hundred lines (fewer than the screen and
    // scrollback keep): each is held after the last, and the lines that later ones scroll out
    // are dropped, here and at the reads; the same rows, cursor and attributes as parsing all.
    const size = { cols: 80, rows: 24, scrollback: 1000 };
    for (const seed of [3, 5]) {
      // The generator's high bits: its low ones repeat with a short period.
      const next = seeded(seed);
      const random = (n: number) => Math.floor((next(2 ** 30) / 2 ** 30) * n);
      const lines: string[] = [];
      for (let i = 0; i < 60_000; i++) {
        const text = `${i} ${"abcdefghij".repeat(random(10))}`;
        lines.push(
          random(3) === 0 ? `\x1b[3${random(8)};4${random(8)}m${text}\x1b[m\r\n` : `${text}\r\n`,
        );
      }
      const stream = bytes(lines.join("") + "\x1b[1mthe end");
      const fast = new Emulator(size);
      const reference = new Emulator(size);
      try {
        for (let at = 0, chunk = 0; at < stream.length; chunk++) {
          const piece = stream.subarray(at, at + 8192 + random(40_000)); // ~150-800 lines
          at += piece.length;
          fast.write(piece, chunk === 0 || random(4) !== 0);
          for (let i = 0; i < piece.length; i += 4000) reference.write(piece.subarray(i, i + 4000));
          if (random(40) === 0) {
            const what = `seed ${seed}, chunk ${chunk}`;
            assert.deepEqual(fast.lines("all"), reference.lines("all"), what);
            assert.deepEqual(fast.cursor, reference.cursor, what);
          }
        }
        for (const emulator of [fast, reference]) emulator.write(bytes("\x1b[2K!"));
        assert.equal(fast.serialize(1000), reference.serialize(1000), `seed ${seed}`);
        assert.deepEqual(fast.cursor, reference.cursor, `seed ${seed}: the cursor`);
        const share = fast.skippedBytes / stream.length;
        assert.ok(share > 0.8, `seed ${seed}: ${(share * 100).toFixed(1)}% of the bytes skipped`);
      } finally {
        fast.dispose();
        reference.dispose();
      }
    }
  });
});
