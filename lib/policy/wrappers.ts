/**
 * Programs that run another program: `env`, `sudo`, `nice`, `timeout`,
 * `xargs`, `find -exec`, `busybox APPLET`, shells with `-c`, and the like.
 * Given a simple command's words, says what it runs inside.
 * @module
 */

import type { Word } from "./words.ts";

/** What a wrapper runs. */
export type Inner =
  /** A program with its arguments; `open` when more arguments are added at run time (xargs). */
  | { kind: "argv"; words: Word[]; via: string; open?: boolean }
  /** A shell command line to parse (`sh -c STRING`, `watch STRING`, `env -S STRING`). */
  | { kind: "script"; text: Word; via: string }
  /** A shell that reads its commands from standard input (or interactively). */
  | { kind: "stdin"; via: string }
  /** Something runs, but what cannot be known from the words. */
  | { kind: "unknown"; reason: string };

/** How a wrapper's options are read: which short and long options take a value. */
interface OptionSpec {
  values?: string;
  longValues?: string[];
  /** `-5` style numeric options (nice). */
  numeric?: boolean;
  /** Stop at the first word that is not an option (most do). */
}

/** Skips options from `start`; returns the index of the first operand and the options seen. */
function skipOptions(
  words: Word[],
  start: number,
  spec: OptionSpec,
): { index: number; seen: Map<string, string | true> } {
  const seen = new Map<string, string | true>();
  let i = start;
  while (i < words.length) {
    const text = words[i].text;
    if (text === "--") return { index: i + 1, seen };
    if (!text.startsWith("-") || text === "-") break;
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = eq < 0 ? text.slice(2) : text.slice(2, eq);
      if (eq < 0 && spec.longValues?.includes(name)) {
        seen.set(name, words[i + 1]?.text ?? "");
        i += 2;
      } else {
        seen.set(name, eq < 0 ? true : text.slice(eq + 1));
        i++;
      }
      continue;
    }
    if (spec.numeric && /^-\d+$/.test(text)) {
      i++;
      continue;
    }
    i++;
    for (let j = 1; j < text.length; j++) {
      const flag = text[j];
      if (spec.values?.includes(flag)) {
        const attached = text.slice(j + 1);
        seen.set(flag, attached !== "" ? attached : words[i]?.text ?? "");
        if (attached === "") i++;
        break;
      }
      seen.set(flag, true);
    }
  }
  return { index: i, seen };
}

function argv(words: Word[], index: number, via: string, open = false): Inner[] {
  if (index >= words.length) return [];
  return [{ kind: "argv", words: words.slice(index), via, open }];
}

/** Skips `NAME=value` words (env, sudo). */
function skipAssignments(words: Word[], index: number): number {
  while (index < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[index].text)) index++;
  return index;
}

/** Shells whose `-c STRING` is parsed, and which otherwise read commands from stdin or a file. */
export const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh"]);

function shell(words: Word[], name: string): Inner[] {
  let command = false;
  let stdin = false;
  let i = 1;
  while (i < words.length) {
    const text = words[i].text;
    if (text === "--" || text === "-") {
      i++;
      break;
    }
    if (!/^[-+]/.test(text)) break;
    i++;
    if (text.startsWith("--")) {
      if (text === "--rcfile" || text === "--init-file") i++;
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      if (text[j] === "c") command = true;
      else if (text[j] === "s") stdin = true;
      else if (text[j] === "o" || text[j] === "O") {
        if (j === text.length - 1) i++;
        break;
      }
    }
  }
  const via = `${name} -c`;
  if (command) {
    if (i >= words.length) return [];
    return [{ kind: "script", text: words[i], via }];
  }
  if (stdin || i >= words.length) return [{ kind: "stdin", via: name }];
  return []; // `bash script.sh`: a script file, matched by the shell's own name only.
}

/** The wrappers, by program name: each says what its words run. */
const WRAPPERS: Record<string, (words: Word[], name: string) => Inner[]> = {
  env(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "uCS",
      longValues: ["unset", "chdir", "split-string"],
    });
    const split = seen.get("S") ?? seen.get("split-string");
    const start = skipAssignments(words, index);
    if (typeof split === "string") {
      // `env -S 'rm -rf /'`: the string is split into words, then the rest follows.
      const rest = words.slice(start).map((w) => w.text).join(" ");
      return [{
        kind: "script",
        text: { text: `${split} ${rest}`, dynamic: false },
        via: `${name} -S`,
      }];
    }
    return argv(words, start, name);
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
    if ((seen.has("s") || seen.has("i")) && start >= words.length) {
      return [{ kind: "stdin", via: `${name} -${seen.has("s") ? "s" : "i"}` }];
    }
    return argv(words, start, name);
  },
  doas(words, name) {
    const { index, seen } = skipOptions(words, 1, { values: "uC" });
    if (seen.has("s") && index >= words.length) return [{ kind: "stdin", via: `${name} -s` }];
    return argv(words, index, name);
  },
  nice: (words, name) =>
    argv(
      words,
      skipOptions(words, 1, { values: "n", longValues: ["adjustment"], numeric: true }).index,
      name,
    ),
  ionice(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "cnp",
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
    return argv(words, index, name);
  },
  builtin: (words, name) => argv(words, 1, name),
  exec: (words, name) => argv(words, skipOptions(words, 1, { values: "a" }).index, name),
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
    const { index } = skipOptions(words, 1, {
      values: "adEIiLlnPs",
      longValues: [
        "arg-file",
        "delimiter",
        "eof",
        "replace",
        "max-lines",
        "max-args",
        "max-procs",
        "max-chars",
        "process-slot-var",
      ],
    });
    if (index >= words.length) {
      return [{ kind: "argv", words: [{ text: "echo", dynamic: false }], via: name, open: true }];
    }
    return argv(words, index, name, true);
  },
  watch(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "dnq",
      longValues: ["differences", "interval", "equexit"],
    });
    if (seen.has("x") || seen.has("exec")) return argv(words, index, name);
    if (index >= words.length) return [];
    const rest = words.slice(index);
    const text = { text: rest.map((w) => w.text).join(" "), dynamic: rest.some((w) => w.dynamic) };
    return [{ kind: "script", text, via: name }];
  },
  busybox: (words, name) => argv(words, skipOptions(words, 1, {}).index, name),
  find(words, name) {
    const found: Inner[] = [];
    for (let i = 1; i < words.length; i++) {
      const action = words[i].text;
      if (!["-exec", "-execdir", "-ok", "-okdir"].includes(action)) continue;
      let end = i + 1;
      while (end < words.length && words[end].text !== ";" && words[end].text !== "+") end++;
      const inner = words.slice(i + 1, end).map((w) =>
        w.text === "{}" ? { text: "{}", dynamic: true } : w
      );
      if (inner.length > 0) found.push({ kind: "argv", words: inner, via: `${name} ${action}` });
      i = end;
    }
    return found;
  },
};

/**
 * What a simple command runs inside itself, when its program is a wrapper or a shell.
 * @param program the program's name (basename), as called or as resolved
 */
export function innerCommands(words: Word[], program: string): Inner[] {
  if (SHELLS.has(program)) return shell(words, program);
  const wrapper = WRAPPERS[program];
  if (wrapper === undefined) return [];
  return wrapper(words, program);
}

/** Whether `program` runs other programs (a wrapper or a shell). */
export function isWrapper(program: string): boolean {
  return SHELLS.has(program) || program in WRAPPERS;
}
