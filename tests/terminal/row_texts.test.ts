/**
 * The emulator keeps the text of visible rows between reads (`RowTexts`) and
 * forgets the rows a write may have changed. Random output (text that wraps,
 * wide and combining characters, cursor moves, erases, inserted and deleted
 * lines and characters, scroll regions, index and reverse index, the
 * alternate screen, resets, resizes, a scrollback small enough to recycle
 * lines), cut at random points, must read the same as a plain xterm.js fed
 * the same bytes and read afresh, after every chunk.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import xterm from "@xterm/headless";
import { Unicode11Addon } from "@xterm/addon-unicode11";
import { Emulator, type XtermCore } from "../../lib/terminal/emulator.ts";
import { afterResize, fixXterm } from "../../lib/terminal/xterm_fixes.ts";
import { readLines, type ScreenScope } from "../../lib/terminal/screen.ts";

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ["ls", "echo", "hello", "a", "termbridge", "x", "  ", "漢字", "😀", "e\u0301", "-"];

/** One random piece of output. */
function piece(next: () => number): string {
  const n = (max: number) => 1 + Math.floor(next() * max);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  const csi = (body: string) => `\x1b[${body}`;
  return pick<() => string>([
    () => Array.from({ length: n(12) }, () => pick(WORDS)).join(" "),
    () => Array.from({ length: n(30) }, (_, i) => `line ${i}\r\n`).join(""),
    () => pick(["\r\n", "\n", "\r", "\b", "\t", "\r\n\r\n"]),
    () => csi(`${n(8)}${pick(["A", "B", "C", "D", "G", "d", "E", "F"])}`),
    () => csi(`${n(14)};${n(50)}H`),
    () => csi(`${pick(["", "0", "1", "2"])}K`),
    () => csi(`${pick(["", "0", "1", "2", "3"])}J`),
    () => csi(`${n(5)}${pick(["@", "P", "X", "L", "M", "S", "T", "b"])}`),
    () => csi(`${n(5)};${n(12)}r`),
    () => csi("r"),
    () => `\x1b${pick(["D", "M", "E", "7", "8"])}`,
    () => csi(`${n(4)}${pick(["'}", "'~", " @", " A"])}`),
    () => "\x1b#8",
    () => csi(`?${pick(["1049", "47", "1047", "7", "6"])}${pick(["h", "l"])}`),
    () => csi(`4${pick(["h", "l"])}`),
    () => pick(["\x1bc", csi("!p")]),
    () => csi(`${pick(["31", "1;44", "0", "38;5;200", "7"])}m`),
  ])();
}

/** A plain xterm.js as termbridge configures it, read without any cache. */
class Reference {
  readonly term: xterm.Terminal;
  constructor(cols: number, rows: number, scrollback: number) {
    this.term = new xterm.Terminal({ cols, rows, scrollback, allowProposedApi: true });
    this.term.loadAddon(new Unicode11Addon());
    this.term.unicode.activeVersion = "11";
    fixXterm((this.term as unknown as { _core: XtermCore })._core);
  }
  write(data: Uint8Array | string): void {
    (this.term as unknown as { _core: XtermCore })._core.writeSync(data);
  }
  lines(scope: ScreenScope, joinWrapped: boolean): string[] {
    return readLines(this.term.buffer.active, this.term.rows, scope, joinWrapped);
  }
}

const READS: [ScreenScope, boolean][] = [["visible", false], ["visible", true], ["all", false]];

function run(seed: number, steps: number): void {
  const next = random(seed);
  const size = { cols: 40, rows: 10, scrollback: 15 };
  const ours = new Emulator(size);
  const plain = new Reference(size.cols, size.rows, size.scrollback);
  let pending = new Uint8Array(0);
  try {
    for (let step = 0; step < steps; step++) {
      if (next() < 0.03) {
        const cols = 10 + Math.floor(next() * 50), rows = 3 + Math.floor(next() * 12);
        ours.resize(cols, rows);
        plain.term.resize(cols, rows);
        afterResize((plain.term as unknown as { _core: unknown })._core, rows);
      }
      const added = new TextEncoder().encode(piece(next));
      const joined = new Uint8Array(pending.length + added.length);
      joined.set(pending);
      joined.set(added, pending.length);
      // Cut anywhere, inside a sequence or a UTF-8 character too (reads end anywhere).
      const cut = Math.floor(next() * (joined.length + 1));
      const chunk = joined.slice(0, cut);
      pending = joined.slice(cut);
      ours.write(chunk);
      plain.write(chunk);
      if (next() < 0.3) continue; // Writes with no read between them, too.
      for (const [scope, join] of READS) {
        assert.deepEqual(
          ours.lines(scope, join),
          plain.lines(scope, join),
          `seed ${seed}, step ${step}, ${scope}${join ? " joined" : ""}`,
        );
      }
    }
  } finally {
    ours.dispose();
    plain.term.dispose();
  }
}

describe("emulator: rows read again only where a write changed them", () => {
  it("emulator: random output reads the same as xterm.js read afresh, after every chunk", () => {
    for (let seed = 1; seed <= 60; seed++) run(seed, 300);
  });

  it("emulator: an echo at the bottom of a full screen reads the new rows", () => {
    const emulator = new Emulator({ cols: 20, rows: 3, scrollback: 2 });
    emulator.write("$ ");
    for (let i = 0; i < 12; i++) {
      emulator.write(`echo X${i}\r\nX${i}\r\n$ `);
      assert.deepEqual(emulator.lines("visible"), [`$ echo X${i}`, `X${i}`, "$"]);
    }
    emulator.dispose();
  });

  it("emulator: a scroll without a scrollback reuses the top line: it reads blank at the bottom", () => {
    // (The alternate screen has no scrollback either.) IND (ESC D) marks no row for the one it
    // brings in, and the cursor started this write at the top.
    const emulator = new Emulator({ cols: 20, rows: 3, scrollback: 0 });
    emulator.write("a\r\nb\r\nc\x1b[1;1H");
    assert.deepEqual(emulator.lines("visible"), ["a", "b", "c"]);
    emulator.write("\x1b[3;1H\x1bD");
    assert.deepEqual(emulator.lines("visible"), ["b", "c"]);
    emulator.dispose();
  });
});

describe("emulator: the rows kept stay a screenful", () => {
  it("emulator: lines xterm drops without a scroll are not kept", () => {
    // Reverse index at the top, deleted lines, a screen left and entered again: each read after
    // each write kept every dropped line before (20,000 entries, ~+96 MB; the reviewer's f01).
    for (
      const [setup, step] of [
        ["\x1b[?1049h", (i: number) => `\x1b[H\x1bMline ${i}`],
        ["", (i: number) => `\x1b[24H\x1b[Mline ${i}`],
        ["\x1b[?1049h", (i: number) => `\x1b[?1049l\x1b[?1049h\x1b[Hframe ${i}`],
      ] as const
    ) {
      const emulator = new Emulator({ cols: 80, rows: 24, scrollback: 100 });
      emulator.write(`${setup}x`);
      emulator.lines("visible");
      assert.ok(emulator.keptRowTexts > 0, "the emulator keeps row texts");
      for (let i = 0; i < 2000; i++) {
        emulator.write(step(i));
        emulator.lines("visible");
      }
      const kept = emulator.keptRowTexts;
      assert.ok(kept <= 48, `${JSON.stringify(step(0))}: ${kept} rows kept`);
      emulator.dispose();
    }
  });
});
