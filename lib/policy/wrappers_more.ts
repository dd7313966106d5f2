/**
 * More programs that run the program named in their arguments: privilege,
 * namespace and personality changers (`setpriv`, `chroot`, `unshare`,
 * `nsenter`, `setarch`, `linux32`, `choom`, `capsh`, `sg`), tracers (`strace`,
 * `ltrace`), loggers and agents (`logsave`, `ssh-agent`), proxies (`torsocks`,
 * `proxychains`), `find -exec`, the dynamic loader run as a program, and zsh's
 * builtins that run strings (`emulate -c`, `sched`, `zpty`) or are
 * programs under other names (`zf_rm`). Each says where its program begins, as
 * `wrappers.ts` does for the common ones.
 * @module
 */

import type { Word } from "./words.ts";
import type { Inner } from "./wrappers.ts";
import { afterOptions, argv, optionProgram, optionWord, skipOptions } from "./wrapper_options.ts";
import { changesRoot, hasLongFlag, movesDirectory } from "./wrapper_places.ts";
import { RESET_PATHS } from "./wrapper_paths.ts";

/** strace's long options that take the next word as their value (strace 6). */
const STRACE_VALUES = [
  "abbrev",
  "attach",
  "columns",
  "const-print-style",
  "decode-pids",
  "detach-on",
  "env",
  "fault",
  "inject",
  "interruptible",
  "kvm",
  "output",
  "raw",
  "read",
  "signal",
  "status",
  "string-limit",
  "summary-columns",
  "summary-sort-by",
  "summary-syscall-overhead",
  "trace",
  "trace-path",
  "user",
  "verbose",
  "write",
];

/** The wrappers of this module, by program name. */
export const MORE_WRAPPERS: Record<string, (words: Word[], name: string) => Inner[]> = {
  chroot(words, name) {
    const { index } = skipOptions(words, 1, { longValues: ["userspec", "groups"] });
    if (index + 1 >= words.length) return [{ kind: "stdin", via: name }];
    return [changesRoot(name), ...argv(words, index + 1, name)]; // After the new root.
  },
  unshare(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "SGRw",
      longValues: [
        "setuid",
        "setgid",
        "root",
        "wd",
        "propagation",
        "setgroups",
        "map-user",
        "map-users",
        "map-group",
        "map-groups",
        "monotonic",
        "boottime",
      ],
    });
    const place = [
      ...(seen.has("R") || seen.has("root") ? [changesRoot(`${name} --root`)] : []),
      ...(seen.has("w") || seen.has("wd") ? [movesDirectory(`${name} --wd`)] : []),
    ];
    if (index >= words.length) return [...place, { kind: "stdin", via: name }];
    return [...place, ...argv(words, index, name)];
  },
  nsenter(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "tSGW",
      longValues: ["target", "setuid", "setgid", "wdns"],
      longFlags: ["wd"],
    });
    // `-r`/`-w` take their directory only attached (else the target's own root or directory).
    const root = seen.has("r") || hasLongFlag(seen, "root");
    const wd = seen.has("w") || seen.has("W") || hasLongFlag(seen, "wd") || seen.has("wdns");
    const place = [
      ...(root ? [changesRoot(`${name} --root`)] : []),
      ...(wd ? [movesDirectory(`${name} --wd`)] : []),
    ];
    if (index >= words.length) return [...place, { kind: "stdin", via: name }];
    return [...place, ...argv(words, index, name)];
  },
  strace(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "abeEIoOpPsSuUX",
      longValues: STRACE_VALUES,
      longFlags: ["summary"],
    });
    // `-o '|CMD'` (or `!CMD`) pipes the trace into CMD, run by /bin/sh -c.
    const output = seen.get("o") ?? seen.get("output");
    const piped: Inner[] = typeof output === "string"
      ? valueAsCommand(words, output, `${name} -o`)
      : [];
    return [...piped, ...argv(words, index, name)];
  },
  ltrace: afterOptions({ values: "aADeFlnopsuwx", longValues: ["output", "library"] }),
  setpriv(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "",
      longValues: [
        "reuid",
        "regid",
        "ruid",
        "rgid",
        "euid",
        "egid",
        "groups",
        "inh-caps",
        "ambient-caps",
        "bounding-set",
        "securebits",
        "pdeathsig",
        "selinux-label",
        "apparmor-profile",
        "landlock-access",
        "landlock-rule",
        "seccomp-filter",
      ],
    });
    if (seen.has("d") || seen.has("dump")) return [];
    const inner = argv(words, index, name);
    // `--reset-env` sets PATH for the user it runs as, then finds the program in it.
    if (!hasLongFlag(seen, "reset-env") || inner[0]?.kind !== "argv") return inner;
    return [{ ...inner[0], path: RESET_PATHS }, ...inner.slice(1)];
  },
  setarch(words, name) {
    // `setarch ARCH [options] [program [args]]`; with no program, a shell.
    if (words[1] === undefined || /^-/.test(words[1].text)) return [];
    return archCommand(words, 2, name);
  },
  choom(words, name) {
    const { index, seen } = skipOptions(words, 1, {
      values: "np",
      longValues: ["adjust", "pid"],
    });
    if (seen.has("p") || seen.has("pid")) return [];
    return argv(words, index, name);
  },
  logsave(words, name) {
    const { index } = skipOptions(words, 1, {});
    return argv(words, index + 1, name); // After the log file.
  },
  "ssh-agent"(words, name) {
    const { index, seen } = skipOptions(words, 1, { values: "aEPtO" });
    if (seen.has("k") || seen.has("T")) return [];
    return argv(words, index, name);
  },
  sg(words, name) {
    // `sg [-] GROUP [-c] COMMAND`: the command goes to /bin/sh -c.
    let i = 1;
    if (words[i]?.text === "-") i++;
    i++; // The group.
    if (words[i]?.text === "-c") i++;
    const rest = words.slice(i);
    if (rest.length === 0) return [{ kind: "stdin", via: name }];
    const text = { text: rest.map((w) => w.text).join(" "), dynamic: rest.some((w) => w.dynamic) };
    return [{ kind: "script", text, via: `${name} -c` }];
  },
  capsh(words, name) {
    // `capsh [options] -- ARGS` runs bash with ARGS; `== ARGS` runs capsh again.
    const at = words.findIndex((w, i) => i > 0 && (w.text === "--" || w.text === "=="));
    if (at < 0) return [];
    if (words[at].text === "==") {
      return [{ kind: "argv", words: [words[0], ...words.slice(at + 1)], via: name }];
    }
    const shell = words.slice(1, at).find((w) => w.text.startsWith("--shell="));
    const program = {
      text: shell?.text.slice("--shell=".length) ?? "/bin/bash",
      dynamic: shell?.dynamic ?? false,
    };
    return [{ kind: "argv", words: [program, ...words.slice(at + 1)], via: `${name} --` }];
  },
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
  "dbus-run-session"(words, name) {
    const { index, seen } = skipOptions(words, 1, { longValues: ["config-file", "dbus-daemon"] });
    // `--dbus-daemon=PROG` runs PROG as the bus (with arguments of its own).
    const daemon = seen.get("dbus-daemon");
    return [
      ...(typeof daemon === "string" ? optionProgram(words, daemon, `${name} --dbus-daemon`) : []),
      ...argv(words, index, name),
    ];
  },
  torsocks: afterOptions({ values: "uPapd", longValues: ["user", "pass", "address", "port"] }),
  proxychains: afterOptions({ values: "f" }),
  proxychains4: afterOptions({ values: "f" }),
  catchsegv: (words, name) => argv(words, 1, name),
  numactl: afterOptions({
    values: "iNmpCP",
    longValues: ["interleave", "cpunodebind", "membind", "preferred", "physcpubind"],
  }),
};

/**
 * strace's output file: `|CMD` or `!CMD` is a command run by /bin/sh -c;
 * one known only at run time may be.
 */
function valueAsCommand(words: Word[], value: string, via: string): Inner[] {
  const word = optionWord(words, value);
  if (word.dynamic && /^[$`"'|!]/.test(value)) {
    return [{
      kind: "unknown",
      reason: `${via} is given a value known only when the line runs, which may be a command`,
    }];
  }
  if (!/^[|!]/.test(value)) return [];
  return [{ kind: "script", text: { text: value.slice(1), dynamic: word.dynamic }, via }];
}

/** A command line made of words a builtin joins with spaces and evaluates (`sched`, `zpty`). */
function joined(rest: Word[], via: string): Inner[] {
  if (rest.length === 0) return [];
  const text = { text: rest.map((w) => w.text).join(" "), dynamic: rest.some((w) => w.dynamic) };
  return [{ kind: "script", text, via }];
}

/** zsh's builtins (and those of its modules) that run a string of code, now or later. */
const ZSH_RUNNERS: Record<string, (words: Word[], name: string) => Inner[]> = {
  emulate(words, name) {
    // `emulate [-lLR] [MODE [FLAGS...]]`: with `-c CODE` among the flags, CODE runs.
    if (words.slice(1).some((w) => w.dynamic)) {
      return [{ kind: "unknown", reason: `${name} is given flags built at run time` }];
    }
    const at = words.findIndex((w, i) => i > 0 && /^-[a-zA-Z]*c/.test(w.text));
    if (at < 0) return [];
    // Flags such as `-o NAME` may stand between: every word after is checked as code.
    return words.slice(at + 1).map((text) => ({ kind: "script", text, via: `${name} -c` }));
  },
  sched(words, name) {
    // `sched [-o] [+]TIME COMMAND...`; `sched -N` removes an entry, `sched` lists them.
    let i = 1;
    if (words[i]?.text === "-o" || words[i]?.text === "--") i++;
    if (words[i] === undefined || /^-\d+$/.test(words[i].text)) return [];
    return joined(words.slice(i + 1), name);
  },
  zpty(words, name) {
    // `zpty [-eb] NAME COMMAND...` starts COMMAND; `-d`, `-w`, `-r`, `-t`, `-L` run nothing.
    let i = 1;
    while (words[i] !== undefined && /^-/.test(words[i].text)) {
      if (/[dwrtLn]/.test(words[i].text)) return [];
      i++;
    }
    return joined(words.slice(i + 1), name);
  },
  zregexparse: (_words, name) => [{
    kind: "unknown",
    reason: `${name} evaluates the actions in its patterns, which are not checked`,
  }],
  // `repeat N CMD`: CMD runs N times.
  repeat: (words, name) => argv(words, 2, name),
};

/**
 * zsh's precommand modifiers that run the command after them in the shell,
 * its builtins included: `- CMD` (a login-style argv[0]), `noglob CMD`,
 * `nocorrect CMD`. (`builtin`, `command` and `exec` are wrappers.ts's.)
 */
export const ZSH_MODIFIERS: readonly string[] = ["-", "noglob", "nocorrect"];

for (const modifier of ZSH_MODIFIERS) ZSH_RUNNERS[modifier] = (words, name) => argv(words, 1, name);

/**
 * zsh/files' builtins: `zf_rm` is `rm` under another name (the module adds `rm`,
 * `mv`... under their own names too, which rules see as such).
 */
const ZSH_FILES = ["chgrp", "chmod", "chown", "ln", "mkdir", "mv", "rm", "rmdir", "sync"];

Object.assign(MORE_WRAPPERS, ZSH_RUNNERS);
for (const program of ZSH_FILES) {
  MORE_WRAPPERS[`zf_${program}`] = (words, name) => [{
    kind: "argv",
    words: [{ text: program, dynamic: false }, ...words.slice(1)],
    via: name,
  }];
}

/** `setarch`'s personalities called by their own names (`linux32 CMD`): no architecture word. */
const ARCH_NAMES = ["linux32", "linux64", "i386", "i686", "x86_64", "uname26", "arm", "aarch64"];

/** `setarch`'s options (none takes a value), then the program; with none, a shell. */
function archCommand(words: Word[], start: number, name: string): Inner[] {
  const { index } = skipOptions(words, start, {});
  if (index >= words.length) return [{ kind: "stdin", via: name }];
  return argv(words, index, name);
}

for (const arch of ARCH_NAMES) MORE_WRAPPERS[arch] = (words, name) => archCommand(words, 1, name);

/**
 * The dynamic loader run as a program (`/lib64/ld-linux-x86-64.so.2 /usr/bin/touch`,
 * `ld.so`): it loads and runs the program named after its options.
 */
export function loader(words: Word[], name: string): Inner[] {
  const { index, seen } = skipOptions(words, 1, {
    longValues: [
      "library-path",
      "inhibit-rpath",
      "audit",
      "preload",
      "argv0",
      "glibc-hwcaps-prefix",
      "glibc-hwcaps-mask",
    ],
  });
  if (seen.has("list") || seen.has("verify") || seen.has("help") || seen.has("version")) return [];
  return argv(words, index, name);
}

/** Whether a program's name is the dynamic loader's. */
export function isLoader(program: string): boolean {
  return /^(ld-linux[^/]*\.so(\.\d+)*|ld(64)?\.so(\.\d+)*|ld-musl-[^/]*\.so(\.\d+)*|ld-\d+(\.\d+)*\.so)$/
    .test(
      program,
    );
}
