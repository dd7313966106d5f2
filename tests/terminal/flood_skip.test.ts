import assert from "node:assert/strict";
import { Emulator, plainLinesToSkip } from "../../lib/terminal/emulator.ts";
import { describe, it } from "../harness.ts";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);

describe("emulator: plain lines that scroll out of the scrollback are skipped", () => {
  it("plainLinesToSkip: where parsing may start, table-driven", () => {
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
        name: "an escape ends the plain start",
        chunk: "\x1b[31m" + lines(100),
        keep: 10,
        expected: 0,
      },
      { name: "UTF-8 ends the plain start", chunk: "é\r\n" + lines(100), keep: 10, expected: 0 },
      { name: "a tab ends the plain start", chunk: "\t" + lines(100), keep: 10, expected: 0 },
      {
        name: "only the plain start counts",
        chunk: lines(20) + "\x1b[2J" + lines(100),
        keep: 10,
        expected: 3 * 9,
      },
      { name: "a partial last line", chunk: lines(20) + "yy", keep: 10, expected: 3 * 9 },
    ];
    for (const { name, chunk, keep, expected } of cases) {
      assert.equal(plainLinesToSkip(bytes(chunk), keep), expected, name);
    }
  });

  it("plainLinesToSkip judges a large chunk by its first 4 KiB's line density", () => {
    const chunk = (...parts: [string, number][]) =>
      bytes(parts.map(([line, n]) => `${line}\r\n`.repeat(n)).join(""));
    const long = "x".repeat(99);
    // 64 KiB of 99-character lines: about 650 lines, fewer than 1040 kept: nothing to skip.
    assert.equal(plainLinesToSkip(chunk([long, 650]), 1040), 0);
    // 64 KiB of `yes`: all but the last 1041 lines go.
    assert.equal(plainLinesToSkip(chunk(["y", 21000]), 1040), 3 * (21000 - 1041));
    // Dense enough at the start: the whole plain start still counts.
    assert.equal(plainLinesToSkip(chunk(["y", 2000], [long, 200]), 1040), 3 * (2000 + 200 - 1041));
    // Long lines first, short ones after: judged too sparse, parsed whole (a saving missed, the
    // screen the same, as the test below checks for random floods).
    assert.equal(plainLinesToSkip(chunk([long, 50], ["y", 20000]), 1040), 0);
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
      let seed = 7;
      const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
      const pieces: string[] = [];
      for (let block = 0; block < 60; block++) {
        const kind = random(9);
        const count = 50 + random(400);
        for (let i = 0; i < count; i++) {
          const line = `${block}:${i}:${"abcdefghij".repeat(random(12))}`; // Some wrap.
          if (kind === 0) pieces.push(`\x1b[3${random(8)}m${line}\x1b[0m\r\n`);
          else if (kind === 1) pieces.push(`${line}\n`); // Raw mode: a staircase.
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
      const stream = bytes(pieces.join(""));
      for (let at = 0; at < stream.length;) {
        const chunk = stream.subarray(at, at + 4096 + random(12_000));
        at += chunk.length;
        fast.write(chunk);
        for (let i = 0; i < chunk.length; i += 4000) reference.write(chunk.subarray(i, i + 4000));
        assert.deepEqual(fast.lines("all"), reference.lines("all"), `after byte ${at}`);
        assert.deepEqual(fast.cursor, reference.cursor, `cursor after byte ${at}`);
        assert.equal(fast.ansiScreen(), reference.ansiScreen(), `colours after byte ${at}`);
        assert.equal(fast.altScreen, reference.altScreen);
        assert.equal(fast.title, reference.title);
      }
      assert.ok(fast.skippedBytes > stream.length / 40, `skipped ${fast.skippedBytes} bytes`);
      assert.equal(reference.skippedBytes, 0);
    } finally {
      fast.dispose();
      reference.dispose();
    }
  });
});
