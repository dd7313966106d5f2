import { describe, it } from "../../harness.ts";
import assert from "node:assert/strict";
import { LineSplitter } from "../../../lib/acp/render/line_splitter.ts";
import { fitEnd, fitStart, label, sanitize, textWidth } from "../../../lib/acp/render/text.ts";

describe("render text", () => {
  const sanitized: [string, string][] = [
    ["plain", "plain"],
    ["\x1b[31mred\x1b[0m", "red"],
    ["a\r\nb", "a\nb"],
    ["title\x1b]0;evil\x07 after", "title after"],
    ["bell\x07 tab\t", "bell tab\t"],
    ["\x1b[2J\x1b[Hwipe", "wipe"],
  ];
  for (const [input, expected] of sanitized) {
    it(`render text: sanitize ${JSON.stringify(input)} gives ${JSON.stringify(expected)}`, () => {
      assert.equal(sanitize(input), expected);
    });
  }

  const fits: [string, number, string, string][] = [
    ["abcdef", 10, "abcdef", "abcdef"],
    ["abcdef", 4, "abc…", "…def"],
    ["日本語テキスト", 7, "日本語…", "…キスト"],
    ["", 3, "", ""],
    ["abc", 0, "", ""],
  ];
  for (const [text, width, start, end] of fits) {
    it(`render text: ${JSON.stringify(text)} fitted to ${width} columns`, () => {
      assert.equal(fitStart(text, width), start);
      assert.equal(fitEnd(text, width), end);
      assert.ok(textWidth(fitStart(text, width)) <= width);
      assert.ok(textWidth(fitEnd(text, width)) <= width);
    });
  }

  it("render text: fitEnd of a very long line keeps its end", () => {
    const long = "x".repeat(100_000) + "END";
    assert.equal(fitEnd(long, 10), "…xxxxxxEND");
  });

  it("render text: a label is one short line", () => {
    assert.equal(label("Run\n  `npm test`"), "Run `npm test`");
    assert.equal(label("x".repeat(100)).length, 40);
    assert.equal(label("   "), "tool");
  });

  const splits: [string[], string[], string | undefined][] = [
    [["a\nb", "c\n"], ["a", "bc"], undefined],
    [["no newline"], [], "no newline"],
    [["\n\n"], ["", ""], undefined],
    [["x", "", "y\nz"], ["xy"], "z"],
  ];
  for (const [pieces, lines, held] of splits) {
    it(`render text: splitting ${JSON.stringify(pieces)} into lines`, () => {
      const splitter = new LineSplitter();
      assert.deepEqual(pieces.flatMap((piece) => splitter.push(piece)), lines);
      assert.equal(splitter.flush(), held);
    });
  }

  it("render text: an endless line is let out in pieces, never splitting a character", () => {
    const splitter = new LineSplitter(5);
    assert.deepEqual(splitter.push("abcd😀efg"), ["abcd"]);
    assert.equal(splitter.flush(), "😀efg");
  });
});
