/**
 * The README's `termbridge run` example, taken from README.md verbatim and
 * run with the built termbridge against a real project: a Makefile whose
 * `test` target runs a real (Python unittest) test suite, then vim.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inTempDir, termbridge } from "./_cli.ts";

/** The script the README shows as `check.tb` (between `$ cat check.tb` and the run). */
function readmeScript(): string {
  const readme = readFileSync(new URL("../../README.md", import.meta.url).pathname, "utf8");
  const match = /\n\$ cat check\.tb\n([\s\S]*?)\n\$ termbridge run check\.tb/.exec(readme);
  assert.ok(match, "README.md shows check.tb between `$ cat check.tb` and `$ termbridge run`");
  return match[1] + "\n";
}

/** A small project with a real test suite behind `make test`. */
function makeProject(dir: string): void {
  writeFileSync(join(dir, "Makefile"), "test:\n\tpython3 -m unittest discover -v -s tests\n");
  mkdirSync(join(dir, "tests"));
  writeFileSync(
    join(dir, "tests", "test_arithmetic.py"),
    [
      "import time",
      "import unittest",
      "",
      "class Arithmetic(unittest.TestCase):",
      "    def test_adds(self):",
      "        self.assertEqual(1 + 2, 3)",
      "",
      "    def test_takes_a_while(self):",
      "        time.sleep(1)",
      "        self.assertTrue(True)",
      "",
    ].join("\n"),
  );
}

describe("script: the README's example", () => {
  it("readme: check.tb runs as written against a real project: tests pass, vim opens and quits", async () => {
    const script = readmeScript();
    assert.match(script, /^exec --timeout \d+ make test$/m, "the example gives make test time");
    await inTempDir(async (dir) => {
      makeProject(dir);
      writeFileSync(join(dir, "check.tb"), script);
      const result = await termbridge(["run", "check.tb"], { cwd: dir, built: true });
      assert.equal(result.stderr, "", result.stderr);
      assert.equal(result.code, 0);
      assert.match(result.stdout, /Ran 2 tests in/);
      assert.match(result.stdout, /\nOK\n/);
      assert.equal(existsSync(join(dir, "notes.txt")), false, "vim quit without writing");
    });
  });

  it("readme: the example's expect fails when vim never shows the file (the command line alone does not match)", async () => {
    const script = readmeScript().replace(/^type "vim notes\.txt\\n"$/m, 'type "vim notes.txt"');
    await inTempDir(async (dir) => {
      makeProject(dir);
      writeFileSync(join(dir, "check.tb"), script);
      const result = await termbridge(
        ["run", "--timeout", "1", "check.tb"],
        { cwd: dir, built: true },
      );
      assert.equal(result.code, 1);
      assert.match(result.stderr, /check\.tb:5: expect '"notes\.txt" \[New': Timed out/);
    });
  });
});
