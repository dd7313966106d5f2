/**
 * Where a wrapper runs its program, when that is not where the line runs:
 * another directory (`env -C DIR`, `sudo -D DIR`, a login shell's home),
 * another root (`chroot DIR`, `unshare --root DIR`), another PATH
 * (`env PATH=DIR`, `sudo PATH=DIR`), or an environment carrying code or
 * shell options.
 * @module
 */

import type { Word } from "./words.ts";
import type { Inner } from "./wrappers.ts";
import { environmentCode } from "./wrappers_more.ts";

/** The wrapper changes directory before it runs its program: a relative program path is unknown. */
export function movesDirectory(via: string): Inner {
  return { kind: "chdir", via };
}

/** The wrapper runs its program under another root: the file a name or path finds is unknown. */
export function changesRoot(via: string): Inner {
  return {
    kind: "unknown",
    reason:
      `${via} runs its program under another root directory, so which file it is cannot be known`,
  };
}

/**
 * What the `NAME=value` words a wrapper gives its program carry (env's and
 * sudo's): a new PATH makes the program's file unknown; code (an exported
 * function, PROMPT_COMMAND, BASH_ENV, SHELLOPTS) is checked or unknown.
 */
export function assignmentsFor(assignments: Word[], via: string): Inner[] {
  // The name may be PATH when it is built at run time (`"$N"=DIR`).
  const names = assignments.map((w) => w.text.slice(0, w.text.indexOf("=")));
  const path: Inner[] = names.some((name) => name === "PATH" || /[$`]/.test(name))
    ? [{
      kind: "unknown",
      reason: `${via} changes PATH, so which file the program is cannot be known`,
    }]
    : [];
  return [...path, ...assignments.flatMap((w) => environmentCode(w, via))];
}

/**
 * Whether a long flag a program reads with getopt_long was given, written in
 * full or abbreviated (`--log` for `--login`): an abbreviation shared with
 * another option is taken as this one, which can only ask more.
 */
export function hasLongFlag(seen: Map<string, unknown>, name: string): boolean {
  for (const written of seen.keys()) {
    if (written.length >= 2 && name.startsWith(written)) return true;
  }
  return false;
}
