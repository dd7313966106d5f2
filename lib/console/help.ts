/**
 * Help texts generated from the command table, so that they never drift
 * from what the commands accept.
 * @module
 */

import { KEY_NAMES } from "../terminal/keys.ts";
import type { Command } from "./command.ts";

/** How lines are read, for `help quoting` and the modes' `--help`. */
export const QUOTING_HELP = `One command a line; blank lines and lines starting with # are skipped.
Commands that take text (exec, input, type, paste, expect, expect-output,
wait) take the rest of the line exactly as written, quotes, # and backslashes
included: input print("hi") sends print("hi"). Their --options come first
(exec: only there; the others may also end the line); -- ends the options.
A text that is wholly one quoted string loses its quotes: '...' is taken
literally, and "..." takes backslash escapes: \\n \\t \\r \\e (Escape) \\xHH
stand for those characters, and a backslash before a quote, \\, $ or a
backtick makes it literal: type "make\\n", expect '/\\d+ passed/'.
Other commands split their line into words as a shell does, with the same
quotes and escapes; there # at the start of a word starts a comment.`;

/** `help keys`: the key names. */
export const KEYS_HELP = `Keys, by name (case-insensitive), for "key" and "input":
${wrap(KEY_NAMES.join(" "), 76, "  ")}
Also tmux style: C-c, C-d, M-f (Alt), S-Tab, BTab, BSpace, DC, IC, Up, Down,
Left, Right, PPage, NPage; modifiers combine: C-S-Up, Ctrl+Alt+Delete. A
single printable ASCII character is a key that types itself; other text
(an accented letter, CJK) goes with "type".`;

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
