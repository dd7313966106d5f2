import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { CommandError } from "../../lib/console/errors.ts";
import { quoteWord, tokenize } from "../../lib/console/tokenize.ts";
import { parseTextArgs } from "../../lib/console/text_args.ts";

describe("console: tokenize", () => {
  const cases: [string, string[]][] = [
    ["", []],
    ["   ", []],
    ["# a comment", []],
    ["  # indented comment", []],
    ["type hello world", ["type", "hello", "world"]],
    ["type   spaced\tand\ttabs  ", ["type", "spaced", "and", "tabs"]],
    ["type 'single  quoted'", ["type", "single  quoted"]],
    [`type 'no \\n escapes in single quotes'`, ["type", "no \\n escapes in single quotes"]],
    [`type "double \\"quoted\\""`, ["type", 'double "quoted"']],
    [`type "line\\n"`, ["type", "line\n"]],
    [`type "tab\\tcr\\resc\\e"`, ["type", "tab\tcr\resc\x1b"]],
    [`type "\\x41\\x62"`, ["type", "Ab"]],
    [`type a\\ b`, ["type", "a b"]],
    [`type \\#not-a-comment`, ["type", "#not-a-comment"]],
    ["type a#b # comment", ["type", "a#b"]],
    [`type "# in quotes"`, ["type", "# in quotes"]],
    [`type ""`, ["type", ""]],
    [`type ''`, ["type", ""]],
    [`type "a"'b'c`, ["type", "abc"]],
    [`expect /\\d+ passed/`, ["expect", "/\\d+", "passed/"]],
    [`expect '/\\d+ passed/'`, ["expect", "/\\d+ passed/"]],
    [`expect "/\\d+\\.\\d+/"`, ["expect", "/\\d+\\.\\d+/"]],
    [`type back\\\\slash`, ["type", "back\\slash"]],
    [`type "\\$HOME" \\$HOME`, ["type", "$HOME", "$HOME"]],
    [`type "\\xZZ"`, ["type", "\\xZZ"]],
    ["type héllo 😀", ["type", "héllo", "😀"]],
  ];
  for (const [line, words] of cases) {
    it(`tokenize: ${JSON.stringify(line)} reads as ${JSON.stringify(words)}`, () => {
      assert.deepEqual(tokenize(line), words);
    });
  }

  const errors: [string, RegExp][] = [
    [`type "hello world`, /^Cannot parse line: unclosed " at column 6 /],
    [`type 'hello`, /^Cannot parse line: unclosed ' at column 6 /],
    [`key Enter   "x`, /unclosed " at column 13/],
    [`type trailing\\`, /^Cannot parse line: a backslash ends the line at column 14/],
  ];
  for (const [line, message] of errors) {
    it(`tokenize: ${JSON.stringify(line)} is an error naming the column`, () => {
      assert.throws(() => tokenize(line), (error: unknown) => {
        assert.ok(error instanceof CommandError);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});

describe("console: quoteWord", () => {
  const words = [
    "ls",
    "a b",
    "it's",
    "line\n",
    'say "hi"',
    "\x1b[A",
    "back\\slash",
    "#hash",
    "$HOME",
    "",
    "/\\d+/",
    "tab\there",
    "\x01\x7f",
  ];
  for (const word of words) {
    it(`quoteWord: ${JSON.stringify(word)} reads back unchanged`, () => {
      assert.deepEqual(tokenize(`type ${quoteWord(word)}`), ["type", word]);
    });
    // A user's report: `termbridge type s "echo 'a b'"` typed the text shell-quoted: the text
    // commands take a wholly quoted word without its quotes, and other text as written.
    it(`quoteWord: ${JSON.stringify(word)} is one quoted string for the text commands`, () => {
      assert.equal(parseTextArgs("type", quoteWord(word)).text, word);
    });
  }

  it("quoteWord: plain words stay unquoted", () => {
    assert.equal(quoteWord("--size"), "--size");
    assert.equal(quoteWord("80x24"), "80x24");
    assert.equal(quoteWord("/usr/bin/env"), "/usr/bin/env");
  });
});
