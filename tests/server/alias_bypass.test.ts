/**
 * A user's report, through the built binary: with `touch` denied, two alias
 * forms ran it anyway. In bash, an alias ending in a blank makes the next word
 * an alias too (`alias e='echo '; alias YY='; touch F'`, then `e YY`); in zsh,
 * a global alias is replaced anywhere in the line (`alias -g XX='; touch F'`,
 * then `echo XX`). The check saw `echo` in both.
 * @module
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { describe, it, itWhen } from "../harness.ts";
import { BINARY_CURRENT, inWorld } from "./_kit.ts";

const BUILD = BINARY_CURRENT ? "binary" : "source";
const DENY_TOUCH = '{ "policy": { "deny": ["touch"] } }';
const HAS_ZSH = spawnSync("zsh", ["-c", "true"]).status === 0;

describe("session server: aliases that hide a refused program in a later word", () => {
  it("bash: the word after an alias ending in a blank is seen as the alias it is", () =>
    inWorld(BUILD, async (world) => {
      world.configure(DENY_TOUCH);
      const marker = join(world.dir, "b1");
      await world.ok(["new", "b"]);
      await world.ok(["exec", "b", `alias e='echo '; alias YY='; touch ${marker}'`]);
      const run = await world.tb(["exec", "b", "e YY"]);
      assert.equal(run.code, 126, run.stderr);
      assert.equal(existsSync(marker), false);
      assert.match(
        await world.ok(["screen", "b", "--logical"]),
        /Denied by policy.*inside alias e/,
      );
    }));

  itWhen(
    HAS_ZSH,
    "zsh: a global alias anywhere in the line is seen as its value",
    () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const marker = join(world.dir, "g1");
        await world.ok(["new", "z", "--", "zsh"]);
        await world.ok(["exec", "z", `alias -g XX='; touch ${marker}'`]);
        assert.equal((await world.tb(["exec", "z", "echo XX"])).code, 126);
        await world.ok(["type", "z", "--", "echo XX"]);
        await world.ok(["key", "z", "Enter"]);
        await world.ok(["wait", "z", "prompt"]);
        assert.equal(existsSync(marker), false);
        assert.match(
          await world.ok(["screen", "z", "--logical"]),
          /Denied by policy.*an alias in the line/,
        );
      }),
  );

  for (const shell of ["bash", ...(HAS_ZSH ? ["zsh"] : [])]) {
    it(`${shell}: an alias of a reserved word (if) is seen as its value`, () =>
      inWorld(BUILD, async (world) => {
        world.configure(DENY_TOUCH);
        const marker = join(world.dir, "rw1");
        await world.ok(["new", "s", "--", shell]);
        // Backslashes keep the word "touch" out of the alias line itself: checked at use.
        await world.ok(["exec", "s", `alias if=tou\\ch\\ ${marker}\\;if`]);
        assert.equal((await world.tb(["exec", "s", "if true; then echo hi; fi"])).code, 126);
        assert.equal(existsSync(marker), false);
      }));
  }
});
