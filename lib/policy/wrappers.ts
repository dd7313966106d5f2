/**
 * Programs that run another program: `env`, `sudo`, `nice`, `timeout`,
 * `xargs`, `find -exec`, `busybox APPLET`, shells with `-c`, and the like.
 * Given a simple command's words, says what it runs inside. The common ones
 * are here; `env` is env_wrapper.ts's, shells and `su` shells.ts's, the rest
 * wrappers_more.ts's.
 * @module
 */

import type { Word } from "./words.ts";
import {
  afterOptions,
  argv,
  optionProgram,
  optionScript,
  optionWord,
  skipAssignments,
  skipOptions,
} from "./wrapper_options.ts";
import { isLoader, loader, MORE_WRAPPERS, ZSH_MODIFIERS } from "./wrappers_more.ts";
import { assignmentsFor, changesRoot, hasLongFlag, movesDirectory } from "./wrapper_places.ts";
import { DOAS_PATH, SECURE_PATH, STANDARD_PATH, type WrapperPath } from "./wrapper_paths.ts";
import { envCommands } from "./env_wrapper.ts";
import { shellCommands, SHELLS, userShellCommands } from "./shells.ts";

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

/** The wrappers, by program name: each says what its words run. */
const WRAPPERS: Record<string, (words: Word[], name: string) => Inner[]> = {
  env: envCommands,
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
    return [...place, { ...inner[0], path: [undefined, SECURE_PATH] }, ...inner.slice(1)];
  },
  doas(words, name) {
    const { index, seen } = skipOptions(words, 1, { values: "uC" });
    if (seen.has("s") && index >= words.length) return [{ kind: "stdin", via: `${name} -s` }];
    // Without keepenv, doas resets PATH to its safe path.
    const inner = argv(words, index, name);
    if (inner[0]?.kind !== "argv") return inner;
    return [{ ...inner[0], path: [undefined, DOAS_PATH] }, ...inner.slice(1)];
  },
  nice: afterOptions({ values: "n", longValues: ["adjustment"], numeric: true }),
  ionice(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "cnpPu",
      longValues: ["class", "classdata", "pid", "pgid", "uid"],
    });
    if (seen.has("p") || seen.has("P") || seen.has("u") || seen.has("pid")) return [];
    return argv(words, index, name);
  },
  nohup: afterOptions({}),
  timeout: (words, name) =>
    argv(
      words,
      skipOptions(words, 1, { values: "sk", longValues: ["signal", "kill-after"] }).index + 1,
      name,
    ),
  time: afterOptions({ values: "fo", longValues: ["format", "output"] }),
  command(words, name) {
    const { index, seen } = skipOptions(words, 1, {});
    if (seen.has("v") || seen.has("V")) return []; // Only says what a name is.
    const inner = argv(words, index, name);
    // `command -p` finds the program in the standard path (`getconf PATH`), not PATH.
    if (!seen.has("p") || inner[0]?.kind !== "argv") return inner;
    return [{ ...inner[0], lookup: STANDARD_PATH }, ...inner.slice(1)];
  },
  builtin: (words, name) => argv(words, 1, name),
  exec(words, name) {
    const { index, seen } = skipOptions(words, 1, { values: "a" });
    const called = seen.get("a");
    const inner = argv(words, index, name);
    if (typeof called !== "string" || inner[0]?.kind !== "argv") return inner;
    // `exec -a git-push git ...`: the name a multi-call program is called by chooses what it does.
    return [{ ...inner[0], argv0: optionWord(words.slice(0, index), called) }, ...inner.slice(1)];
  },
  coproc: (words, name) => argv(words, 1, name),
  stdbuf: afterOptions({ values: "ioe", longValues: ["input", "output", "error"] }),
  setsid: afterOptions({}),
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
  busybox: afterOptions({}),
  su: (words, name) =>
    userShellCommands(words, name, {
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
    return userShellCommands(words, name, spec);
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
    if (typeof command === "string") return [optionScript(words, command, `${name} -c`)];
    return [{ kind: "stdin", via: name }];
  },
  flock(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "wEc",
      longValues: ["timeout", "conflict-exit-code", "command"],
    });
    const command = seen.get("c") ?? seen.get("command");
    if (typeof command === "string") return [optionScript(words, command, `${name} -c`)];
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
  pkexec: afterOptions({ longValues: ["user"] }),
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
  unbuffer: afterOptions({}),
  firejail: afterOptions({}),
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
  if (SHELLS.has(program)) return shellCommands(words, program);
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

/**
 * Words that run what follows inside the shell, its builtins included: the
 * reserved words `time` and `coproc`, `builtin`, `command` and zsh's
 * precommand modifiers. Any other wrapper, and `exec`, runs a file.
 */
const RUN_BUILTINS = new Set(["time", "coproc", "builtin", "command", ...ZSH_MODIFIERS]);

/** Whether the program a wrapper `program` runs may be a shell builtin (`time cd`, `noglob cd`). */
export function runsBuiltins(program: string): boolean {
  return RUN_BUILTINS.has(program);
}
