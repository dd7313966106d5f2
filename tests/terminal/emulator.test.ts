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
