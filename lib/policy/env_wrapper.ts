/**
 * `env` as a program that runs another: its options (`-i`, `-u NAME`, `-C
 * DIR`, `-a NAME`), the `NAME=value` words it sets, the PATH it gives the
 * program, and `-S STRING`, whose words it splits by its own rules.
 * @module
 */

import type { Word } from "./words.ts";
import type { Inner } from "./wrappers.ts";
import { argv, findOption, optionWord, skipAssignments, skipOptions } from "./wrapper_options.ts";
import { splitEnvString } from "./env_split.ts";
import { assignmentsFor, movesDirectory } from "./wrapper_places.ts";
import { envPath } from "./wrapper_paths.ts";

/** env's options that take a value. */
const ENV_OPTIONS = { values: "uCSa", longValues: ["unset", "chdir", "split-string", "argv0"] };

/**
 * What `env ARGS...` runs: the program after its options and assignments,
 * judged with the PATH env gives it and called by `-a`'s name.
 */
export function envCommands(words: Word[], name: string): Inner[] {
  const { index, seen } = skipOptions(words, 1, ENV_OPTIONS);
  const place = seen.has("C") || seen.has("chdir") ? [movesDirectory(`${name} -C`)] : [];
  const split = seen.get("S") ?? seen.get("split-string");
  if (typeof split === "string") return [...splitString(words, name), ...place];
  // `env - ls` is `env -i ls`.
  const empty = words[index]?.text === "-" && !words[index].dynamic;
  const start = skipAssignments(words, empty ? index + 1 : index);
  const assignments = words.slice(empty ? index + 1 : index, start);
  // `env PATH=DIR ls` finds ls in DIR; `env -i ls` and `env -u PATH ls` in the standard path.
  const path = envPath(words.slice(0, index), seen, assignments, {
    moves: place.length > 0,
    empty,
  });
  const inner = argv(words, start, name);
  // `env -a NAME` (coreutils 9.5) calls the program NAME, as `exec -a` does.
  const called = seen.get("a") ?? seen.get("argv0");
  const argv0 = typeof called === "string" ? { argv0: optionWord(words, called) } : {};
  return [
    ...place,
    ...assignmentsFor(assignments, name, path !== undefined),
    ...(inner[0]?.kind !== "argv" ? inner : [
      { ...inner[0], ...argv0, ...(path === undefined ? {} : { path: [path] }) },
      ...inner.slice(1),
    ]),
  ];
}

/**
 * `env -S STRING ...`: env splits STRING by its own rules (`touch\\_m` is
 * `touch m`) and reads the words in its place, its own options and
 * assignments among them (`env -S '-i rm'`), then the words after.
 */
function splitString(words: Word[], name: string): Inner[] {
  const found = findOption(words, 1, ENV_OPTIONS, { short: "S", long: "split-string" });
  if (found === null) return [];
  const word = words[found.at];
  const attached = found.next === found.at + 1;
  const value = attached ? word : words[found.at + 1];
  const text = found.letter === 0
    ? word.text.slice(word.text.indexOf("=") + 1)
    : attached
    ? word.text.slice(found.letter + 1)
    : value.text;
  if (value.dynamic) {
    return [{
      kind: "unknown",
      reason: `the string given to ${name} -S is only known when the line runs`,
    }];
  }
  const split = splitEnvString(text);
  if ("unknown" in split) return [{ kind: "unknown", reason: split.unknown }];
  const before = found.letter > 1
    ? [{ text: word.text.slice(0, found.letter), dynamic: false }]
    : [];
  return [{
    kind: "argv",
    words: [
      words[0],
      ...words.slice(1, found.at),
      ...before,
      ...split.words.map((text) => ({ text, dynamic: false })),
      ...words.slice(found.next),
    ],
    via: `${name} -S`,
  }];
}
