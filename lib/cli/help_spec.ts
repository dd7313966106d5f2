/**
 * What termbridge's help texts say, read back as data: the modes the
 * top-level help lists and each mode's options, subcommands and positional
 * argument, for the generators in `docs.ts`.
 * @module
 */

/** How an option's value is completed, from its placeholder in the help. */
export type ValueKind = "none" | "directory" | "file" | "command" | "text";

/** One option of a mode, as its help lists it. */
export interface OptionSpec {
  /** `--cwd`, `-p`: every spelling on the help line. */
  names: string[];
  /** The placeholder (`DIR`, `TEXT`), or "" for a flag. */
  value: string;
  kind: ValueKind;
  summary: string;
}

/** One mode (or command) and what its help says. */
export interface ModeSpec {
  name: string;
  summary: string;
  /** Its help text, as `termbridge NAME --help` printed it. */
  help: string;
  options: OptionSpec[];
  /** Literal words after the mode in its usage lines (`policy check`). */
  subcommands: string[];
  /** What a word that is not an option is: a file (`SCRIPT`), a program (`-- AGENT`), or nothing. */
  positional: ValueKind;
  /**
   * The words before any `--`, one per position, from the first usage line
   * (`key NAME KEY...`: a session, then keys); empty when the usage names none.
   */
  args: ArgSpec[];
}

/** What the word at one position of a command is completed with. */
export interface ArgSpec {
  /** An open session's name, a key name, one of `choices`, a file, a program, or free text. */
  kind: "session" | "key" | "choice" | "file" | "command" | "text";
  /** Literal words allowed here (`text|regex|gone`, the `stop` of `FILE|stop`). */
  choices: string[];
  /** The last position repeats (`KEY...`). */
  repeats: boolean;
}

/** Commands whose NAME is a new session's, so not completed with the open ones. */
const NEW_NAME_MODES = new Set(["new"]);

/**
 * The positional words of a usage line (`termbridge wait NAME text|regex [ARG] [--all]`):
 * options in brackets and everything from `--` on left out.
 */
export function parseArgs(name: string, usage: string): ArgSpec[] {
  let rest = usage.split(`termbridge ${name}`)[1] ?? "";
  rest = rest.split(/\[?--(?:\s|$)/)[0];
  // Bracketed options, nested ones included (`[--record FILE [--record-input]]`).
  for (let before = ""; before !== rest;) {
    before = rest;
    rest = rest.replace(/\[(?:-|OPTIONS)[^[\]]*\]/g, "");
  }
  const words = rest.trim().split(/\s+/).map((word) => ({
    word,
    bare: word.replace(/^\[|\]$|\.\.\.$/g, "").replace(/\.\.\.\]?$/, ""),
  })).filter(({ bare }) => bare !== "");
  return words.map(({ word, bare }) => {
    const repeats = word.endsWith("...");
    const alternatives = bare.split("|");
    const choices = alternatives.filter((alt) => /^[a-z-]/.test(alt));
    const kinds = alternatives.filter((alt) => !/^[a-z-]/.test(alt));
    let kind: ArgSpec["kind"] = choices.length > 0 && kinds.length === 0 ? "choice" : "text";
    for (const placeholder of kinds) {
      if (placeholder === "NAME") kind = NEW_NAME_MODES.has(name) ? "text" : "session";
      else if (/^KEY/.test(placeholder)) kind = "key";
      else if (valueKind(placeholder) === "file") kind = "file";
      else if (valueKind(placeholder) === "command") kind = "command";
    }
    return { kind, choices, repeats };
  });
}

/** Everything the generators need. */
export interface CliSpec {
  version: string;
  /** The one-line description after the version in the top help. */
  tagline: string;
  /** `termbridge --help`, whole. */
  help: string;
  modes: ModeSpec[];
  /** The key names `termbridge help keys` lists, for completing `key`. */
  keys: string[];
}

/**
 * The key names of `termbridge help keys` that a shell word holds as is: the
 * words of its indented lines and the tmux-style names (`C-c`, `Up`) it lists.
 */
export function parseKeys(help: string): string[] {
  const listed = help.split("\n").filter((line) => line.startsWith("  "))
    .flatMap((line) => line.trim().split(/\s+/));
  const tmux = help.split(/tmux style:/)[1]?.split(";")[0] ?? "";
  const names = [...listed, ...tmux.split(/[\s,]+/)];
  return [...new Set(names.filter((name) => /^[A-Za-z][A-Za-z0-9+-]*$/.test(name)))];
}

/** Sections of a help text whose indented lines are not modes. */
const NOT_MODES = new Set(["usage", "options", "example", "examples", "exit status"]);

/** `  NAME   summary` in a modes section of the top-level help. */
const MODE_LINE = /^ {2}([a-z][a-z0-9-]*)\s{2,}(\S.*)$/;

/**
 * The modes of the top-level help: the indented `NAME  summary` lines of
 * every section that is not usage, options or examples.
 */
export function parseModes(help: string): { name: string; summary: string }[] {
  const modes: { name: string; summary: string }[] = [];
  let section = "";
  for (const line of help.split("\n")) {
    const header = line.match(/^([A-Za-z][A-Za-z ]*):\s*$/);
    if (header) {
      section = header[1].toLowerCase();
      continue;
    }
    if (line.trim() === "" || !line.startsWith(" ")) {
      if (line.trim() !== "") section = "";
      continue;
    }
    const match = line.match(MODE_LINE);
    if (section !== "" && !NOT_MODES.has(section) && match) {
      if (!modes.some((mode) => mode.name === match[1])) {
        modes.push({ name: match[1], summary: match[2].trim() });
      }
    }
  }
  return modes;
}

/** The completion kind a placeholder asks for. */
function valueKind(placeholder: string): ValueKind {
  if (placeholder === "") return "none";
  if (/DIR/.test(placeholder)) return "directory";
  if (/FILE|SCRIPT|PATH/.test(placeholder)) return "file";
  if (/PROGRAM|COMMAND|AGENT/.test(placeholder)) return "command";
  return "text";
}

/**
 * The options of a mode's help: every indented line that starts with a dash,
 * `-p, --prompt TEXT   summary` (a short spelling joins the long one after
 * it) or `--cols N, --rows N   summary` (two options).
 */
export function parseOptions(help: string): OptionSpec[] {
  const options: OptionSpec[] = [];
  for (const line of help.split("\n")) {
    if (!/^\s+-/.test(line)) continue;
    const [spellings, ...rest] = line.trim().split(/\s{2,}/);
    const summary = rest.join(" ").trim();
    let shorts: string[] = [];
    for (const item of spellings.split(/,\s*/)) {
      const [name, value = ""] = item.trim().split(/[ =]/);
      if (!/^--?[A-Za-z0-9]/.test(name)) continue;
      if (!name.startsWith("--") && value === "") {
        shorts.push(name);
        continue;
      }
      options.push({ names: [...shorts, name], value, kind: valueKind(value), summary });
      shorts = [];
    }
    if (shorts.length > 0) options.push({ names: shorts, value: "", kind: "none", summary });
  }
  return options;
}

/** The usage lines of a mode's help (`Usage: termbridge NAME ...`, and those after it). */
function usageLines(help: string, name: string): string[] {
  // `Usage: termbridge NAME ...`, or a `Usage:` header: its lines up to the next blank one.
  // Examples elsewhere in the help (`termbridge exec build make`) are not usage.
  const lines = help.split("\n");
  const start = lines.findIndex((line) => /^Usage:/.test(line));
  if (start === -1) return [];
  const end = lines.findIndex((line, i) => i > start && line.trim() === "");
  return lines.slice(start, end === -1 ? lines.length : end)
    .filter((line) => line.includes(`termbridge ${name}`));
}

/** Options shown only in the usage lines (`[--timeout S]`), as option specs. */
function usageOptions(usage: string[], known: OptionSpec[]): OptionSpec[] {
  const found: OptionSpec[] = [];
  for (
    const [, name, value = ""] of usage.join(" ").matchAll(
      /\[(--[a-z][a-z0-9-]*)(?:[ =]([A-Z][A-Za-z=]*))?(?=[\]\s[])/g,
    )
  ) {
    if ([...known, ...found].some((option) => option.names.includes(name))) continue;
    found.push({ names: [name], value, kind: valueKind(value), summary: "" });
  }
  return found;
}

/** Builds one mode's spec from its help text. */
export function modeSpec(name: string, summary: string, help: string): ModeSpec {
  const usage = usageLines(help, name);
  const subcommands = new Set<string>();
  for (const line of usage) {
    const word = line.split(`termbridge ${name} `)[1]?.split(/\s/)[0] ?? "";
    if (/^[a-z][a-z0-9-]*$/.test(word)) subcommands.add(word);
  }
  const words = usage.join(" ");
  const positional: ValueKind = /--\s+[A-Z]/.test(words)
    ? "command"
    : /\b(SCRIPT|FILE|PATH)\b/.test(words.replace(/\[OPTIONS\]/g, ""))
    ? "file"
    : /\bDIR\b/.test(words)
    ? "directory"
    : "none";
  const options = parseOptions(help);
  return {
    name,
    summary,
    help,
    options: [...options, ...usageOptions(usage, options)],
    subcommands: [...subcommands],
    positional,
    args: subcommands.size > 0 || usage.length === 0 ? [] : parseArgs(name, usage[0]),
  };
}
