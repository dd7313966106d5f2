/**
 * Key names to the bytes a terminal keyboard sends.
 *
 * Two vocabularies are accepted: tmux style (`C-c`, `M-f`, `S-Tab`, `BSpace`,
 * `DC`, `PPage`) and friendly style (`Ctrl+C`, `Alt+f`, `Shift+Tab`,
 * `Backspace`, `Delete`, `PageUp`). Names and modifiers are case-insensitive;
 * a single printable ASCII character is a key that sends itself, so its case
 * matters (`M-f` and `M-F` differ). Output is always ASCII, so encoding it as
 * UTF-8 or Latin-1 gives the same bytes.
 * @module
 */

/** Terminal modes that change what a key sends. */
export interface KeyModes {
  /** DECCKM (`ESC[?1h`): arrows, Home and End send SS3 (`ESC O A`) instead of CSI. */
  applicationCursorKeys: boolean;
}

/** How a named key is encoded. */
type Key =
  /** Fixed bytes; Alt adds an ESC prefix, Shift/Ctrl pick a variant when there is one. */
  | { kind: "text"; bytes: string; shift?: string; ctrl?: string }
  /** A character: Shift uppercases, Ctrl maps to a control code, Alt adds ESC. */
  | { kind: "char"; char: string }
  /** `ESC [ X`, or `ESC O X` in application cursor mode; `ESC [ 1 ; m X` modified. */
  | { kind: "cursor"; final: string }
  /** `ESC O X`; `ESC [ 1 ; m X` modified (F1-F4). */
  | { kind: "ss3"; final: string }
  /** `ESC [ n ~`; `ESC [ n ; m ~` modified. */
  | { kind: "tilde"; code: number };

/** Named keys: the first name of each row is canonical, the others are aliases. */
const NAMED_KEYS: ReadonlyArray<readonly [readonly string[], Key]> = [
  [["Enter", "Return"], { kind: "text", bytes: "\r" }],
  [["Tab"], { kind: "text", bytes: "\t", shift: "\x1b[Z" }],
  [["Escape", "Esc"], { kind: "text", bytes: "\x1b" }],
  [["Backspace", "BSpace"], { kind: "text", bytes: "\x7f", ctrl: "\x08" }],
  [["Delete", "Del", "DC"], { kind: "tilde", code: 3 }],
  [["ArrowUp", "Up"], { kind: "cursor", final: "A" }],
  [["ArrowDown", "Down"], { kind: "cursor", final: "B" }],
  [["ArrowLeft", "Left"], { kind: "cursor", final: "D" }],
  [["ArrowRight", "Right"], { kind: "cursor", final: "C" }],
  [["Home"], { kind: "cursor", final: "H" }],
  [["End"], { kind: "cursor", final: "F" }],
  [["PageUp", "PgUp", "PPage"], { kind: "tilde", code: 5 }],
  [["PageDown", "PgDn", "NPage"], { kind: "tilde", code: 6 }],
  [["Insert", "Ins", "IC"], { kind: "tilde", code: 2 }],
  ...["P", "Q", "R", "S"].map((final, i) => [[`F${i + 1}`], { kind: "ss3", final }] as const),
  ...[15, 17, 18, 19, 20, 21, 23, 24].map((code, i) =>
    [[`F${i + 5}`], { kind: "tilde", code }] as const
  ),
  [["Space"], { kind: "char", char: " " }],
  [["BTab", "Backtab"], { kind: "text", bytes: "\x1b[Z" }],
];

/** Lower-cased name or alias -> key. */
const BY_NAME = new Map<string, Key>(
  NAMED_KEYS.flatMap(([names, key]) => names.map((n) => [n.toLowerCase(), key] as const)),
);

/** Every named-key spelling, canonical names first: the candidates for "did you mean". */
const SPELLINGS: readonly string[] = [
  ...NAMED_KEYS.map(([names]) => names[0]),
  ...NAMED_KEYS.flatMap(([names]) => names.slice(1)),
];

/** Ctrl on a non-letter character (letters are `code & 0x1f`). */
const CTRL_CHARS: Readonly<Record<string, string>> = {
  " ": "\x00",
  "@": "\x00",
  "[": "\x1b",
  "\\": "\x1c",
  "]": "\x1d",
  "^": "\x1e",
  "_": "\x1f",
  "?": "\x7f",
};

const SHIFT = 1;
const ALT = 2;
const CTRL = 4;

/** Modifier words (lower case) -> bit; tmux letters take `-`, words take `+` or `-`. */
const MODIFIERS: Readonly<Record<string, number>> = {
  c: CTRL,
  m: ALT,
  s: SHIFT,
  ctrl: CTRL,
  control: CTRL,
  alt: ALT,
  meta: ALT,
  option: ALT,
  shift: SHIFT,
};
const MODIFIER_PREFIX = /^(?:([cms])-|(ctrl|control|alt|meta|option|shift)[+-])(?=.)/i;

/** Canonical key names for help, completion and errors (friendly vocabulary first). */
export const KEY_NAMES: readonly string[] = Object.freeze([
  ...NAMED_KEYS.map(([names]) => names[0]).filter((n) => n !== "Space" && n !== "BTab"),
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ".split("").map((c) => `Ctrl+${c}`),
  ...["[", "\\", "]", "^", "_", "Space"].map((c) => `Ctrl+${c}`),
  "Space",
  "Shift+Tab",
]);

/** Most characters of an unknown key name an error message repeats. */
const SHOWN_KEY_CHARS = 64;

/**
 * A key name as an error message shows it, quoted: a long one (text sent as
 * a key name by mistake, 100 KB of it) is cut, saying how long it was.
 */
export function keyInMessage(name: string): string {
  return name.length <= SHOWN_KEY_CHARS
    ? `"${name}"`
    : `"${name.slice(0, SHOWN_KEY_CHARS)}…" (${name.length} characters)`;
}

/**
 * Thrown for a key name that is not known. The message lists every name in
 * {@linkcode KEY_NAMES} and, when one is close, suggests it.
 */
export class UnknownKeyError extends Error {
  /** The name as given. */
  readonly key: string;
  /** The nearest known spelling (with the given modifiers), if one is close. */
  readonly suggestion: string | undefined;

  /**
   * @param key The unknown name.
   * @param suggestion A close known name, or `undefined`.
   */
  constructor(key: string, suggestion?: string) {
    const hint = suggestion === undefined ? "" : ` Did you mean "${suggestion}"?`;
    super(
      `Unknown key: ${keyInMessage(key)}. Available keys include: ${KEY_NAMES.join(", ")}${hint}`,
    );
    this.name = "UnknownKeyError";
    this.key = key;
    this.suggestion = suggestion;
  }
}

/**
 * Returns the bytes a key sends, as a string of ASCII characters.
 *
 * Arrows, Home and End follow DECCKM; modified cursor, function and editing
 * keys use xterm's `ESC [ 1 ; m X` / `ESC [ n ; m ~` forms with
 * m = 1 + Shift + 2·Alt + 4·Ctrl. Alt on a character or on Enter, Tab,
 * Escape or Backspace is an ESC prefix. Ctrl and Shift on Enter or Escape
 * send the plain key, as xterm does by default.
 *
 * @param name A key name such as `Enter`, `C-c`, `Ctrl+ArrowUp`, `M-f` or `q`.
 * @param modes The terminal's current modes; normal cursor keys when omitted.
 * @returns The sequence to write to the terminal.
 * @throws {UnknownKeyError} When the name is not a known key.
 * @example
 * ```ts
 * keyToSequence("C-c"); // "\x03"
 * keyToSequence("ArrowUp", { applicationCursorKeys: true }); // "\x1bOA"
 * ```
 */
export function keyToSequence(name: string, modes?: KeyModes): string {
  const { mods, prefix, base } = splitModifiers(name);
  const key = BY_NAME.get(base.toLowerCase()) ??
    (isPrintable(base) ? { kind: "char", char: base } : undefined);
  const bytes = key && encode(key, mods, modes?.applicationCursorKeys ?? false);
  if (bytes === undefined) {
    // Only a name about as long as a key's is a misspelling worth a suggestion (and cheap to compare).
    const near = base.length >= 2 && base.length <= 32 ? nearest(base) : undefined;
    throw new UnknownKeyError(name, near === undefined ? undefined : prefix + near);
  }
  return bytes;
}

/**
 * Whether a string is a known key name.
 * @param name The name to check.
 * @returns `true` when {@linkcode keyToSequence} accepts it.
 */
export function isKeyName(name: string): boolean {
  try {
    keyToSequence(name);
    return true;
  } catch (error) {
    if (error instanceof UnknownKeyError) return false;
    throw error;
  }
}

/** Strips leading modifiers; a modifier must be followed by something. */
function splitModifiers(name: string): { mods: number; prefix: string; base: string } {
  let mods = 0;
  let base = name;
  for (let m = MODIFIER_PREFIX.exec(base); m; m = MODIFIER_PREFIX.exec(base)) {
    mods |= MODIFIERS[(m[1] ?? m[2]).toLowerCase()];
    base = base.slice(m[0].length);
  }
  return { mods, prefix: name.slice(0, name.length - base.length), base };
}

/** One printable ASCII character (space to tilde). */
function isPrintable(s: string): boolean {
  return s.length === 1 && s >= " " && s <= "~";
}

/** The bytes for a key with modifiers, or `undefined` when the combination has none. */
function encode(key: Key, mods: number, appCursor: boolean): string | undefined {
  const esc = mods & ALT ? "\x1b" : "";
  const m = mods + 1;
  switch (key.kind) {
    case "text":
      return esc +
        ((mods & SHIFT ? key.shift : undefined) ?? (mods & CTRL ? key.ctrl : undefined) ??
          key.bytes);
    case "char": {
      const char = mods & SHIFT ? key.char.toUpperCase() : key.char;
      if (!(mods & CTRL)) return esc + char;
      if (/^[a-z]$/i.test(char)) return esc + String.fromCharCode(char.charCodeAt(0) & 0x1f);
      return char in CTRL_CHARS ? esc + CTRL_CHARS[char] : undefined;
    }
    case "cursor":
      if (mods) return `\x1b[1;${m}${key.final}`;
      return (appCursor ? "\x1bO" : "\x1b[") + key.final;
    case "ss3":
      return mods ? `\x1b[1;${m}${key.final}` : `\x1bO${key.final}`;
    case "tilde":
      return mods ? `\x1b[${key.code};${m}~` : `\x1b[${key.code}~`;
  }
}

/** The closest named-key spelling (case-insensitive edit distance), if close enough. */
function nearest(input: string): string | undefined {
  const limit = Math.max(1, Math.floor(input.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of SPELLINGS) {
    const d = editDistance(input.toLowerCase(), candidate.toLowerCase());
    // On a tie, prefer the spelling closest in length ("F13" -> "F12", not "F1").
    const tie = d === bestDistance && best !== undefined &&
      Math.abs(candidate.length - input.length) < Math.abs(best.length - input.length);
    if (d < bestDistance || tie) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance between two strings. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + cost);
    }
    row = next;
  }
  return row[b.length];
}
