/**
 * Programs that choose what they do by the name they are called by
 * (argv[0]): git runs `git push` when called `git-push` (a link in
 * `/usr/lib/git-core`, or `exec -a git-push git`), busybox and toybox run the
 * applet they are called as. The name is judged as the command it makes.
 * @module
 */

import { programNames } from "./resolve.ts";
import type { Word } from "./words.ts";

/** Programs whose argv[0] chooses what they run. */
const MULTI_CALL = new Set(["git", "busybox", "toybox", "coreutils"]);

/** Whether a program known by these names reads its argv[0] to choose what it runs. */
export function isMultiCall(names: string[]): boolean {
  return names.some((name) => MULTI_CALL.has(name));
}

/**
 * The command a program called `git-SUBCOMMAND` runs (`git SUBCOMMAND ...`),
 * or null: git's builtins are links to git under those names, and git runs
 * the one it is called as. An external `git-lfs` is judged as `git lfs` too.
 * @param name the program's name as called (a basename)
 */
export function gitByName(name: string, words: Word[]): Word[] | null {
  const sub = /^git-(.+)$/.exec(name)?.[1];
  if (sub === undefined) return null;
  return [{ text: "git", dynamic: false }, { text: sub, dynamic: false }, ...words.slice(1)];
}

/**
 * A program called by another name (`exec -a NAME PROG ...`, `env -a`, zsh's
 * ARGV0): a multi-call program (git, busybox) does what NAME says, so the
 * command `NAME ...` is judged too; a NAME known only at run time is unknown.
 * Null for a program that does not read its argv[0].
 * @param called the name, and the command as written (PROG first)
 * @param lookup where PROG is found
 */
export function calledAs(
  called: { name: Word; words: Word[]; via: string[] },
  lookup: { cwd: string; path: string },
): { words: Word[]; via: string[] } | { unknown: string } | null {
  const { name, words, via } = called;
  if (words[0].dynamic || !isMultiCall(programNames(words[0].text, lookup).names)) return null;
  if (name.dynamic) {
    return {
      unknown: `${via.at(-1)} calls ${
        words[0].text
      } by a name known only when the line runs, which chooses what it does`,
    };
  }
  return { words: [name, ...words.slice(1)], via: [...via, `called ${name.text}`] };
}
