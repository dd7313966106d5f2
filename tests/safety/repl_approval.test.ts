/**
 * The REPL answers the policy's "ask" with a y/n question on its terminal:
 * "y" runs the command, "n" refuses it with the rule named, and the REPL goes
 * on. Driven through a real pseudo-terminal.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inTempDir, testEnv } from "../script/_cli.ts";
import { ReplDriver, TIMEOUT_MS } from "../repl/_driver.ts";

describe("repl approvals", () => {
  it("repl: the policy's ask is a y/n question; y runs the command, n refuses it", async () => {
    await inTempDir(async (dir) => {
      const bin = join(dir, "bin");
      mkdirSync(bin);
      writeFileSync(join(bin, "marker"), `#!/bin/sh\ntouch "${dir}/ran-$1"\n`);
      chmodSync(join(bin, "marker"), 0o755);
      writeFileSync(join(dir, "termbridge.jsonc"), '{ "policy": { "ask": ["marker"] } }');
      const env = { ...testEnv(dir), PATH: `${bin}:${testEnv(dir).PATH}` };
      const repl = new ReplDriver(dir, { env });
      try {
        await repl.untilPrompt(0);
        await repl.send("open");
        for (const [name, answer] of [["yes", "y"], ["no", "n"]]) {
          const mark = repl.mark();
          repl.terminal.write(`exec marker ${name}\r`);
          await repl.terminal.waitFor(
            () => /\[y\/N\] $/.test(repl.since(mark)) || undefined,
            "the y/n question",
            TIMEOUT_MS,
          );
          assert.match(repl.since(mark), new RegExp(`Run marker ${name}\\? The policy asks`));
          repl.terminal.write(`${answer}\r`);
          const shown = await repl.untilPrompt(mark);
          if (answer === "n") {
            assert.match(shown, /Denied by policy: ask rule "marker" .*not approved \(user\)/);
          }
        }
        assert.equal(existsSync(join(dir, "ran-yes")), true);
        assert.equal(existsSync(join(dir, "ran-no")), false);
        assert.match(await repl.send("exec echo still here"), /still here/);
      } finally {
        await repl.dispose();
      }
    });
  });
});
