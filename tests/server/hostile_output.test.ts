/**
 * A program's output that broke the screen emulator must not stop the
 * server: `printf '\e[999;999H\e[1J'` (erase above, from the bottom-right
 * corner of a screen that has not scrolled yet) threw out of xterm.js's
 * parser, which ended the one loop that reads every session's terminal: that
 * session's `exec` and every other session's waited until their timeouts
 * (reproduced through the binary before the fix).
 * @module
 */

import assert from "node:assert/strict";
import { describe, it } from "../harness.ts";
import { BUILD } from "./_attacks.ts";
import { inWorld } from "./_kit.ts";

describe("session server: output that broke the screen emulator", () => {
  it("server: erase above from the bottom-right corner leaves every session working", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "s", "--", "bash", "--norc"]);
      await world.ok(["new", "t", "--", "bash", "--norc"]);
      const hostile = await world.tb([
        "exec",
        "s",
        "--timeout",
        "10",
        "printf '\\e[999;999H\\e[1J'; echo after",
      ]);
      assert.equal(hostile.code, 0, hostile.stdout + hostile.stderr);
      assert.match(hostile.stdout, /after/);
      assert.equal(await world.ok(["exec", "t", "--timeout", "10", "echo other"]), "other\n");
      // "after" starts in the last column and wraps: one logical line.
      assert.match(await world.ok(["screen", "s", "--logical"]), / after\n/);
    }));
});
