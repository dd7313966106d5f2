import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { OutputLog } from "../../lib/terminal/output_log.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const result = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    result.set(part, offset);
    offset += part.byteLength;
  }
  return result;
}

/** The longest suffix of `text` that is whole characters and fits in `limit` UTF-8 bytes. */
function expectedTail(text: string, limit: number): string {
  const characters = [...text];
  let bytes = 0;
  let start = characters.length;
  while (start > 0) {
    const size = utf8(characters[start - 1]).byteLength;
    if (bytes + size > limit) break;
    bytes += size;
    start--;
  }
  return characters.slice(start).join("");
}

/** A small deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("output log", () => {
  it("output log: without a limit keeps everything", () => {
    const log = new OutputLog();
    const parts = [utf8("hello "), utf8("wörld "), new Uint8Array(100_000).fill(0x61), utf8("😀")];
    for (const part of parts) log.append(part);
    const all = concat(parts);
    assert.deepEqual(log.bytes(), all);
    assert.equal(log.text(), decoder.decode(all));
    assert.equal(log.byteLength, all.byteLength);
    assert.equal(log.totalBytes, all.byteLength);
    assert.equal(log.truncated, false);
  });

  it("output log: an explicit Infinity or undefined limit means no limit", () => {
    for (const limit of [undefined, Infinity]) {
      const log = new OutputLog(limit);
      log.append(new Uint8Array(1 << 20));
      assert.equal(log.byteLength, 1 << 20);
      assert.equal(log.truncated, false);
    }
  });

  it("output log: rejects a negative, fractional or non-number limit", () => {
    for (const limit of [-1, 1.5, NaN, -Infinity, "10" as unknown as number]) {
      assert.throws(() => new OutputLog(limit), (error: unknown) => {
        assert.ok(error instanceof RangeError);
        assert.match(error.message, /^Cannot create output log: limit must be/);
        assert.ok(error.message.includes(`"${String(limit)}"`));
        return true;
      });
    }
  });

  const cuts: { name: string; text: string; limit: number; kept: string }[] = [
    { name: "cut between characters", text: "a😀b", limit: 5, kept: "😀b" },
    { name: "cut inside a 4-byte emoji", text: "a😀b", limit: 4, kept: "b" },
    { name: "cut after the first byte of an emoji", text: "😀😀", limit: 7, kept: "😀" },
    { name: "cut inside a 3-byte CJK character", text: "日本語", limit: 7, kept: "本語" },
    { name: "cut one byte into a CJK character", text: "日本語", limit: 8, kept: "本語" },
    { name: "cut inside a 2-byte é", text: "éé", limit: 3, kept: "é" },
    { name: "cut in ASCII", text: "hello", limit: 3, kept: "llo" },
    { name: "limit exactly the size", text: "日本", limit: 6, kept: "日本" },
    { name: "limit zero", text: "abc", limit: 0, kept: "" },
  ];
  for (const { name, text, limit, kept } of cuts) {
    it(`output log: drops from the front on a character boundary (${name})`, () => {
      const whole = new OutputLog(limit);
      whole.append(utf8(text));
      const byByte = new OutputLog(limit);
      for (const byte of utf8(text)) byByte.append(Uint8Array.of(byte));
      for (const log of [whole, byByte]) {
        assert.equal(log.text(), kept);
        assert.equal(log.byteLength, utf8(kept).byteLength);
        assert.equal(log.totalBytes, utf8(text).byteLength);
      }
    });
  }

  it("output log: the rest of a cut character in later appends is dropped too", () => {
    const log = new OutputLog(1);
    log.append(Uint8Array.of(0xf0, 0x9f)); // 😀 begins; its first byte is cut
    log.append(Uint8Array.of(0x98));
    log.append(Uint8Array.of(0x80));
    assert.equal(log.byteLength, 0);
    log.append(utf8("z"));
    assert.equal(log.text(), "z");
    assert.equal(log.totalBytes, 5);
  });

  it("output log: continuation bytes right after clear are dropped", () => {
    const log = new OutputLog();
    const bytes = utf8("日x");
    log.append(bytes.subarray(0, 2));
    log.clear();
    log.append(bytes.subarray(2));
    assert.equal(log.text(), "x");
  });

  it("output log: at most three continuation bytes are skipped in binary data", () => {
    const log = new OutputLog(6);
    log.append(Uint8Array.of(0x41, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x42));
    assert.deepEqual(log.bytes(), Uint8Array.of(0x80, 0x80, 0x42));
  });

  it("output log: keeps the longest whole-character tail for every limit", () => {
    const samples = ["héllo wörld", "😀a😀bb😀", "日本語のテキスト", "a😀é日\tz", "x🏳️‍🌈y"];
    for (const text of samples) {
      const size = utf8(text).byteLength;
      for (let limit = 0; limit <= size + 1; limit++) {
        for (const step of [1, 2, 3, 5, size]) {
          const log = new OutputLog(limit);
          const bytes = utf8(text);
          for (let i = 0; i < bytes.byteLength; i += step) log.append(bytes.subarray(i, i + step));
          const message = `${JSON.stringify(text)} limit ${limit} step ${step}`;
          assert.equal(log.text(), expectedTail(text, limit), message);
          assert.ok(log.byteLength <= limit, message);
          assert.equal(log.truncated, size > limit, message);
        }
      }
    }
  });

  it("output log: an append larger than the limit keeps only its tail", () => {
    const log = new OutputLog(10);
    log.append(utf8("old"));
    log.append(new Uint8Array(1 << 20).fill(0x78));
    assert.equal(log.text(), "x".repeat(10));
    assert.equal(log.totalBytes, 3 + (1 << 20));
    assert.equal(log.truncated, true);

    const cjk = new OutputLog(10);
    cjk.append(utf8("日".repeat(1000)));
    assert.equal(cjk.text(), "日日日");
    assert.equal(cjk.byteLength, 9);
  });

  it("output log: truncated turns true only when something is dropped and stays true", () => {
    const log = new OutputLog(4);
    log.append(utf8("ab"));
    log.append(utf8("cd"));
    assert.equal(log.truncated, false);
    log.append(utf8("e"));
    assert.equal(log.truncated, true);
    assert.equal(log.text(), "bcde");
    log.clear();
    assert.equal(log.truncated, true);
    assert.equal(log.byteLength, 0);
    assert.equal(log.totalBytes, 5);
    assert.equal(log.text(), "");
  });

  it("output log: clear leaves truncated false when nothing was dropped", () => {
    const log = new OutputLog(100);
    log.append(utf8("abc"));
    log.clear();
    assert.equal(log.truncated, false);
    assert.equal(log.totalBytes, 3);
    log.append(utf8("de"));
    assert.equal(log.text(), "de");
    assert.equal(decoder.decode(log.since(3)), "de");
  });

  it("output log: since returns what was appended after an offset, as far as it is kept", () => {
    const log = new OutputLog(8);
    log.append(utf8("abc"));
    const afterAbc = log.totalBytes;
    log.append(utf8("def"));
    assert.equal(decoder.decode(log.since(afterAbc)), "def");
    assert.equal(decoder.decode(log.since(0)), "abcdef");
    assert.equal(decoder.decode(log.since(4)), "ef");
    assert.equal(log.since(6).byteLength, 0);
    assert.equal(log.since(1000).byteLength, 0);
    log.append(utf8("ghijk")); // "abc" is dropped
    assert.equal(decoder.decode(log.since(0)), "defghijk");
    assert.equal(decoder.decode(log.since(afterAbc)), "defghijk");
    assert.equal(decoder.decode(log.since(9)), "jk");
  });

  it("output log: since rejects a negative or fractional offset", () => {
    const log = new OutputLog();
    for (const from of [-1, 0.5, NaN]) {
      assert.throws(() => log.since(from), (error: unknown) => {
        assert.ok(error instanceof RangeError);
        assert.match(error.message, /^Cannot read output log: offset must be/);
        return true;
      });
    }
  });

  it("output log: copies appended bytes and returns copies", () => {
    const log = new OutputLog();
    const buffer = utf8("abc");
    log.append(buffer);
    buffer.fill(0x7a);
    assert.equal(log.text(), "abc");
    const bytes = log.bytes();
    bytes.fill(0x7a);
    assert.equal(log.text(), "abc");
  });

  it("output log: a million 1-byte appends are all kept without a limit", () => {
    const log = new OutputLog();
    const expected = new Uint8Array(1_000_000);
    for (let i = 0; i < expected.byteLength; i++) {
      expected[i] = 0x20 + (i % 90);
      log.append(expected.subarray(i, i + 1));
    }
    assert.equal(log.byteLength, expected.byteLength);
    assert.deepEqual(log.bytes(), expected);
    assert.deepEqual(log.since(999_990), expected.subarray(999_990));
  });

  it("output log: a million 1-byte appends under a limit keep the last bytes", () => {
    const log = new OutputLog(1000);
    for (let i = 0; i < 1_000_000; i++) log.append(Uint8Array.of(0x30 + (i % 10)));
    assert.equal(log.byteLength, 1000);
    assert.equal(log.text(), "0123456789".repeat(100));
    assert.equal(log.totalBytes, 1_000_000);
  });

  it("output log: mixed append sizes under a limit keep a character-aligned suffix", () => {
    const next = random(42);
    const pieces = ["a", "é", "日", "😀", "\n", "hello world ", "\x1b[31m"];
    for (const limit of [0, 1, 7, 1000, 5000, 100_000]) {
      const log = new OutputLog(limit);
      const all: Uint8Array[] = [];
      for (let round = 0; round < 300; round++) {
        // Sizes from nothing to far above the block and small-append sizes.
        const count = Math.floor(next() ** 3 * 3000);
        let text = "";
        for (let i = 0; i < count; i++) text += pieces[Math.floor(next() * pieces.length)];
        const bytes = utf8(text);
        all.push(bytes);
        // Split the text at arbitrary bytes, as reads do.
        const cut = Math.floor(next() * (bytes.byteLength + 1));
        log.append(bytes.subarray(0, cut));
        log.append(bytes.subarray(cut));
      }
      const whole = decoder.decode(concat(all));
      assert.equal(log.text(), expectedTail(whole, limit), `limit ${limit}`);
      assert.equal(log.totalBytes, utf8(whole).byteLength);
    }
  });
});
