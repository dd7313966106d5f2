import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { HistorySearch } from "../../lib/repl/history_search.ts";

const HISTORY = ["exec make test", "open", "exec make build", "exec ls"]; // Newest first.
const CTRL_R = { ctrl: true, name: "r" };

describe("repl: history search", () => {
  it("search: typing narrows to the newest line containing the text", () => {
    const search = new HistorySearch(HISTORY, "");
    assert.equal(search.render(), "(reverse-i-search)`': ");
    search.key("m");
    search.key("a");
    assert.equal(search.render(), "(reverse-i-search)`ma': exec make test");
  });

  it("search: Ctrl+R moves to the next older match; past the last it fails and keeps the match", () => {
    const search = new HistorySearch(HISTORY, "");
    for (const c of "make") search.key(c);
    search.key(undefined, CTRL_R);
    assert.equal(search.line, "exec make build");
    search.key(undefined, CTRL_R);
    assert.equal(search.render(), "(failed reverse-i-search)`make': exec make build");
  });

  it("search: Backspace widens again; Enter accepts, Escape edits, Ctrl+G gives the line back", () => {
    const search = new HistorySearch(HISTORY, "half typed");
    for (const c of "lsx") search.key(c);
    assert.match(search.render(), /^\(failed /);
    search.key(undefined, { name: "backspace" });
    assert.equal(search.render(), "(reverse-i-search)`ls': exec ls");
    assert.deepEqual(search.key("\r", { name: "return" }), { kind: "accept", line: "exec ls" });
    assert.deepEqual(search.key("\x1b", { name: "escape" }), { kind: "edit", line: "exec ls" });
    assert.deepEqual(search.key(undefined, { ctrl: true, name: "g" }), {
      kind: "cancel",
      line: "half typed",
    });
  });
});
