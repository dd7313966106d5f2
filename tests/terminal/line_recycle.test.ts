import assert from "node:assert/strict";
import xterm from "@xterm/headless";
import { Emulator } from "../../lib/terminal/emulator.ts";
import { describe, it } from "../harness.ts";

const encoder = new TextEncoder();

/** xterm's buffer line, as far as these tests look at it. */
interface Line {
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, unknown>;
  isWrapped: boolean;
  copyFrom(line: Line): void;
  translateToString(trimRight: boolean): string;
}

/** A bare xterm (the class our Emulator patched) and its buffer's lines. */
function bareXterm(): { term: xterm.Terminal; write(text: string): void; line(y: number): Line } {
  const term = new xterm.Terminal({ cols: 20, rows: 4, scrollback: 4, allowProposedApi: true });
  const core = (term as unknown as {
    _core: {
      writeSync(data: string): void;
      buffer: { lines: { get(index: number): Line } };
    };
  })._core;
  return {
    term,
    write: (text) => core.writeSync(text),
    line: (y) => core.buffer.lines.get(y),
  };
}

describe("emulator: recycling a scrolled-out line makes no garbage", () => {
  it("copyFrom keeps a line's own empty objects, and copies what is in them", () => {
    new Emulator({ cols: 20, rows: 4, scrollback: 4 }).dispose(); // Patches xterm's BufferLine.
    const bare = bareXterm();
    try {
      bare.write("plain\r\ne\u0301 combined\r\n\x1b[4:3m\x1b[58;5;1mcurly\x1b[0m\r\nlast");
      const [plain, combined, curly, last] = [0, 1, 2, 3].map(bare.line);
      const objects = [last._combined, last._extendedAttrs];
      last.copyFrom(plain);
      assert.equal(last._combined, objects[0], "the empty _combined is kept (was a new {})");
      assert.equal(last._extendedAttrs, objects[1], "the empty _extendedAttrs is kept");
      assert.equal(last.translateToString(true), "plain");
      last.copyFrom(combined);
      assert.equal(last.translateToString(true), "e\u0301 combined");
      assert.deepEqual(last._combined, combined._combined);
      assert.notEqual(last._combined, combined._combined, "never shared between lines");
      last.copyFrom(curly);
      assert.deepEqual(Object.keys(last._extendedAttrs), Object.keys(curly._extendedAttrs));
      assert.notEqual(last._extendedAttrs, curly._extendedAttrs, "never shared between lines");
      last.copyFrom(plain);
      assert.equal(last.translateToString(true), "plain");
      assert.deepEqual(last._combined, {}, "what a combined line held is gone");
      assert.deepEqual(last._extendedAttrs, {});
    } finally {
      bare.term.dispose();
    }
  });

  it("a flood past the scrollback keeps combined characters and underline colours right", () => {
    const emulator = new Emulator({ cols: 30, rows: 5, scrollback: 10 });
    try {
      const lines: string[] = [];
      let output = "";
      for (let i = 0; i < 3000; i++) {
        const kind = i % 3;
        const text = kind === 0 ? `plain ${i}` : kind === 1 ? `e\u0301 ${i}` : `curly ${i}`;
        lines.push(text);
        output += kind === 2 ? `\x1b[4:3m\x1b[58;5;1m${text}\x1b[0m\r\n` : `${text}\r\n`;
      }
      // In pieces under the 4 KiB the plain-line skip needs: every line goes through xterm.
      const bytes = encoder.encode(output + "end");
      for (let at = 0; at < bytes.length; at += 1000) emulator.write(bytes.subarray(at, at + 1000));
      assert.deepEqual(emulator.lines("all"), [...lines.slice(-14), "end"]);
      const screen = emulator.ansiScreen();
      assert.match(screen, /e\u0301 2998/);
      // The last curly line (2999 % 3 === 2) is underlined on screen; the plain one after it not.
      assert.ok(screen.includes("\x1b[4mcurly 2999"), screen);
      assert.ok(screen.includes("\x1b[0mplain 2997"), screen);
    } finally {
      emulator.dispose();
    }
  });
});
