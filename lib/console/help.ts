/**
 * Help texts generated from the command table, so that they never drift
 * from what the commands accept.
 * @module
 */

import { KEY_NAMES } from "../terminal/keys.ts";
import type { Command } from "./command.ts";

/** How lines are read, for `help quoting` and the modes' `--help`. */
export const QUOTING_HELP =
  `One command a line; blank lines and lines starting with # are skipped, and
# at the start of a word starts a comment. Words are split on spaces and
quoted as in a shell: '...' is taken literally; "..." and unquoted words take
backslash escapes: \\n \\t \\r \\e (Escape) \\xHH stand for those characters, and
a backslash before a space, a quote, \\, # or $ makes it literal. Before
anything else a backslash stays, so regular expressions read as written:
expect '/\\d+ passed/'. "exec" takes the rest of its line as written.`;

/** `help keys`: the key names. */
export const KEYS_HELP = `Keys, by name (case-insensitive), for "key" and "input":
${wrap(KEY_NAMES.join(" "), 76, "  ")}
Also tmux style: C-c, C-d, M-f (Alt), S-Tab, BTab, BSpace, DC, IC, Up, Down,
Left, Right, PPage, NPage; modifiers combine: C-S-Up, Ctrl+Alt+Delete. A
single character is a key that types itself.`;

/** The list of commands with their short forms and summaries. */
export function commandList(commands: readonly Command[], mode: "repl" | "script"): string {
  const shown = commands.filter((c) => c.only === undefined || c.only === mode);
  const names = shown.map((c) =>
    c.aliases.length === 0 ? c.name : `${c.name} (${c.aliases.join(", ")})`
  );
  const width = Math.max(...names.map((n) => n.length));
  return shown.map((c, i) => `  ${names[i].padEnd(width)}  ${c.summary}`).join("\n");
}

/** `help` with no argument. */
export function overview(commands: readonly Command[], mode: "repl" | "script"): string {
  return `Commands (short forms in parentheses):
${commandList(commands, mode)}

"help COMMAND" shows its options and examples; "help keys" lists key names;
"help quoting" explains how lines are split into words.`;
}

/** `help NAME`: usage, short forms, what it does, examples. */
export function commandHelp(command: Command): string {
  const aliases = command.aliases.length === 0
    ? ""
    : `\nShort form${command.aliases.length > 1 ? "s" : ""}: ${command.aliases.join(", ")}`;
  return `Usage: ${command.usage}${aliases}\n\n${command.help}`;
}

function wrap(text: string, width: number, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + word.length + 1 > width) {
      lines.push(indent + line);
      line = "";
    }
    line += (line === "" ? "" : " ") + word;
  }
  if (line !== "") lines.push(indent + line);
  return lines.join("\n");
}
