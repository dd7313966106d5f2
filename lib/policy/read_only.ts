/**
 * Programs that only read, search or print what their arguments name and
 * never run them, so a program name among their arguments is just text
 * (`grep -rn touch src/`, `which touch`, `man touch`): the general rule for
 * programs that run their arguments (named_arguments.ts) leaves them alone.
 * Only programs without an option that runs a command are here (not `rg`,
 * whose `--pre` does, nor `less`, `git`, `find`).
 * @module
 */

import type { Word } from "./words.ts";

const READ_ONLY = new Set([
  "grep",
  "egrep",
  "fgrep",
  "zgrep",
  "which",
  "which.debianutils", // Debian's which, through its alternatives link
  "whereis",
  "whatis",
  "apropos",
  "echo",
  "printf",
  "wc",
  "ls",
  "cat",
  "head",
  "tail",
  "stat",
  "file",
  "basename",
  "dirname",
  "realpath",
  "readlink",
]);

/**
 * Whether a command with these program names only reads its arguments: every
 * name (as written, and the real file's) is such a program. `man` counts
 * when it is given no option (`-P`, `-H` and others name programs it runs).
 */
export function onlyReads(names: string[], words: Word[]): boolean {
  if (names.length === 0) return false;
  return names.every((name) =>
    READ_ONLY.has(name) ||
    (name === "man" && words.slice(1).every((w) => !w.dynamic && !w.text.startsWith("-")))
  );
}
