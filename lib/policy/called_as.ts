/**
 * Programs that choose what they do by the name they are called by
 * (argv[0]): git runs `git push` when called `git-push` (a link in
 * `/usr/lib/git-core`, or `exec -a git-push git`), busybox and toybox run the
 * applet they are called as. The name is judged as the command it makes.
 * @module
 */

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
