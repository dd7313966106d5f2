import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import xterm from "@xterm/headless";
import { Emulator, resetWithoutCopy, type XtermCore } from "../../lib/terminal/emulator.ts";

describe("emulator: ANSI screen", () => {
  it("emulator: ansiScreen keeps colours and attributes of the visible rows only", () => {
    const emulator = new Emulator({ cols: 30, rows: 3, scrollback: 100 });
    emulator.write("scrolled away\r\nplain\r\n\x1b[32mgreen\x1b[0m \x1b[4munder\x1b[0m\r\nlast");
    // xterm's serializer resets the underline at the start of the next row, not after "under".
    assert.equal(
      emulator.ansiScreen(),
      "plain\r\n\x1b[32mgreen\x1b[0m \x1b[4munder\r\n\x1b[0mlast",
    );
    emulator.dispose();
  });

  it("emulator: on the alternate screen, ansiScreen is that screen, not the one below", () => {
    const emulator = new Emulator({ cols: 30, rows: 3, scrollback: 100 });
    emulator.write("shell line\r\n\x1b[?1049h\x1b[H\x1b[7mfull screen\x1b[0m");
    assert.equal(emulator.ansiScreen(), "\x1b[7mfull screen\x1b[0m");
    emulator.write("\x1b[?1049l");
    assert.match(emulator.ansiScreen(), /^shell line/);
    emulator.dispose();
  });
});

describe("emulator: SGR 0 without a copy of the extended attributes", () => {
  it("emulator: a reset with no underline to clear keeps the same extended attributes; one with keeps xterm's copy", () => {
    const term = new xterm.Terminal({ cols: 10, rows: 1, allowProposedApi: true });
    type Attributes = { extended: object };
    const core = (term as unknown as { _core: XtermCore })._core;
    const handler = core._inputHandler as unknown as { _curAttrData: Attributes };
    assert.equal(
      typeof core._inputHandler._processSGR0,
      "function",
      "xterm's reset is still there",
    );
    resetWithoutCopy(core);
    const write = (data: string) => core.writeSync(data);
    write("\x1b[31mA");
    const before = handler._curAttrData.extended;
    write("\x1b[0mB");
    assert.equal(handler._curAttrData.extended, before, "no copy when nothing changes");
    write("\x1b[4mC");
    const underlined = handler._curAttrData.extended;
    write("\x1b[0mD");
    assert.notEqual(handler._curAttrData.extended, underlined, "xterm's copy-on-reset");
    term.dispose();
  });

  for (
    const [name, input, expected] of [
      ["colours end at the reset", "\x1b[31;42mA\x1b[0mB", "\x1b[31;42mA\x1b[0mB"],
      ["bold and underline end at the reset", "\x1b[1;4mA\x1b[0mB", "\x1b[1;4mA\x1b[0mB"],
      [
        "an underline colour ends at the reset (xterm's own path)",
        "\x1b[4;58;5;9mA\x1b[0mB",
        "\x1b[4mA\x1b[0mB", // xterm's serializer does not write underline colours.
      ],
      ["a reset with nothing set changes nothing", "\x1b[0mA\x1b[0m\x1b[0mB", "AB"],
      [
        "cells before a reset keep their colour",
        "\x1b[34mAB\x1b[0mC\x1b[34mD",
        "\x1b[34mAB\x1b[0mC\x1b[34mD",
      ],
    ] as const
  ) {
    it(`emulator: ${name}`, () => {
      const emulator = new Emulator({ cols: 10, rows: 1, scrollback: 0 });
      emulator.write(input);
      assert.equal(emulator.ansiScreen(), expected);
      emulator.dispose();
    });
  }
});

describe("emulator: xterm.js bugs a program's output reached", () => {
  it("emulator: erase above (ED 1) from the bottom-right corner of a new screen or the alternate screen", () => {
    // xterm 6.0 threw a TypeError out of its parser here (no line below the bottom row).
    for (const prefix of ["", "\x1b[?1049h"]) {
      const emulator = new Emulator({ cols: 10, rows: 3, scrollback: 100 });
      emulator.write(`${prefix}one\r\ntwo\r\nthree\x1b[999;999H\x1b[1J`);
      emulator.write("\x1b[1;1Hafter");
      assert.deepEqual(emulator.lines("visible"), ["after"]);
      assert.equal(emulator.takeFailure(), undefined);
      emulator.dispose();
    }
  });

  it("emulator: erase above at the end of a row unwraps the row below it, not a line of the scrollback", () => {
    const emulator = new Emulator({ cols: 10, rows: 3, scrollback: 100 });
    emulator.write(Array.from({ length: 6 }, (_, i) => `old ${i}`).join("\r\n"));
    // A 15-character line wraps from row 2 onto row 3; the cursor goes to row 2's last column.
    emulator.write("\r\nabcdefghijklmno\x1b[2;10H\x1b[1J");
    // (xterm 6.0 unwrapped the scrollback's third line instead: "klmno" read as row 2's rest.)
    assert.deepEqual(emulator.lines("visible", true), ["", "", "klmno"]);
    emulator.dispose();
  });

  it("emulator: a line feed on the alternate screen after it was resized smaller, then taller", () => {
    // xterm 6.0 left the alternate screen with fewer lines than rows; the next line feed threw.
    const emulator = new Emulator({ cols: 40, rows: 10, scrollback: 15 });
    emulator.resize(34, 3);
    emulator.write("\x1b[?1049h\n\n\n\n\n\n\n\n\n\x1bM");
    emulator.resize(28, 8);
    emulator.write("\n");
    emulator.resize(29, 14);
    emulator.write("\n\nend");
    assert.equal(emulator.takeFailure(), undefined);
    assert.equal(emulator.lines("visible").at(-1), "end");
    emulator.dispose();
  });

  it("emulator: should xterm throw on some output, the rest is parsed and the failure is told once", () => {
    // A fault put into xterm for this test: its erase in line (CSI K) throws.
    const probe = new xterm.Terminal({ cols: 10, rows: 1, allowProposedApi: true });
    const handler = (probe as unknown as { _core: XtermCore })._core._inputHandler;
    const prototype = Object.getPrototypeOf(handler) as {
      eraseInLine(...args: unknown[]): boolean;
    };
    const eraseInLine = prototype.eraseInLine;
    prototype.eraseInLine = () => {
      throw new TypeError("a fault put in for this test");
    };
    const emulator = new Emulator({ cols: 20, rows: 3, scrollback: 10 });
    try {
      emulator.write("one\x1b[Klost");
      emulator.write("\r\n\x1b[31mtwo\x1b[0m");
      assert.deepEqual(emulator.lines("visible"), ["one", "two"]);
      assert.equal(emulator.takeFailure(), "TypeError: a fault put in for this test");
      assert.equal(emulator.takeFailure(), undefined);
    } finally {
      prototype.eraseInLine = eraseInLine;
      emulator.dispose();
      probe.dispose();
    }
  });
});
