import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMMANDS } from "../../lib/console/table.ts";
import { complete } from "../../lib/repl/completer.ts";
import { HISTORY_SIZE, HistoryFile, historyPath } from "../../lib/repl/history.ts";

describe("repl: completion", () => {
  it("completion: an empty line offers every command", () => {
    assert.deepEqual(complete("", [])[0], COMMANDS.map((c) => c.name).sort());
  });

  const cases: [string, string[], string][] = [
    ["scr", ["screen "], "scr"],
    ["ex", ["exec", "expect", "expect-exit", "expect-output"], "ex"],
    ["key Ent", ["Enter "], "Ent"],
    ["key ctrl+", [], "ctrl+"],
    ["key Enter C-", ["C-a", "C-c", "C-d", "C-e", "C-l", "C-r", "C-z"], "C-"],
    ["use b", ["build", "bun"], "b"],
    ["close ", ["build", "bun", "main"], ""],
    ["attach m", ["main "], "m"],
    ["help exp", ["expect", "expect-exit", "expect-output"], "exp"],
    ["help ke", ["key", "keys"], "ke"],
    ["wait p", ["prompt "], "p"],
    ["open x --c", ["--cwd "], "--c"],
    ["open x -- vi", [], "vi"],
    ["exec ls --", [], "--"],
    ["type wor", [], "wor"],
    ["screen", ["screen "], "screen"],
    ["key Ctrl+", ["Ctrl+A", "Ctrl+B"], "Ctrl+"],
    ["expect --ti", ["--timeout "], "--ti"],
    ["expect ready --g", ["--gone "], "--g"],
    ["exec make --ti", [], "--ti"],
    ["input C-", ["C-a", "C-c", "C-d", "C-e", "C-l", "C-r", "C-z"], "C-"],
  ];
  for (const [line, hits, word] of cases) {
    it(`completion: ${JSON.stringify(line)} offers ${JSON.stringify(hits)}`, () => {
      const [got, completing] = complete(line, ["main", "build", "bun"]);
      assert.equal(completing, word);
      if (line === "key ctrl+" || line === "key Ctrl+") {
        assert.ok(got.includes("Ctrl+C") && got.every((k) => k.startsWith("Ctrl+")), got.join());
      } else {
        assert.deepEqual(got, hits);
      }
    });
  }
});

describe("repl: history file", () => {
  it("history: lives under XDG_STATE_HOME, else ~/.local/state", () => {
    assert.equal(historyPath({ XDG_STATE_HOME: "/s", HOME: "/h" }), "/s/termbridge/history");
    assert.equal(historyPath({ HOME: "/h" }), "/h/.local/state/termbridge/history");
    assert.equal(
      historyPath({ XDG_STATE_HOME: "relative", HOME: "/h" }),
      "/h/.local/state/termbridge/history",
    );
    assert.equal(historyPath({}), undefined);
  });

  it("history: appends line by line, creates its directories, loads newest first", () => {
    const dir = mkdtempSync(join(tmpdir(), "termbridge-history-test-"));
    try {
      const file = new HistoryFile(join(dir, "a", "b", "history"));
      assert.deepEqual(file.load(), []);
      file.append("open");
      file.append("   ");
      file.append("exec ls");
      assert.equal(readFileSync(file.path, "utf8"), "open\nexec ls\n");
      assert.equal(statSync(file.path).mode & 0o777, 0o600, "the history is private");
      assert.deepEqual(new HistoryFile(file.path).load(), ["exec ls", "open"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("history: keeps the newest lines when the file grows past twice the size kept", () => {
    const dir = mkdtempSync(join(tmpdir(), "termbridge-history-test-"));
    try {
      const path = join(dir, "history");
      const lines = Array.from({ length: 2 * HISTORY_SIZE - 1 }, (_, i) => `type ${i}`);
      writeFileSync(path, lines.join("\n") + "\n");
      const file = new HistoryFile(path);
      assert.equal(file.load().length, HISTORY_SIZE);
      file.append("last");
      const kept = readFileSync(path, "utf8").trimEnd().split("\n");
      assert.equal(kept.length, HISTORY_SIZE);
      assert.equal(kept.at(-1), "last");
      assert.equal(kept[0], `type ${HISTORY_SIZE}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
