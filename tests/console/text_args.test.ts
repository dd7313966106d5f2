import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { CommandError } from "../../lib/console/errors.ts";
import { parseLine } from "../../lib/console/executor.ts";
import { parseTextArgs, type TextSpec } from "../../lib/console/text_args.ts";

const EXPECT: TextSpec = { options: { timeout: "value", gone: "flag" }, trailing: true };
const EXEC: TextSpec = { options: { timeout: "value" } };

describe("console: the rest of the line as text", () => {
  const cases: [string, TextSpec, string, Record<string, string | true>][] = [
    ['print("woke")', EXPECT, 'print("woke")', {}],
    ["echo \"a  b\" 'c'", EXEC, "echo \"a  b\" 'c'", {}],
    ['"echo hi\\n"', {}, "echo hi\n", {}],
    ["'a  b' --timeout 5", EXPECT, "a  b", { timeout: "5" }],
    ["--timeout=2 --gone Loading", EXPECT, "Loading", { timeout: "2", gone: true }],
    ["ready --gone --timeout 1.5", EXPECT, "ready", { timeout: "1.5", gone: true }],
    ["/\\d+ passed/ --timeout 60", EXPECT, "/\\d+ passed/", { timeout: "60" }],
    ["--timeout 9 pytest --timeout 5", EXEC, "pytest --timeout 5", { timeout: "9" }],
    ["-- --timeout is text", EXPECT, "--timeout is text", {}],
    ['"a" b', {}, '"a" b', {}],
    ["'#' not a comment # here", {}, "'#' not a comment # here", {}],
    ["  spaced   out  ", {}, "spaced   out", {}],
    ['"say \\"hi\\""', {}, 'say "hi"', {}],
    ["", EXEC, "", {}],
  ];
  for (const [raw, spec, text, options] of cases) {
    it(`text: ${JSON.stringify(raw)} reads as ${JSON.stringify(text)}`, () => {
      const parsed = parseTextArgs("cmd", raw, spec);
      assert.equal(parsed.text, text);
      assert.deepEqual(parsed.options, options);
    });
  }

  const errors: [string, TextSpec, RegExp][] = [
    ['"never closed', {}, /^Cannot parse line: unclosed " at the start of the text/],
    ["--timout 3 x", EXPECT, /did you mean "--timeout"\?/],
    ["x --timout 3", EXPECT, /did you mean "--timeout"\? \(quote the text if it belongs to it\)/],
    ["--timeout", EXEC, /--timeout in "cmd": it needs a value after it/],
    ["--gone=yes x", EXPECT, /--gone takes no value/],
  ];
  for (const [raw, spec, message] of errors) {
    it(`text: ${JSON.stringify(raw)} is an error that says what would be right`, () => {
      assert.throws(() => parseTextArgs("cmd", raw, spec), (error: unknown) => {
        assert.ok(error instanceof CommandError);
        assert.match(error.message, message);
        return true;
      });
    });
  }

  it("text: every command that takes the rest of its line follows the same rule", () => {
    const read = (line: string) => parseLine(line, "script")!.parsed as Record<string, unknown>;
    assert.equal(read('input print("woke")').text, 'print("woke")');
    assert.equal(read('exec echo "woke"').command, 'echo "woke"');
    assert.equal(read('type print("woke")'), 'print("woke")');
    assert.deepEqual(read('expect print("woke")').pattern, { text: 'print("woke")' });
    assert.deepEqual(read("expect-output /wo+ke/").valueOf(), { regex: "wo+ke" });
    assert.deepEqual(read("wait /wo+ke/").condition, { regex: "wo+ke", scope: undefined });
    assert.deepEqual(read('wait text print("woke")').condition, {
      text: 'print("woke")',
      scope: undefined,
    });
    assert.deepEqual(read("wait ready --all").condition, { text: "ready", scope: "all" });
    assert.deepEqual(read("wait 'prompt'").condition, { text: "prompt", scope: undefined });
    assert.deepEqual(read("wait prompt").condition, { prompt: true });
  });
});
