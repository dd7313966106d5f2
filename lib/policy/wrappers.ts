/**
 * Programs that run another program: `env`, `sudo`, `nice`, `timeout`,
 * `xargs`, `find -exec`, `busybox APPLET`, shells with `-c`, and the like.
 * Given a simple command's words, says what it runs inside.
 * @module
 */

import type { Word } from "./words.ts";
import {
  argv,
  findOption,
  type OptionSpec,
  permutedOptions,
  skipAssignments,
  skipOptions,
} from "./wrapper_options.ts";
import { splitEnvString } from "./env_split.ts";
import { isLoader, loader, MORE_WRAPPERS, optionProgram } from "./wrappers_more.ts";
import { assignmentsFor, changesRoot, hasLongFlag, movesDirectory } from "./wrapper_places.ts";
import { DOAS_PATH, loginPaths, SECURE_PATH, STANDARD_PATH } from "./wrapper_paths.ts";

/** A PATH a wrapper gives its program: a value, null when unset, undefined when the line's. */
export type WrapperPath = string | null | undefined;

/** What a wrapper runs. */
export type Inner =
  /** A program with its arguments; `open` when more arguments are added at run time (xargs). */
  /**
   * `argv0`: the name the program is called by, when not its word (`exec -a NAME`).
   * `path`: the PATHs it may run with, each judged (null: unset), when the wrapper sets
   * another; `lookup`: the PATH the wrapper finds it in, when only that differs (`command -p`).
   */
  | {
    kind: "argv";
    words: Word[];
    via: string;
    open?: boolean;
    argv0?: Word;
    path?: WrapperPath[];
    lookup?: string;
  }
  /** A shell command line to parse (`sh -c STRING`, `watch STRING`); `path` as for argv. */
  | { kind: "script"; text: Word; via: string; path?: WrapperPath[] }
  /** A shell that reads its commands from standard input (or interactively). */
  | { kind: "stdin"; via: string }
  /** Something runs, but what cannot be known from the words. */
  | { kind: "unknown"; reason: string }
  /** A shell runs a script file (`bash build.sh`): its contents are not read, but a file the line may create is unknown. */
  | { kind: "file"; path: Word; via: string }
  /**
   * A shell reads startup files from the directory a variable names (zsh's
   * `$ZDOTDIR/.zshenv`, an interactive bash's `~/.bashrc`): unknown when the
   * line sets one of them.
   */
  | { kind: "startup"; variables: string[]; via: string }
  /** The wrapper changes directory before it runs what follows (`env -C DIR`, a login shell). */
  | { kind: "chdir"; via: string };

/**
 * `su`-like programs: `-c STRING` runs through a shell, else an interactive
 * shell. Options may follow the user (getopt permutes them: `su root -c CMD`);
 * a login shell (`-`, `-l`) starts in the user's home.
 */
function shellOf(words: Word[], name: string, spec: OptionSpec): Inner[] {
  const { seen, operands } = permutedOptions(words, 1, {
    ...spec,
    values: `${spec.values ?? ""}c`,
    longValues: [...(spec.longValues ?? []), "command", "session-command"],
  });
  const login = operands.some((w) => w.text === "-") || seen.has("l") ||
    hasLongFlag(seen, "login");
  const place = login ? [movesDirectory(`${name} -l`)] : [];
  // A login shell's PATH is the user's (login.defs), not the line's.
  const path = login ? { path: loginPaths() } : {};
  const command = seen.get("c") ?? seen.get("command") ?? seen.get("session-command");
  const shell = seen.get("s") ?? seen.get("shell");
  if (typeof shell === "string") {
    // `su -s PROG -c CMD USER ARGS...` runs `PROG -c CMD ARGS...`, whatever PROG is.
    const given = (text: string) =>
      words.find((w) => w.text === text) ?? {
        text,
        dynamic: words.find((w) => w.text.endsWith(`=${text}`))?.dynamic ?? false,
      };
    const program = [
      given(shell),
      ...(typeof command === "string" ? [{ text: "-c", dynamic: false }, given(command)] : []),
      ...operands.filter((w) => w.text !== "-").slice(1),
    ];
    return [...place, { kind: "argv", words: program, via: `${name} -s`, ...path }];
  }
  if (typeof command === "string") {
    return [...place, { ...scriptOf(words, command, `${name} -c`), ...path }];
  }
  return [...place, { kind: "stdin", via: name }];
}

/** A command string an option gave (`-c STRING`), dynamic when its word was. */
function scriptOf(words: Word[], text: string, via: string): Inner & { kind: "script" } {
  const word = words.find((w) => w.text === text || w.text.endsWith(`=${text}`));
  return { kind: "script", text: { text, dynamic: word?.dynamic ?? false }, via };
}

/** An option's value as a word: dynamic when the word that gave it was (`-a "$N"`, `--argv0=$N`). */
function wordFor(words: Word[], value: string): Word {
  const given = words.find((w) => w.text === value || w.text.endsWith(value));
  return { text: value, dynamic: given?.dynamic ?? false };
}

/** Shells whose `-c STRING` is parsed, and which otherwise read commands from stdin or a file. */
export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh"]);

function shell(words: Word[], name: string): Inner[] {
  const zsh = name === "zsh";
  let command = false;
  let stdin = false;
  /** Reads startup files from HOME (an interactive or login shell; zsh always, unless -f). */
  let startup = zsh;
  const found: Inner[] = [];
  let i = 1;
  while (i < words.length) {
    const { text, dynamic } = words[i];
    if (text === "--" || text === "-") {
      i++;
      break;
    }
    if (!/^[-+]/.test(text)) break;
    if (dynamic) {
      return [{
        kind: "unknown",
        reason: `${name} is given options known only when the line runs`,
      }];
    }
    i++;
    if (text.startsWith("--")) {
      if (text === "--rcfile" || text === "--init-file") {
        // Like BASH_ENV: a file of commands the shell runs first, not read here.
        found.push({
          kind: "unknown",
          reason: `${name} ${text} runs the file "${
            words[i]?.text ?? ""
          }" first, which is not checked`,
        });
        i++;
      } else if (text === "--emulate") i++; // zsh: the mode.
      else if (text === "--login" || text === "--interactive") startup = true;
      else if (zsh && /^--no-?rcs$/.test(text)) startup = false;
      continue;
    }
    // A letter group: bash and dash take each `o`/`O`'s value from the next words
    // and read on (`-oc posix CMD`); zsh takes the rest of the group (`-ointeractive`).
    let values = 0;
    for (let j = 1; j < text.length; j++) {
      const letter = text[j];
      const value = words[i + values];
      if (
        !zsh && text[0] === "-" && (letter === "k" || letter === "o" && value?.text === "keyword")
      ) {
        // bash's keyword option: `ls PATH=DIR m` finds ls in DIR.
        found.push({
          kind: "unknown",
          reason: `${name} ${
            letter === "k" ? "-k" : "-o keyword"
          } makes NAME=VALUE words anywhere in a command assignments (PATH=... among them)`,
        });
      }
      if (letter === "c") command = true;
      else if (letter === "s") stdin = true;
      else if (letter === "i" || letter === "l") startup = true;
      else if (letter === "f" && zsh && text[0] === "-") startup = false;
      else if (letter === "o" || letter === "O") {
        if (zsh && j < text.length - 1) break;
        values++;
      }
    }
    i += values;
  }
  if (startup) {
    found.push({ kind: "startup", variables: zsh ? ["HOME", "ZDOTDIR"] : ["HOME"], via: name });
  }
  return [...found, ...shellRuns(words, i, name, command, stdin)];
}

/** What a shell runs after its options: a `-c` string, standard input, or a script file. */
function shellRuns(
  words: Word[],
  i: number,
  name: string,
  command: boolean,
  stdin: boolean,
): Inner[] {
  const via = `${name} -c`;
  if (command) {
    if (i >= words.length) return [];
    return [{ kind: "script", text: words[i], via }];
  }
  if (stdin || i >= words.length) return [{ kind: "stdin", via: name }];
  const script = words[i];
  if (script.dynamic) {
    // `bash <(curl ...)`, `sh "$F"`: a script named only when the line runs.
    return [{
      kind: "unknown",
      reason: `${name} runs a script file known only when the line runs`,
    }];
  }
  // Matched by the shell's own name only; `/dev/stdin` and the like are standard input (analyse.ts).
  return [{ kind: "file", path: script, via: name }];
}

/** Programs that start shells or run command strings in a language not parsed here. */
const OPAQUE_RUNNERS: Record<string, string> = {
  tmux: "tmux starts shells and runs commands that are not checked",
  screen: "screen starts shells and runs commands that are not checked",
  byobu: "byobu starts shells and runs commands that are not checked",
  zellij: "zellij starts shells and runs commands that are not checked",
  dtach: "dtach starts a program in a shell that is not checked",
  fish: "fish runs commands in its own language, which is not checked",
  csh: "csh runs commands in its own language, which is not checked",
  tcsh: "tcsh runs commands in its own language, which is not checked",
};

/**
 * The PATH env gives its program, or undefined when it keeps the line's: a
 * PATH= assignment's value (unknown when built at run time, or relative to a
 * directory `-C` changed to), else none after `-i`, `-`, `-u PATH`.
 */
function envPath(
  options: Word[],
  seen: Map<string, string | true>,
  assignments: Word[],
  how: { moves: boolean; empty: boolean },
): WrapperPath {
  const set = assignments.filter((w) => w.text.startsWith("PATH="));
  const last = set.at(-1);
  if (last !== undefined) {
    if (last.dynamic || assignments.some((w) => /^[^=]*[$`]/.test(w.text))) return undefined;
    const value = last.text.slice("PATH=".length);
    return how.moves && value.split(":").some((dir) => !dir.startsWith("/")) ? undefined : value;
  }
  const ignore = how.empty || seen.has("i") ||
    [...seen.keys()].some((key) => key.length >= 2 && "ignore-environment".startsWith(key));
  const unset = options.some((w, i) =>
    w.text === "-uPATH" || /^--u[a-z]*=PATH$/.test(w.text) ||
    (w.text === "PATH" && /^(-[a-zA-Z0-9]*u|--u[a-z]*)$/.test(options[i - 1]?.text ?? ""))
  );
  return ignore || unset ? null : undefined;
}

const ENV_OPTIONS = { values: "uCSa", longValues: ["unset", "chdir", "split-string", "argv0"] };

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

/** The wrappers, by program name: each says what its words run. */
const WRAPPERS: Record<string, (words: Word[], name: string) => Inner[]> = {
  env(words, name) {
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
    const argv0 = typeof called === "string" ? { argv0: wordFor(words, called) } : {};
    return [
      ...place,
      ...assignmentsFor(assignments, name, path !== undefined),
      ...(inner[0]?.kind !== "argv"
        ? inner
        : [{ ...inner[0], ...argv0, ...(path === undefined ? {} : { path: [path] }) }]),
    ];
  },
  sudo(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "CDghpRrTtUu",
      longValues: [
        "close-from",
        "chdir",
        "group",
        "host",
        "prompt",
        "chroot",
        "role",
        "type",
        "command-timeout",
        "other-user",
        "user",
      ],
    });
    if (seen.has("e") || seen.has("edit") || seen.has("l") || seen.has("list")) return [];
    if (seen.has("v") || seen.has("k") || seen.has("K")) return argv(words, index, name);
    const start = skipAssignments(words, index);
    const login = seen.has("i") || hasLongFlag(seen, "login");
    const place = [
      ...(seen.has("R") || seen.has("chroot") ? [changesRoot(`${name} -R`)] : []),
      ...(seen.has("D") || seen.has("chdir") || login ? [movesDirectory(name)] : []),
      ...assignmentsFor(words.slice(index, start), name),
    ];
    if ((seen.has("s") || seen.has("i")) && start >= words.length) {
      return [...place, { kind: "stdin", via: `${name} -${seen.has("s") ? "s" : "i"}` }];
    }
    // With a secure_path in sudoers (Debian's and Ubuntu's), sudo finds the program there.
    const inner = argv(words, start, name);
    if (inner[0]?.kind !== "argv") return [...place, ...inner];
    return [...place, { ...inner[0], path: [undefined, SECURE_PATH] }];
  },
  doas(words, name) {
    const { index, seen } = skipOptions(words, 1, { values: "uC" });
    if (seen.has("s") && index >= words.length) return [{ kind: "stdin", via: `${name} -s` }];
    // Without keepenv, doas resets PATH to its safe path.
    const inner = argv(words, index, name);
    if (inner[0]?.kind !== "argv") return inner;
    return [{ ...inner[0], path: [undefined, DOAS_PATH] }];
  },
  nice: (words, name) =>
    argv(
      words,
      skipOptions(words, 1, { values: "n", longValues: ["adjustment"], numeric: true }).index,
      name,
    ),
  ionice(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "cnpPu",
      longValues: ["class", "classdata", "pid", "pgid", "uid"],
    });
    if (seen.has("p") || seen.has("P") || seen.has("u") || seen.has("pid")) return [];
    return argv(words, index, name);
  },
  nohup: (words, name) => argv(words, skipOptions(words, 1, {}).index, name),
  timeout: (words, name) =>
    argv(
      words,
      skipOptions(words, 1, { values: "sk", longValues: ["signal", "kill-after"] }).index + 1,
      name,
    ),
  time: (words, name) =>
    argv(
      words,
      skipOptions(words, 1, { values: "fo", longValues: ["format", "output"] }).index,
      name,
    ),
  command(words, name) {
    const { index, seen } = skipOptions(words, 1, {});
    if (seen.has("v") || seen.has("V")) return []; // Only says what a name is.
    const inner = argv(words, index, name);
    // `command -p` finds the program in the standard path (`getconf PATH`), not PATH.
    if (!seen.has("p") || inner[0]?.kind !== "argv") return inner;
    return [{ ...inner[0], lookup: STANDARD_PATH }];
  },
  builtin: (words, name) => argv(words, 1, name),
  exec(words, name) {
    const { index, seen } = skipOptions(words, 1, { values: "a" });
    const called = seen.get("a");
    const inner = argv(words, index, name);
    if (typeof called !== "string" || inner[0]?.kind !== "argv") return inner;
    // `exec -a git-push git ...`: the name a multi-call program is called by chooses what it does.
    return [{ ...inner[0], argv0: wordFor(words.slice(0, index), called) }];
  },
  coproc: (words, name) => argv(words, 1, name),
  stdbuf: (words, name) =>
    argv(
      words,
      skipOptions(words, 1, { values: "ioe", longValues: ["input", "output", "error"] }).index,
      name,
    ),
  setsid: (words, name) => argv(words, skipOptions(words, 1, {}).index, name),
  taskset(words, name) {
    const { index, seen } = skipOptions(words, 1, {});
    if (seen.has("p") || seen.has("pid")) return [];
    return argv(words, index + 1, name); // The mask or CPU list comes first.
  },
  chrt(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "TPD",
      longValues: ["sched-runtime", "sched-period", "sched-deadline"],
    });
    if (seen.has("p") || seen.has("pid") || seen.has("m") || seen.has("max")) return [];
    return argv(words, index + 1, name); // The priority comes first.
  },
  xargs(words, name) {
    // `-i[R]` and `-l[N]` take their value only attached (GNU): never the next word.
    const { index, seen } = skipOptions(words, 1, {
      // --eof, --replace and --max-lines take a value only after `=`.
      values: "adEILnPs",
      longValues: [
        "arg-file",
        "delimiter",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
      ],
    });
    if (index >= words.length) {
      return [{ kind: "argv", words: [{ text: "echo", dynamic: false }], via: name, open: true }];
    }
    // `-I R`: each R in the command is replaced by input, so those words are known only then.
    const short = words.slice(1, index).find((w) => /^-i/.test(w.text))?.text.slice(2);
    const replaced = seen.get("I") ?? seen.get("replace") ?? short;
    const marker = typeof replaced === "string" ? replaced || "{}" : replaced ? "{}" : undefined;
    if (marker === undefined || marker === "") return argv(words, index, name, true);
    const command = words.slice(index).map((w) =>
      w.text.includes(marker) ? { text: w.text, dynamic: true } : w
    );
    return [{ kind: "argv", words: command, via: name, open: true }];
  },
  watch(words, name) {
    // `-d`/`--differences` take a value only attached (`-dpermanent`, `--differences=permanent`).
    const { index, seen } = skipOptions(words, 1, {
      values: "nq",
      longValues: ["interval", "equexit"],
    });
    if (seen.has("x") || seen.has("exec")) return argv(words, index, name);
    if (index >= words.length) return [];
    const rest = words.slice(index);
    const text = { text: rest.map((w) => w.text).join(" "), dynamic: rest.some((w) => w.dynamic) };
    return [{ kind: "script", text, via: name }];
  },
  busybox: (words, name) => argv(words, skipOptions(words, 1, {}).index, name),
  su: (words, name) =>
    shellOf(words, name, {
      values: "sgGw",
      longValues: ["shell", "group", "supp-group", "whitelist-environment"],
    }),
  runuser(words, name) {
    const spec = {
      values: "cugGsw",
      longValues: [
        "command",
        "session-command",
        "user",
        "group",
        "supp-group",
        "shell",
        "whitelist-environment",
      ],
    };
    const { index, seen } = skipOptions(words, 1, spec);
    const command = seen.has("c") || seen.has("command") || seen.has("session-command");
    if ((seen.has("u") || seen.has("user")) && !command) return argv(words, index, name);
    return shellOf(words, name, spec);
  },
  script(words, name) {
    const { seen } = skipOptions(words, 1, {
      values: "cEIOBTmo",
      longValues: [
        "command",
        "echo",
        "log-in",
        "log-out",
        "log-io",
        "log-timing",
        "logging-format",
        "output-limit",
      ],
    });
    const command = seen.get("c") ?? seen.get("command");
    if (typeof command === "string") return [scriptOf(words, command, `${name} -c`)];
    return [{ kind: "stdin", via: name }];
  },
  flock(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "wEc",
      longValues: ["timeout", "conflict-exit-code", "command"],
    });
    const command = seen.get("c") ?? seen.get("command");
    if (typeof command === "string") return [scriptOf(words, command, `${name} -c`)];
    const rest = words.slice(index + 1); // After the lock file.
    if (rest[0]?.text === "-c" || rest[0]?.text === "--command") {
      return rest[1] === undefined ? [] : [{ kind: "script", text: rest[1], via: `${name} -c` }];
    }
    return argv(words, index + 1, name);
  },
  prlimit(words, name) {
    const { index, seen } = skipOptions(words, 1, { values: "po", longValues: ["pid", "output"] });
    if (seen.has("p") || seen.has("pid")) return [];
    return argv(words, index, name);
  },
  pkexec: (words, name) => argv(words, skipOptions(words, 1, { longValues: ["user"] }).index, name),
  fakeroot(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "lfisb",
      longValues: ["lib", "faked", "fd-base"],
    });
    // `-f PROG` runs PROG as the daemon; `-l LIB` loads LIB into the program.
    const faked = seen.get("f") ?? seen.get("faked");
    const lib = seen.has("l") || seen.has("lib");
    return [
      ...(typeof faked === "string" ? optionProgram(words, faked, `${name} --faked`) : []),
      ...(lib
        ? [{
          kind: "unknown" as const,
          reason: `${name} --lib loads a library into the program, whose code is not checked`,
        }]
        : []),
      ...argv(words, index, name),
    ];
  },
  eatmydata: (words, name) => argv(words, 1, name),
  unbuffer: (words, name) => argv(words, skipOptions(words, 1, {}).index, name),
  firejail: (words, name) => argv(words, skipOptions(words, 1, {}).index, name),
  parallel(words, name) {
    const { index } = skipOptions(words, 1, {
      values: "jSdIa",
      longValues: ["jobs", "delimiter", "arg-file", "sshlogin"],
    });
    const end = words.findIndex((word, i) => i >= index && /^:::+$/.test(word.text));
    const command = words.slice(index, end < 0 ? undefined : end);
    if (command.length === 0) {
      return [{ kind: "unknown", reason: `${name} reads the commands it runs from its input` }];
    }
    // Without a replacement string parallel appends each argument: known only then.
    const joined = command.map((w) => w.text).join(" ");
    const appended = /\{\d*[./#%]*\}/.test(joined) ? "" : ' "$argument"';
    const text = { text: joined + appended, dynamic: command.some((w) => w.dynamic) };
    return [{ kind: "script", text, via: name }];
  },
};

/**
 * What a simple command runs inside itself, when its program is a wrapper or a shell.
 * @param program the program's name (basename), as called or as resolved
 */
export function innerCommands(words: Word[], program: string): Inner[] {
  if (SHELLS.has(program)) return shell(words, program);
  const opaque = OPAQUE_RUNNERS[program];
  if (opaque !== undefined) return [{ kind: "unknown", reason: opaque }];
  if (isLoader(program)) return loader(words, program);
  const wrapper = WRAPPERS[program] ?? MORE_WRAPPERS[program];
  if (wrapper === undefined) return [];
  return wrapper(words, program);
}

/**
 * Where what a wrapper runs begins among its words: the words before are its
 * own options and their values (`fakeroot -i FILE`, `find DIR -name N`), which
 * may name a program it runs in a way not modelled here. -1 for a shell (its
 * words are its script's) or when what it runs is not among its words.
 */
export function ownWordsEnd(words: Word[], program: string): number {
  if (SHELLS.has(program) || program in OPAQUE_RUNNERS) return -1;
  let end = -1;
  for (const inner of innerCommands(words, program)) {
    const first = inner.kind === "argv"
      ? inner.words[0]
      : inner.kind === "script"
      ? inner.text
      : null;
    const at = first === null ? -1 : words.indexOf(first);
    if (at > 0 && (end < 0 || at < end)) end = at;
  }
  return end;
}

/** Whether `program` runs other programs (a wrapper or a shell). */
export function isWrapper(program: string): boolean {
  return SHELLS.has(program) || program in WRAPPERS || program in MORE_WRAPPERS ||
    program in OPAQUE_RUNNERS ||
    isLoader(program);
}
