/**
 * Issue 16 item 12 (`pipe`): a session's output appended to a file as it
 * comes, like tmux's pipe-pane, until `pipe NAME` with no file stops it;
 * through the built binary (the sources when it is not current).
 * @module
 */

import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "../harness.ts";
import { waitUntil } from "../helpers.ts";
import { BINARY_CURRENT, inWorld } from "./_kit.ts";

const BUILD = BINARY_CURRENT ? "binary" : "source";

describe("session server: pipe", () => {
  it("pipe NAME FILE appends the output as it comes; pipe NAME stops it", () =>
    inWorld(BUILD, async (world) => {
      const file = join(world.dir, "out.log");
      writeFileSync(file, "kept\n");
      await world.ok(["new", "s"]);
      await world.ok(["exec", "s", "echo before-pipe"]);
      await world.ok(["pipe", "s", "out.log"]);
      // Output that comes while the command runs is in the file before the command ends.
      await world.ok(["type", "s", "echo first-$((6*7)); sleep 30\n"]);
      await waitUntil(() => readFileSync(file, "utf8").includes("first-42\n"), "the piped output");
      await world.ok(["key", "s", "C-c"]);
      await world.ok(["wait", "s", "prompt"]);
      await world.ok(["exec", "s", "echo second-$((2+3))"]);
      await waitUntil(() => readFileSync(file, "utf8").includes("second-5\n"), "more piped output");
      await world.ok(["pipe", "s"]);
      await world.ok(["exec", "s", "echo after-stop"]);
      const text = readFileSync(file, "utf8");
      assert.ok(text.startsWith("kept\n"), "appended, not replaced");
      assert.doesNotMatch(text, /before-pipe|after-stop/);
      assert.doesNotMatch(text, new RegExp(String.fromCharCode(0x1b)), "plain text");
      // Bad uses: two files, an unknown session, a directory that does not exist.
      assert.equal((await world.tb(["pipe", "s", "a", "b"])).code, 2);
      assert.equal((await world.tb(["pipe", "nope", "x"])).code, 121);
      const missing = await world.tb(["pipe", "s", join(world.dir, "no", "x")]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /Cannot pipe to ".*no\/x": no such file or directory/);
      assert.equal(existsSync(join(world.dir, "no")), false);
    }));
});
