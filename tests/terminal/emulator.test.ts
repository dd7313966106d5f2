import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { Emulator } from "../../lib/terminal/emulator.ts";

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
