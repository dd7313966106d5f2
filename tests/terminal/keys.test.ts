import { describe, it } from "../harness.ts";
import assert from "node:assert/strict";
import { isKeyName, KEY_NAMES, keyToSequence, UnknownKeyError } from "../../lib/terminal/keys.ts";

const APP = { applicationCursorKeys: true };
const NORMAL = { applicationCursorKeys: false };

/** Shows control characters so failing test names and messages are readable. */
function show(s: string): string {
  return JSON.stringify(s);
}

/** Calls `fn` and returns what it threw; fails when it returns. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail("expected an error");
}

/** Runs one `it` per row: the key name sends the expected bytes. */
function table(rows: ReadonlyArray<readonly [string, string]>, modes?: typeof APP): void {
  for (const [name, bytes] of rows) {
    it(`keys: ${name} sends ${show(bytes)}`, () => {
      assert.equal(keyToSequence(name, modes), bytes);
    });
  }
}

const FUNCTION_KEYS: ReadonlyArray<readonly [string, string]> = [
  ["F1", "\x1bOP"],
  ["F2", "\x1bOQ"],
  ["F3", "\x1bOR"],
  ["F4", "\x1bOS"],
  ["F5", "\x1b[15~"],
  ["F6", "\x1b[17~"],
  ["F7", "\x1b[18~"],
  ["F8", "\x1b[19~"],
  ["F9", "\x1b[20~"],
  ["F10", "\x1b[21~"],
  ["F11", "\x1b[23~"],
  ["F12", "\x1b[24~"],
];

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("");

describe("keys: friendly vocabulary", () => {
  table([
    ["Enter", "\r"],
    ["Tab", "\t"],
    ["Escape", "\x1b"],
    ["Backspace", "\x7f"],
    ["Delete", "\x1b[3~"],
    ["ArrowUp", "\x1b[A"],
    ["ArrowDown", "\x1b[B"],
    ["ArrowRight", "\x1b[C"],
    ["ArrowLeft", "\x1b[D"],
    ["Home", "\x1b[H"],
    ["End", "\x1b[F"],
    ["PageUp", "\x1b[5~"],
    ["PageDown", "\x1b[6~"],
    ["Insert", "\x1b[2~"],
    ...FUNCTION_KEYS,
    ...LETTERS.map((c, i) => [`Ctrl+${c}`, String.fromCharCode(i + 1)] as const),
    ["Ctrl+[", "\x1b"],
    ["Ctrl+\\", "\x1c"],
    ["Ctrl+]", "\x1d"],
    ["Ctrl+^", "\x1e"],
    ["Ctrl+_", "\x1f"],
    ["Ctrl+Space", "\x00"],
    ["Space", " "],
    ["Shift+Tab", "\x1b[Z"],
    ["Alt+x", "\x1bx"],
    ["Alt+X", "\x1bX"],
    ["Meta+f", "\x1bf"],
    ["Return", "\r"],
    ["Esc", "\x1b"],
    ["Del", "\x1b[3~"],
    ["Ins", "\x1b[2~"],
    ["PgUp", "\x1b[5~"],
    ["PgDn", "\x1b[6~"],
    ["Backtab", "\x1b[Z"],
  ]);
});

describe("keys: tmux vocabulary", () => {
  table([
    ["C-c", "\x03"],
    ["C-d", "\x04"],
    ["C-z", "\x1a"],
    ["C-a", "\x01"],
    ["C-e", "\x05"],
    ["C-k", "\x0b"],
    ["C-l", "\x0c"],
    ["C-u", "\x15"],
    ["C-w", "\x17"],
    ["C-Space", "\x00"],
    ["C-@", "\x00"],
    ["C-[", "\x1b"],
    ["C-\\", "\x1c"],
    ["M-f", "\x1bf"],
    ["M-b", "\x1bb"],
    ["M-F", "\x1bF"],
    ["M-.", "\x1b."],
    ["M--", "\x1b-"],
    ["S-Tab", "\x1b[Z"],
    ["BTab", "\x1b[Z"],
    ["S-F6", "\x1b[17;2~"],
    ["C-S-x", "\x18"],
    ["C-M-x", "\x1b\x18"],
    ["C-Up", "\x1b[1;5A"],
    ["M-Up", "\x1b[1;3A"],
    ["S-Up", "\x1b[1;2A"],
    ["Up", "\x1b[A"],
    ["Down", "\x1b[B"],
    ["Right", "\x1b[C"],
    ["Left", "\x1b[D"],
    ["Home", "\x1b[H"],
    ["End", "\x1b[F"],
    ["PageUp", "\x1b[5~"],
    ["PageDown", "\x1b[6~"],
    ["PgUp", "\x1b[5~"],
    ["PgDn", "\x1b[6~"],
    ["PPage", "\x1b[5~"],
    ["NPage", "\x1b[6~"],
    ...FUNCTION_KEYS,
    ["Enter", "\r"],
    ["Escape", "\x1b"],
    ["Space", " "],
    ["Tab", "\t"],
    ["BSpace", "\x7f"],
    ["DC", "\x1b[3~"],
    ["IC", "\x1b[2~"],
  ]);
});

describe("keys: single characters", () => {
  table([["a", "a"], ["q", "q"], ["Q", "Q"], [":", ":"], ["+", "+"], ["-", "-"], [" ", " "]]);

  it("keys: a non-ASCII or control character is not a key", () => {
    for (const name of ["é", "\x03", "\n", "\x7f"]) {
      assert.throws(() => keyToSequence(name), UnknownKeyError, show(name));
    }
  });
});

describe("keys: cursor keys follow DECCKM", () => {
  const rows = [
    ["ArrowUp", "A"],
    ["ArrowDown", "B"],
    ["ArrowRight", "C"],
    ["ArrowLeft", "D"],
    ["Up", "A"],
    ["Down", "B"],
    ["Right", "C"],
    ["Left", "D"],
    ["Home", "H"],
    ["End", "F"],
  ] as const;
  for (const [name, final] of rows) {
    it(`keys: ${name} sends SS3 in application cursor mode`, () => {
      assert.equal(keyToSequence(name, APP), `\x1bO${final}`);
    });
    it(`keys: ${name} sends CSI in normal cursor mode`, () => {
      assert.equal(keyToSequence(name, NORMAL), `\x1b[${final}`);
      assert.equal(keyToSequence(name), `\x1b[${final}`);
    });
    it(`keys: Ctrl+${name} sends the xterm modified form in both modes`, () => {
      assert.equal(keyToSequence(`Ctrl+${name}`, APP), `\x1b[1;5${final}`);
      assert.equal(keyToSequence(`Ctrl+${name}`, NORMAL), `\x1b[1;5${final}`);
    });
  }

  it("keys: application cursor mode leaves other keys alone", () => {
    assert.equal(keyToSequence("PageUp", APP), "\x1b[5~");
    assert.equal(keyToSequence("F1", APP), "\x1bOP");
    assert.equal(keyToSequence("Enter", APP), "\r");
  });
});

describe("keys: modifiers", () => {
  table([
    ["Shift+ArrowUp", "\x1b[1;2A"],
    ["Alt+ArrowUp", "\x1b[1;3A"],
    ["Alt+Shift+ArrowUp", "\x1b[1;4A"],
    ["Ctrl+ArrowUp", "\x1b[1;5A"],
    ["Ctrl+Shift+ArrowUp", "\x1b[1;6A"],
    ["Ctrl+Alt+ArrowUp", "\x1b[1;7A"],
    ["Ctrl+Alt+Shift+ArrowUp", "\x1b[1;8A"],
    ["Ctrl+ArrowLeft", "\x1b[1;5D"],
    ["Shift+Home", "\x1b[1;2H"],
    ["Ctrl+End", "\x1b[1;5F"],
    ["Shift+F1", "\x1b[1;2P"],
    ["Ctrl+F4", "\x1b[1;5S"],
    ["Shift+F5", "\x1b[15;2~"],
    ["Ctrl+F12", "\x1b[24;5~"],
    ["Ctrl+Delete", "\x1b[3;5~"],
    ["Shift+PageUp", "\x1b[5;2~"],
    ["Alt+PageDown", "\x1b[6;3~"],
    ["Ctrl+Insert", "\x1b[2;5~"],
    ["Alt+Enter", "\x1b\r"],
    ["M-Enter", "\x1b\r"],
    ["Alt+Backspace", "\x1b\x7f"],
    ["M-BSpace", "\x1b\x7f"],
    ["Ctrl+Backspace", "\x08"],
    ["Alt+Tab", "\x1b\t"],
    ["Alt+Shift+Tab", "\x1b\x1b[Z"],
    ["Alt+Escape", "\x1b\x1b"],
    ["Alt+Space", "\x1b "],
    ["Shift+a", "A"],
    ["S-a", "A"],
    ["Shift+Space", " "],
    ["Ctrl+Shift+C", "\x03"],
    ["Ctrl+Alt+c", "\x1b\x03"],
    ["Ctrl-C", "\x03"],
    ["Alt-f", "\x1bf"],
    ["Control+c", "\x03"],
    ["Option+b", "\x1bb"],
  ]);
});

describe("keys: case-insensitivity", () => {
  table([
    ["enter", "\r"],
    ["ENTER", "\r"],
    ["escape", "\x1b"],
    ["arrowup", "\x1b[A"],
    ["pageup", "\x1b[5~"],
    ["f5", "\x1b[15~"],
    ["bspace", "\x7f"],
    ["dc", "\x1b[3~"],
    ["btab", "\x1b[Z"],
    ["ctrl+c", "\x03"],
    ["CTRL+C", "\x03"],
    ["c-C", "\x03"],
    ["C-C", "\x03"],
    ["ctrl+space", "\x00"],
    ["s-tab", "\x1b[Z"],
    ["shift+tab", "\x1b[Z"],
    ["ALT+x", "\x1bx"],
    ["m-f", "\x1bf"],
  ]);

  it("keys: Alt keeps the letter's case", () => {
    assert.equal(keyToSequence("M-f"), "\x1bf");
    assert.equal(keyToSequence("M-F"), "\x1bF");
    assert.notEqual(keyToSequence("M-f"), keyToSequence("M-F"));
  });
});

describe("keys: KEY_NAMES", () => {
  it("keys: KEY_NAMES starts with the friendly vocabulary in order", () => {
    assert.deepEqual(KEY_NAMES.slice(0, 14), [
      "Enter",
      "Tab",
      "Escape",
      "Backspace",
      "Delete",
      "ArrowUp",
      "ArrowDown",
      "ArrowLeft",
      "ArrowRight",
      "Home",
      "End",
      "PageUp",
      "PageDown",
      "Insert",
    ]);
  });

  it("keys: KEY_NAMES lists F1-F12, Ctrl+A-Z, Ctrl punctuation and Space", () => {
    const expected = [
      ...FUNCTION_KEYS.map(([name]) => name),
      ...LETTERS.map((c) => `Ctrl+${c}`),
      "Ctrl+[",
      "Ctrl+\\",
      "Ctrl+]",
      "Ctrl+^",
      "Ctrl+_",
      "Ctrl+Space",
      "Space",
    ];
    for (const name of expected) assert.ok(KEY_NAMES.includes(name), name);
  });

  it("keys: every name in KEY_NAMES is accepted and unique", () => {
    for (const name of KEY_NAMES) assert.ok(isKeyName(name), name);
    assert.equal(new Set(KEY_NAMES).size, KEY_NAMES.length);
  });

  it("keys: KEY_NAMES cannot be modified", () => {
    assert.ok(Object.isFrozen(KEY_NAMES));
  });
});

describe("keys: unknown keys", () => {
  const unknown = [
    "Foo",
    "Ctrl+",
    "F13",
    "F0",
    "C-",
    "M-",
    "",
    "Ctrl+1",
    "C--",
    "Enter ",
    "Hyper+a",
  ];
  for (const name of unknown) {
    it(`keys: ${show(name)} throws UnknownKeyError`, () => {
      assert.throws(() => keyToSequence(name), UnknownKeyError);
      assert.equal(isKeyName(name), false);
    });
  }

  it("keys: the error names the key and lists every canonical name", () => {
    const error = thrown(() => keyToSequence("Foo"));
    assert.ok(error instanceof UnknownKeyError);
    assert.ok(error instanceof Error);
    assert.equal(error.name, "UnknownKeyError");
    assert.equal(error.key, "Foo");
    assert.equal(error.suggestion, undefined);
    assert.ok(
      error.message.startsWith('Unknown key: "Foo". Available keys include: Enter, Tab, Escape, '),
      error.message,
    );
    assert.equal(
      error.message,
      `Unknown key: "Foo". Available keys include: ${KEY_NAMES.join(", ")}`,
    );
  });

  it("keys: a 100 KB unknown name is shown cut to 64 characters with its length, at once", () => {
    const name = "x".repeat(100_000);
    const started = performance.now();
    const error = thrown(() => keyToSequence(name));
    assert.ok(performance.now() - started < 200, "no suggestion search over 100 KB");
    assert.ok(error instanceof UnknownKeyError);
    assert.equal(error.key, name);
    assert.ok(
      error.message.startsWith(`Unknown key: "${"x".repeat(64)}…" (100000 characters). Available`),
      error.message.slice(0, 200),
    );
    assert.ok(error.message.length < 2000, `${error.message.length} characters`);
  });

  const suggestions = [
    ["Entr", "Enter"],
    ["ArowUp", "ArrowUp"],
    ["arrowup ", "ArrowUp"],
    ["Escpe", "Escape"],
    ["Ctrl+Entr", "Ctrl+Enter"],
    ["C-Spce", "C-Space"],
    ["BSpce", "BSpace"],
  ] as const;
  for (const [name, suggestion] of suggestions) {
    it(`keys: ${show(name)} suggests ${show(suggestion)}`, () => {
      const error = thrown(() => keyToSequence(name));
      assert.ok(error instanceof UnknownKeyError);
      assert.equal(error.suggestion, suggestion);
      assert.equal(
        error.message,
        `Unknown key: "${name}". Available keys include: ${KEY_NAMES.join(", ")}` +
          ` Did you mean "${suggestion}"?`,
      );
    });
  }

  it("keys: isKeyName accepts both vocabularies without throwing", () => {
    for (const name of ["Enter", "C-c", "Ctrl+ArrowUp", "M-f", "S-F6", "q"]) {
      assert.equal(isKeyName(name), true, name);
    }
  });
});
