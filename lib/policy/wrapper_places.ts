/**
 * Where a wrapper runs its program, when that is not where the line runs:
 * another directory (`env -C DIR`, `sudo -D DIR`, a login shell's home),
 * another root (`chroot DIR`, `unshare --root DIR`), another PATH
 * (`env PATH=DIR`, `sudo PATH=DIR`), or an environment carrying code (an
 * exported function, PROMPT_COMMAND, BASH_ENV) or shell options (SHELLOPTS).
 * @module
 */

import type { Word } from "./words.ts";
import type { Inner } from "./wrappers.ts";
import { deferredAssignment } from "./deferred.ts";

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
 * sudo's): a new PATH makes the program's file unknown, unless the caller
 * judges the program with it (`pathJudged`: env's known PATH=DIR); code (an
 * exported function, PROMPT_COMMAND, BASH_ENV, SHELLOPTS) is checked or unknown.
 */
export function assignmentsFor(assignments: Word[], via: string, pathJudged = false): Inner[] {
  // The name may be PATH when it is built at run time (`"$N"=DIR`).
  const names = assignments.map((w) => w.text.slice(0, w.text.indexOf("=")));
  const path: Inner[] = names.some((name) => (name === "PATH" && !pathJudged) || /[$`]/.test(name))
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

/**
 * Code an environment variable carries into the programs started with it:
 * a bash function exported as `BASH_FUNC_NAME%%=() { ...; }` (every bash
 * defines it, so a later `NAME` runs its body), PROMPT_COMMAND, prompts with
 * substitutions, BASH_ENV and ENV.
 * @param assignment a `NAME=value` word (env's, or a request's variable)
 */
export function environmentCode(assignment: Word, via: string): Inner[] {
  const at = assignment.text.indexOf("=");
  if (at < 0) return [];
  const name = assignment.text.slice(0, at);
  const value = { text: assignment.text.slice(at + 1), dynamic: assignment.dynamic };
  const exported = /^BASH_FUNC_(.+?)(%%|\(\))$/.exec(name);
  if (exported !== null) {
    if (value.dynamic) {
      return [{
        kind: "unknown",
        reason: `${via} exports the function "${exported[1]}" built at run time`,
      }];
    }
    return [{
      kind: "script",
      text: { text: `${exported[1]} ${value.text}`, dynamic: false },
      via: `${via} exported function ${exported[1]}`,
    }];
  }
  return deferredAssignment(name, value).map((deferred): Inner =>
    deferred.kind === "code"
      ? { kind: "script", text: deferred.text, via: `${via} ${deferred.via}` }
      : deferred
  );
}
