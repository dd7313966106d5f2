/**
 * The private OSC filter: termbridge's own marks leave the raw output, in
 * any chunking, and nothing else changes. The terminal's text parser must see
 * the same text and the same other marks in what is left.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { PrivateOscFilter } from "../../lib/terminal/private_osc.ts";
import { PlainTextStream } from "../../lib/terminal/text_stream.ts";

const encoder = new TextEncoder();
/** Bytes as a string of one character each (TextDecoder's "latin1" is windows-1252). */
const latin1 = {
  decode: (bytes: Uint8Array) => Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""),
};
const ESC = "\x1b";
const BEL = "\x07";
/** What a removed mark leaves: an empty SOS string. */
const SOS = `${ESC}X${ESC}\\`;

/** Feeds `bytes` to a new filter in chunks ending at `cuts`, and joins what it kept. */
function filtered(bytes: Uint8Array, cuts: number[]): Uint8Array {
  const filter = new PrivateOscFilter(6973);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    parts.push(filter.strip(bytes.subarray(from, cut)));
    from = cut;
  }
  parts.push(filter.end());
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** The same on the whole stream at once, as a pattern over its bytes. */
function reference(bytes: Uint8Array): string {
  return latin1.decode(bytes).replace(
    // deno-lint-ignore no-control-regex -- matching control characters is the point
    /\x1b\]6973;(?:(?!\xc2\x9c)[^\x07\x18\x1a\x1b])*(?:[\x07\x18\x1a]|\x1b\\|\xc2\x9c|(?=\x1b)|$)/g,
    "\x1bX\x1b\\",
  );
}

/** Text and marks the terminal's parser takes from `bytes`. */
function parsed(bytes: Uint8Array, cuts: number[]): { text: string; marks: string[] } {
  const stream = new PlainTextStream();
  let text = "";
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    text += stream.push(bytes.subarray(from, cut));
    from = cut;
  }
  text += stream.end();
  return { text, marks: stream.takeOscMarks().map((mark) => `${mark.osc}@${mark.at}`) };
}

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/** Pieces a shell session's output is made of, the private marks and their odd ends among them. */
const PIECES = [
  "plain text ",
  "\r\n",
  "héllo ✓ ",
  `${ESC}[01;34mdir${ESC}[0m `,
  `${ESC}]133;A${BEL}`,
  `${ESC}]133;D;0${ESC}\\`,
  `${ESC}]0;title [x]${BEL}`,
  "a[1] b]c ",
  `${ESC}]6973;check;0a1b2c3d;bash;/tmp;/usr/bin;ls -l\nmore ✓ é;ffee0011${BEL}`,
  `${ESC}]6973;check;99;zsh;/;x${ESC}\\`,
  `${ESC}]6973;x\u009cafter `,
  `${ESC}]6973;aborted${ESC}[1mbold${ESC}[0m `,
  `${ESC}]6973;cancelled\x18rest `,
  `${ESC}]6974;not ours${BEL}`,
  `${ESC}]697;short${BEL}`,
  `${ESC}${ESC}]6973;after esc${BEL}`,
  "\u009d", // a C1 OSC start: not ESC ], left as it is
];

describe("terminal: private OSC filter", () => {
  it("replaces ESC ] 6973; ... up to BEL, ST, CAN, SUB or a new ESC by an empty SOS string, and nothing else", () => {
    const bytes = encoder.encode(
      `a${ESC}]6973;check;1;secret${BEL}b${ESC}]6973;x${ESC}\\c${ESC}]6973;y${ESC}[1md`,
    );
    assert.equal(
      latin1.decode(filtered(bytes, [])),
      `a${SOS}b${SOS}c${SOS}${ESC}[1md`,
    );
  });

  it("returns a chunk without a mark as it is (no copy)", () => {
    const filter = new PrivateOscFilter(6973);
    const chunk = encoder.encode(`plain ${ESC}[1mbold${ESC}[0m and a[1]\r\n`);
    assert.equal(filter.strip(chunk), chunk);
  });

  it("gives the same bytes as the whole-stream pattern in any chunking (random streams)", () => {
    const next = random(6973);
    for (let round = 0; round < 1000; round++) {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => PIECES[Math.floor(next() * PIECES.length)],
      ).join("");
      const bytes = encoder.encode(text);
      const cuts = Array.from(
        { length: Math.floor(next() * 6) },
        () => Math.floor(next() * bytes.length),
      ).sort((a, b) => a - b);
      const expected = reference(bytes);
      assert.equal(latin1.decode(filtered(bytes, cuts)), expected, JSON.stringify({ text, cuts }));
      // What the terminal's parser takes from it: the same text and marks, the private ones gone.
      const all = parsed(bytes, cuts);
      const left = parsed(filtered(bytes, cuts), []);
      assert.equal(left.text, all.text, JSON.stringify({ text, cuts }));
      assert.deepEqual(
        left.marks,
        all.marks.filter((mark) => !mark.startsWith("6973;")),
        JSON.stringify({ text, cuts }),
      );
    }
  });

  it("passes every byte through when there is no mark, whatever the chunking", () => {
    const next = random(1);
    const others = PIECES.filter((piece) => !piece.includes("6973"));
    const text = Array.from({ length: 2000 }, () => others[Math.floor(next() * others.length)])
      .join("");
    const bytes = encoder.encode(text);
    const cuts = Array.from({ length: 50 }, () => Math.floor(next() * bytes.length))
      .sort((a, b) => a - b);
    assert.deepEqual(filtered(bytes, cuts), bytes);
  });
});
