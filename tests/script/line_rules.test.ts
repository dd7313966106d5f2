/**
 * `termbridge run` through the built binary, on what scripts found: `type`
 * sends its text as written (a newline runs the line, no silent paste),
 * `paste` is the explicit bracketed paste, `exec` right after Ctrl+C at an
 * idle prompt keeps its first character, and one quoting rule for every
 * command that takes the rest of its line.
 * @module
 */

import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { inTempDir, termbridge } from "./_cli.ts";

/** Runs `script` with the built termbridge and returns what it printed, failing with its stderr. */
async function runScript(dir: string, script: string): Promise<string> {
  writeFileSync(join(dir, "s.tb"), script);
  const result = await termbridge(["run", "s.tb"], { cwd: dir, built: true });
  assert.equal(result.stderr, "", `the script failed:\n${result.stderr}`);
  assert.equal(result.code, 0);
  return result.stdout;
}

describe("script: text as written", () => {
  it("type: a newline in the text runs the line at once; nothing is wrapped in a paste", async () => {
    await inTempDir(async (dir) => {
      // The echoed lines show o''ne and t''wo: only the commands' output shows one and two.
      await runScript(
        dir,
        `open
type "echo o''ne\\necho t''wo"
expect '/^one$/'
key Enter
expect '/^two$/'
`,
      );
    });
  });

  it("paste: several lines arrive as one bracketed paste when the program asked for it", async () => {
    await inTempDir(async (dir) => {
      await runScript(
        dir,
        `open
exec --timeout 0.1 printf '\\033[?2004h'; stty -icanon -echo; echo re''ady; cat -v
expect /^ready$/
paste "a\\nb"
expect '/\\^\\[\\[200~a/'
expect '/^b\\^\\[\\[201~/'
key C-c
`,
      );
    });
  });

  it("exec: right after Ctrl+C at an idle prompt, the command keeps its first character", async () => {
    await inTempDir(async (dir) => {
      const out = await runScript(
        dir,
        `open
key C-c
exec echo first
expect-output first
key C-c
exec echo second
key C-c
key C-c
exec echo third
expect-exit 0
`,
      );
      assert.equal(out, "first\nsecond\nthird\n");
    });
  });

  it("quoting: input keeps its quotes as exec does; wait takes /regex/ as expect does", async () => {
    await inTempDir(async (dir) => {
      const out = await runScript(
        dir,
        `open
exec echo "two  spaces" 'kept'
open py -- python3 -q
input print("woke")
expect '/^woke$/'
wait /^wo+ke$/
input print('it''s')
expect /^its$/ --timeout 10
`,
      );
      assert.match(out, /^two {2}spaces kept\n/);
      assert.match(out, /\nwoke\n/);
    });
  });
});
