/**
 * From a line (or an argv) to every program it would run: parses it, looks
 * through wrappers and shells, and collects what cannot be known. Pure
 * analysis: rules are applied by `engine.ts`.
 * @module
 */

import { existsSync } from "node:fs";
import { basename, resolve } from "node:path";
import { deferredCode } from "./deferred.ts";
import { extractCommands, type LineContents } from "./extract.ts";
import type { ShellParser } from "./parser.ts";
import { lineValues } from "./line_values.ts";
import { arithmeticLookupChange, lookupChange } from "./lookup.ts";
import { mayWriteInto, namesFile, redirectTargets, writablePathDirs } from "./path_writes.ts";
import {
  EXEC,
  isBuiltin,
  type ProgramFile,
  programFile,
  programNames,
  realFile,
  relativeEntryBefore,
} from "./resolve.ts";
import { gitByName, isMultiCall } from "./called_as.ts";
import { onlyReads } from "./read_only.ts";
import { scriptPlace } from "./script_files.ts";
import { shellAmongArguments } from "./shell_arguments.ts";
import { joinContinuations } from "./continuations.ts";
import type { ProgramNames } from "./rules.ts";
import type { ShellState } from "./types.ts";
import type { Word } from "./words.ts";
import { innerCommands, isWrapper, type WrapperPath } from "./wrappers.ts";
import { isSystemPath, SHELL_DEFAULT_PATH, STANDARD_PATH } from "./wrapper_paths.ts";
import { absolute, realPath } from "./paths.ts";
import { environmentCode } from "./wrapper_places.ts";
import { aliasesAnywhere, expandFollowingAliases, expandGlobalAliases } from "./aliases.ts";
import { type Dialect, dialectOf, dialectReading } from "./dialects.ts";
import { arithmeticNames, evaluatedNames } from "./arithmetic_names.ts";

/** One program the line runs, with what rules need to match it. */
export interface Analysed {
  words: Word[];
  via: string[];
  program: ProgramNames;
  /** The real file it runs, when found. */
  resolved?: string;
  /** More arguments are added at run time (xargs). */
  open: boolean;
}

/** Everything a line runs, and why parts of it cannot be known. */
export interface Analysis {
  commands: Analysed[];
  unknowns: LineContents["unknowns"];
  /** Names of the functions the line defines (at any depth). */
  functions: string[];
  /** Values the line sets or feeds to commands (`t=/usr/bin/touch`, `<<< text`): expansions may pass them on. */
  values: Word[];
  /** The values plain variables are given in the line (null: known only at run time). */
  variables: Map<string, (string | null)[]>;
}

/** Where the line runs. */
export interface AnalysisContext {
  cwd: string;
  path: string;
  home: string;
  /** The shell's aliases, when the line is typed into a shell that has them. */
  aliases?: Record<string, string>;
  /** zsh's global aliases (`alias -g`): replaced wherever they stand as a word, not only first. */
  globalAliases?: Record<string, string>;
  /** zsh's suffix aliases (`alias -s EXT=PROGRAM`): a command `f.EXT` runs `PROGRAM f.EXT`. */
  suffixAliases?: Record<string, string>;
  /** The environment the line runs with: functions exported in it (`BASH_FUNC_*`) are checked. */
  env?: Record<string, string>;
  /** What earlier lines left changed in the shell (a session's typed lines). */
  shellState?: ShellState;
  /** The shell the line is typed into (`zsh`, `/bin/bash`): its builtins run no file. Bash when not given. */
  shell?: string;
}

/** What a name the shell runs itself leads to: no file. */
const NO_FILE: ProgramFile = { real: null, process: false, directory: false };

/** Shells whose builtins are known (resolve.ts); another program's string may go to any shell. */
const SHELLS = new Set(["bash", "rbash", "zsh", "sh", "dash"]);

/** Quoted text shaped as an array subscript holding a substitution (`a[$(cmd)]`). */
const SUBSCRIPT = /\[[^\]]*(\$\(|`)/;

/**
 * HOME or ZDOTDIR named other than as read (`$HOME`, `${HOME}`): the line may
 * set it (`HOME=x`, `export HOME`, `read HOME`, `${HOME:=x}`), and with it
 * where shells find their startup files; or a startup file named (the line
 * may write it: `echo ... >> ~/.zshenv`).
 */
const STARTUP_VARIABLE =
  /(^|[^$\w{])(HOME|ZDOTDIR)\b|\$\{(HOME|ZDOTDIR):?[=]|\.(bashrc|bash_profile|bash_login|profile|zshenv|zshrc|zprofile|zlogin)\b/;

/** Reserved words and zsh's modifiers that run what follows in the shell, builtins included. */
const RUN_BUILTINS = new Set(["time", "coproc", "noglob", "nocorrect", "-", "builtin", "command"]);

/** A word bash reads as an assignment when its keyword option is on. */
const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;

/** Deeper nesting of `sh -c` strings than this is not followed (and so is unknown). */
const MAX_DEPTH = 12;

/** Programs that run code the parser cannot see. */
const OPAQUE: Record<string, string> = {
  eval: "eval runs a string put together when the line runs",
  source: "source runs a file whose contents are not checked",
  ".": ". runs a file whose contents are not checked",
};

/** What tells a command found twice (under two PATHs) from another. */
function commandKey(command: Analysed): string {
  return [command.via.join(">"), command.resolved ?? "", ...command.words.map((w) => w.text)]
    .join("\0");
}

/** What tells an unknown found twice from another. */
function unknownKey(unknown: Analysis["unknowns"][number]): string {
  return `${unknown.via.join(">")}\0${unknown.reason}`;
}

/** An analysis that has found nothing yet. */
function emptyAnalysis(): Analysis {
  return { commands: [], unknowns: [], functions: [], values: [], variables: new Map() };
}

/** Analyses a shell command line. */
export function analyseLine(parser: ShellParser, line: string, context: AnalysisContext): Analysis {
  const analysis = emptyAnalysis();
  const analyser = new Analyser(parser, context, analysis);
  analyser.line(line, [], 0);
  analyser.definedFunctions();
  analyser.environment();
  analyser.finish();
  analyser.writes();
  return analysis;
}

/** Analyses a program and its arguments given as words (no shell in between). */
export function analyseArgv(
  parser: ShellParser,
  argv: string[],
  context: AnalysisContext,
): Analysis {
  const analysis = emptyAnalysis();
  const words = argv.map((text) => ({ text, dynamic: false }));
  const analyser = new Analyser(parser, context, analysis);
  analyser.command(words, [], false, undefined, 0);
  analyser.environment();
  analyser.finish();
  analyser.writes();
  return analysis;
}

class Analyser {
  constructor(
    readonly parser: ShellParser,
    readonly context: AnalysisContext,
    readonly analysis: Analysis,
  ) {
    this.#path = context.path;
    // An earlier line moved HOME: any shell's start-up files are someone else's.
    this.#startupDirectory = context.shellState?.homeMoved === true;
    this.#homeMoved = this.#startupDirectory;
    this.#shell = context.shell;
  }

  /**
   * Checks a line of code; `dialect` when another shell than the one around
   * reads it (`sh -c STRING`), else it is read as the text it stands in.
   */
  line(text: string, via: string[], depth: number, dialect?: Dialect, shell?: string): void {
    const outer = { dialect: this.#dialect, shell: this.#shell };
    if (dialect !== undefined) this.#dialect = dialect;
    // The shell whose builtins its names are (another program's string: any shell's).
    if (shell !== undefined) this.#shell = SHELLS.has(shell) ? shell : "";
    try {
      this.#line(text, via, depth);
    } finally {
      this.#dialect = outer.dialect;
      this.#shell = outer.shell;
    }
  }

  /** Who reads the line being checked: bash, or a shell that reads some constructs otherwise. */
  #dialect: Dialect = "bash";

  #line(text: string, via: string[], depth: number): void {
    if (depth > MAX_DEPTH) {
      this.unknown(`shell strings are nested more than ${MAX_DEPTH} deep`, via);
      return;
    }
    const anywhere = this.#anywhere;
    if (anywhere !== undefined && !this.#expandingGlobal) {
      const expanded = expandGlobalAliases(text, anywhere);
      if (expanded !== text) {
        // The line as the shell runs it is checked too (the line as written, below, as well).
        this.#expandingGlobal = true;
        this.line(expanded, [...via, "an alias in the line"], depth + 1);
        this.#expandingGlobal = false;
      }
    }
    if (!this.#startupDirectory && STARTUP_VARIABLE.test(text)) this.#startupDirectory = true;
    if (!this.#readsInput && /<(?!\()/.test(text)) this.#readsInput = true;
    // Extraction finishes with the tree before any nested parse replaces it.
    let contents: ReturnType<typeof extractCommands>;
    try {
      const root = this.parser.parse(joinContinuations(text));
      contents = extractCommands(root, this.context.home, via);
      // Each walks the tree again: only when the text could hold what it looks for.
      if (text.includes(">")) this.#redirected.push(...redirectTargets(root, this.context.home));
      if (/=|<<<|\b(for|select|read|mapfile|readarray)\b/.test(text)) {
        this.analysis.values.push(...lineValues(root, this.context.home, this.analysis.variables));
      }
      if (contents.arithmetic || /=|\b(for|printf|print|read|mapfile|readarray)\b/.test(text)) {
        const names = arithmeticNames(root);
        this.#evaluated.push(...names.evaluated);
        this.#assembled.push(...names.assembled.map((name) => ({ name, via })));
        if (names.joined !== null) {
          this.unknown(
            `arithmetic evaluates "${names.joined}", which joins several values: a subscript with a substitution may form where they meet, which cannot be checked`,
            via,
          );
        }
      }
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      // Thousands of nested groups or substitutions: too deep to walk, so unknown.
      this.unknown("the line nests constructs too deeply to be checked", via);
      return;
    }
    if (contents.blank.length > 0) {
      // `coproc NAME { ...; }`: the parser reads NAME's compound as words; read it without them.
      const joined = joinContinuations(text);
      let blanked = joined;
      for (const { start, end } of contents.blank) {
        blanked = blanked.slice(0, start) + " ".repeat(end - start) + blanked.slice(end);
      }
      if (blanked !== joined) return this.line(blanked, via, depth + 1);
    }
    this.analysis.unknowns.push(...contents.unknowns);
    if (this.#dialect !== "bash") {
      const programs = contents.commands.map((found) => found.words[0]);
      const reading = dialectReading(this.#dialect, text, programs);
      if (reading !== null) this.unknown(reading, via);
    }
    if (contents.arithmetic) {
      this.#arithmetic = true;
      const change = arithmeticLookupChange(text);
      if (change !== null) this.unknown(change, via);
    }
    this.#quoted.push(...contents.quoted.map((q) => ({ ...q, depth })));
    this.analysis.functions.push(...contents.functions);
    for (const code of contents.deferred) this.#deferred(code.text, code.via, depth);
    for (const code of contents.code) this.line(code.text, code.via, depth + 1);
    for (const found of contents.commands) {
      if (!found.words[0].dynamic) this.#commandNames.add(found.words[0].text);
    }
    for (const found of contents.commands) {
      this.command(found.words, found.via, false, found.stdin, depth);
      const alias = found.afterName !== undefined
        ? this.context.aliases?.[found.words[0].text] ?? this.#suffixAlias(found.words[0])
        : undefined;
      if (alias !== undefined && !this.#expanding.has(found.words[0].text)) {
        // The shell runs the alias's text in the word's place: check that too.
        this.#expanding.add(found.words[0].text);
        this.line(
          expandFollowingAliases(alias, found.afterName ?? "", this.context.aliases ?? {}),
          [...found.via, `alias ${found.words[0].text}`],
          depth + 1,
        );
        this.#expanding.delete(found.words[0].text);
      }
    }
  }

  readonly #expanding = new Set<string>();

  /** zsh: `PROGRAM WORD ` for a command word `f.EXT` with a suffix alias (`alias -s EXT=PROGRAM`). */
  #suffixAlias(word: Word): string | undefined {
    const extension = /\.([^./]+)$/.exec(word.text)?.[1];
    const program = extension === undefined ? undefined : this.context.suffixAliases?.[extension];
    return program === undefined || word.dynamic ? undefined : `${program} ${word.text}`;
  }

  /** Global aliases are being replaced (in the text they were replaced in). */
  #expandingGlobal = false;
  /** The aliases replaced wherever they stand (null: not yet computed for this analysis). */
  #anywhereCache: Record<string, string> | undefined | null = null;
  get #anywhere(): Record<string, string> | undefined {
    if (this.#anywhereCache === null) this.#anywhereCache = aliasesAnywhere(this.context);
    return this.#anywhereCache;
  }

  /** Some part of the line evaluates arithmetic. */
  #arithmetic = false;
  /** Quoted text with substitutions, run if arithmetic evaluates it. */
  readonly #quoted: { text: string; via: string[]; depth: number }[] = [];

  /** Functions exported through the environment: any bash the line starts defines them. */
  environment(): void {
    const env = this.context.env ?? {};
    for (const name in env) {
      if (!name.startsWith("BASH_FUNC_")) continue;
      const value = env[name];
      for (const inner of environmentCode({ text: `${name}=${value}`, dynamic: false }, "env")) {
        if (inner.kind === "script") this.line(inner.text.text, [inner.via], 1);
        else if (inner.kind === "unknown") this.unknown(inner.reason, []);
      }
    }
  }

  /**
   * After the whole line: when it evaluates arithmetic anywhere, bash runs the
   * substitutions in an array subscript of the text it evaluates
   * (`x='a[$(touch m)]'; echo $((x))`, `let 'a[$(touch m)]'`), so every quoted
   * text holding one is checked as run. Text shaped as a subscript holding a
   * substitution is checked always: bash evaluates a subscript wherever a
   * variable name is taken (`unset`, `[[ -v ]]`, `read`, `printf -v`, `declare`).
   */
  finish(): void {
    if ((this.#arithmetic || this.#evaluated.length > 0) && !this.#builtChecked) {
      this.#builtChecked = true;
      this.#builtValues();
    }
    const quoted = this.#quoted.splice(0).filter(({ text }) =>
      this.#arithmetic || SUBSCRIPT.test(text)
    );
    for (const { text, via, depth } of quoted) {
      this.line(`: ${text}`, [...via, "arithmetic evaluation"], depth + 1);
    }
    // Text those checks turned up is checked too (the flag stays set).
    if (this.#quoted.length > 0) this.finish();
  }

  /** Names arithmetic evaluates in the line, at any depth. */
  readonly #evaluated: string[] = [];
  /** Variables the line gives a value built from several values, at any depth. */
  readonly #assembled: { name: string; via: string[] }[] = [];
  #builtChecked = false;

  /**
   * The line evaluates arithmetic: a value it gives a variable that holds a
   * substitution (`z=a[\$'(touch m)]'`, one word of several quoted pieces) is
   * checked as run; a variable arithmetic evaluates whose value the line
   * builds from several values (`z=$x$y; echo $((z))`) is unknown, as a
   * subscript with a substitution may form only where the pieces meet.
   */
  #builtValues(): void {
    for (const values of this.analysis.variables.values()) {
      for (const text of values) {
        if (text !== null && /\$\(|`/.test(text)) this.#quoted.push({ text, via: [], depth: 0 });
      }
    }
    const evaluated = evaluatedNames(
      this.#evaluated,
      this.analysis.variables,
      this.analysis.values,
    );
    const built = this.#assembled.find(({ name }) => evaluated.has(name));
    if (built !== undefined) {
      this.unknown(
        `arithmetic evaluates "${built.name}", whose value the line builds from several values: a subscript in it may run a substitution, which cannot be checked`,
        built.via,
      );
    }
  }

  /** Files the line writes to by redirection. */
  readonly #redirected: Word[] = [];

  /**
   * After the whole line: a file it may put into a writable directory on PATH
   * (names were looked up before it runs), or a program it runs by path that
   * it also names as a file (`printf ... > ./x; ./x`), is unknown.
   */
  writes(): void {
    const cwd = this.context.cwd;
    const programs = new Set(this.analysis.commands.map((c) => c.words[0]));
    const files = [
      ...this.#redirected,
      ...this.analysis.commands.flatMap((c) => c.words.slice(1)).filter((w) => !programs.has(w)),
    ];
    const dirs = new Set(writablePathDirs(this.context.path, cwd, this.context.home));
    for (const path of this.#givenPaths) {
      for (const dir of writablePathDirs(path, cwd, this.context.home)) dirs.add(dir);
    }
    const names = new Set(
      [...programs].filter((w) => !w.dynamic && !w.text.includes("/")).map((w) => w.text),
    );
    const into = files.find((word) => mayWriteInto(word, dirs, names, this.context));
    if (into !== undefined) {
      this.unknown(
        `the line may put "${into.text}" into a directory on PATH, so a name it runs may be a new file`,
        [],
      );
    } else if (this.analysis.commands.length > 1 && dirs.has(resolve(cwd))) {
      // In a directory on PATH (`.` in PATH, or ~/bin), any command may create a name (`tar x`).
      const name = [...names].find((n) => !isBuiltin(n));
      if (name !== undefined) {
        this.unknown(
          `the line runs in "${cwd}", a directory on PATH, where its commands may put a file named "${name}" first`,
          [],
        );
      }
    }
    // Where the kernel opens each file the line names (`lnk/../x` is beside lnk's target).
    let opened: Set<string> | undefined;
    for (const command of this.analysis.commands) {
      const first = command.words[0].text;
      if (!first.includes("/")) continue;
      const path = resolve(cwd, first);
      opened ??= new Set(
        files.filter((word) => !word.dynamic).flatMap((word) => {
          const eq = word.text.indexOf("=");
          const texts = eq >= 0 ? [word.text, word.text.slice(eq + 1)] : [word.text];
          return texts.filter((text) => text !== "").map((text) => realPath(absolute(cwd, text)));
        }),
      );
      const real = command.resolved ?? realPath(absolute(cwd, first));
      if (files.some((word) => namesFile(word, path, cwd)) || opened.has(real)) {
        this.unknown(
          `the line names "${first}" as a file as well as running it, so it may be rewritten first`,
          command.via,
        );
      }
    }
  }

  /**
   * After the line (before the environment's functions): a function it
   * defines in a line that changes directory may change it when a later line
   * calls it (`ls() { cd "$1"; }`, then `ls d; ./x`), unseen there.
   */
  definedFunctions(): void {
    if (this.#changedDirectory && this.analysis.functions.length > 0) {
      // `ls() { cd "$1"; }`: a later line's `ls d` would change directory unseen.
      this.unknown(
        `the line defines ${
          this.analysis.functions.map((name) => `"${name}"`).join(", ")
        } and changes directory: a later line calling it may run elsewhere than it is judged`,
        [],
      );
    }
  }

  /** Program names the line runs: an alias it defines and also uses has its text checked. */
  readonly #commandNames = new Set<string>();

  command(words: Word[], via: string[], open: boolean, stdin: Word | undefined, depth: number) {
    const path = this.#lookup ?? this.#path;
    this.#lookup = undefined;
    if (words.length === 0) return;
    let first = words[0];
    if (first.dynamic) {
      this.unknown(`the program "${first.text}" is only known when the line runs`, via);
      return;
    }
    if (/^=[^=/\s]/.test(first.text)) {
      // zsh's `=touch` is the file `touch` runs (in bash the word names no program).
      first = { text: first.text.slice(1), dynamic: false };
      words = [first, ...words.slice(1)];
    }
    if (!this.#startupDirectory && words.some((w) => STARTUP_VARIABLE.test(w.text))) {
      this.#startupDirectory = true;
    }
    const lookup = {
      cwd: this.context.cwd,
      path,
      shell: this.#shell,
      // bash expands `~` at the start of a PATH entry as it searches; zsh and dash do not.
      ...(this.#shell === undefined || /(^|\/)r?bash$/.test(this.#shell)
        ? { home: this.context.home }
        : {}),
    };
    const program = programNames(first.text, lookup);
    const entry: Analysed = { words, via, program, open };
    if (program.real !== null) entry.resolved = program.real;
    this.analysis.commands.push(entry);
    if (
      this.#given && program.real === null && !first.text.includes("/") &&
      !isBuiltin(first.text, this.#shell)
    ) {
      // `env PATH=DIR ls`: the line may put ls into DIR first.
      this.unknown(
        `"${first.text}" is not found in the PATH a wrapper gives it, so what it will be cannot be known`,
        via,
      );
    }
    this.#whereItRuns(first.text, program.real, words, via, lookup);
    if (
      !isBuiltin(first.text, this.#shell) && !onlyReads(program.names, words) &&
      !program.names.some(isWrapper) // A wrapper's program is checked as a command of its own.
    ) {
      this.#openedArguments(words, via, lookup);
    }
    const git = gitByName(program.names[0], words);
    if (git !== null) this.command(git, [...via, first.text], open, stdin, depth + 1);
    const argv0 = this.analysis.variables.get("ARGV0");
    if (argv0 !== undefined && !this.#argv0 && isMultiCall(program.names)) {
      // zsh runs external commands with $ARGV0 as their argv[0] (`ARGV0=git-push git ...`).
      this.#argv0 = true;
      for (const name of argv0) {
        this.#calledAs({ text: name ?? "$ARGV0", dynamic: name === null }, words, via, open, depth);
      }
      this.#argv0 = false;
    }
    const opaque = OPAQUE[first.text];
    if (opaque !== undefined) {
      this.unknown(opaque, via);
      // Whatever eval's own words say is checked too.
      if (first.text === "eval" && words.length > 1 && words.slice(1).every((w) => !w.dynamic)) {
        this.line(words.slice(1).map((w) => w.text).join(" "), [...via, "eval"], depth + 1);
      }
      return;
    }
    for (const deferred of deferredCode(words)) {
      if (deferred.kind === "unknown") this.unknown(deferred.reason, via);
      else if (deferred.alias !== undefined && !this.#commandNames.has(deferred.alias)) {
        // An alias used on later lines is checked there, with the shell's aliases.
        continue;
      } else this.#deferred(deferred.text, [...via, deferred.via], depth);
    }
    const name = program.names.find(isWrapper);
    if (name === undefined) {
      // `perf stat sh -c CMD`: a shell among the arguments of a program nobody listed.
      const at = isBuiltin(first.text, this.#shell) || onlyReads(program.names, words)
        ? -1
        : shellAmongArguments(words, this.context);
      if (at > 0) this.command(words.slice(at), [...via, first.text], open, stdin, depth + 1);
      return;
    }
    const inners = innerCommands(words, name);
    const reads = (stdin: boolean) => dialectOf(name, words, stdin);
    if (open && inners.length === 0) {
      // `echo touch m | xargs env`: the program env runs is read from the input.
      this.unknown(
        `${
          via.at(-1) ?? "xargs"
        } gives ${name} its program from its input, so what runs cannot be known`,
        via,
      );
    }
    for (const inner of inners) {
      if (inner.kind === "argv") {
        // What xargs appends reaches the program the wrapper runs.
        const innerOpen = (inner.open ?? false) || open;
        // A program (nice, env, sudo, xargs) or `exec` runs a file: no builtin of the shell's
        // (`nice cd m` runs a file named cd from PATH).
        const files = first.text === "exec" ||
          !(isBuiltin(first.text, this.#shell) || RUN_BUILTINS.has(first.text));
        this.#withPath(inner, true, () => {
          const shell = this.#shell;
          if (files) this.#shell = EXEC;
          this.command(inner.words, [...via, inner.via], innerOpen, undefined, depth + 1);
          this.#shell = shell;
          if (inner.argv0 !== undefined) {
            this.#calledAs(inner.argv0, inner.words, [...via, inner.via], innerOpen, depth + 1);
          }
        });
      } else if (inner.kind === "script") {
        if (inner.text.dynamic) {
          this.unknown(`the string given to ${inner.via} is only known when the line runs`, via);
        } else {
          this.#withPath(inner, false, () => {
            this.line(inner.text.text, [...via, inner.via], depth + 1, reads(false), name);
          });
        }
      } else if (inner.kind === "file") {
        const place = this.#changedDirectory && !inner.path.text.startsWith("/")
          ? "file" // Where a relative path leads is not known (#scriptFile says so).
          : scriptPlace(inner.path.text, this.context.cwd);
        if (place === "stdin") {
          this.#standardInput(inner.via, stdin, via, depth, reads(true), name);
        } else if (place === "file") this.#scriptFile(inner.path.text, inner.via, via);
        else {
          this.unknown(
            `${inner.via} runs "${inner.path.text}", a device or process file whose contents are not known`,
            via,
          );
        }
      } else if (inner.kind === "stdin") {
        this.#standardInput(inner.via, stdin, via, depth, reads(true), name);
      } else if (inner.kind === "chdir") {
        this.#changedDirectory = true;
      } else if (inner.kind === "startup") {
        if (this.#startupDirectory) {
          const why = this.#homeMoved
            ? this.context.shellState?.homeMovedBy ??
              "an earlier line set HOME to another directory"
            : `the line sets ${inner.variables.join(" or ")} or names a startup file`;
          this.unknown(
            `${why}, and ${inner.via} runs its startup files, which are not checked`,
            via,
          );
        }
      } else {
        this.unknown(inner.reason, via);
      }
    }
  }

  /** The PATH the commands found here run with (a wrapper may have set another than the line's). */
  #path: string;
  /** The PATH the next command's program is found in, when only its wrapper's search differs. */
  #lookup: string | undefined;

  /**
   * Runs `analyse` once for each PATH a wrapper may give what it runs
   * (`env -i`: none, so execvp searches the standard path and a shell sets
   * its own; `sudo`: the line's or secure_path). An alternative that finds
   * the same file as the first is skipped unless that file runs more code;
   * what an alternative finds again is not listed twice.
   */
  #withPath(
    inner: { path?: WrapperPath[]; lookup?: string; words?: Word[] },
    program: boolean,
    analyse: () => void,
  ): void {
    const saved = this.#path;
    const given = this.#given;
    const paths = inner.path === undefined ? [undefined] : [...new Set(inner.path)];
    const { commands, unknowns } = this.analysis;
    const start = { commands: commands.length, unknowns: unknowns.length };
    let first: string | null | undefined;
    for (const [i, path] of paths.entries()) {
      const lookup = inner.lookup ?? (program && path === null ? STANDARD_PATH : undefined);
      this.#path = path === undefined ? saved : path ?? SHELL_DEFAULT_PATH;
      const word = inner.words?.[0];
      if (word !== undefined && !word.dynamic) {
        const real = realFile(word.text, { cwd: this.context.cwd, path: lookup ?? this.#path });
        if (i === 0) first = real;
        else if (real === first && (real === null || !isWrapper(basename(real)))) continue;
      }
      if (typeof path === "string" && !isSystemPath(path)) {
        this.#given = true;
        this.#givenPaths.add(path);
      }
      const known = i === 0 ? null : {
        commands: new Set(commands.slice(start.commands).map(commandKey)),
        unknowns: new Set(unknowns.slice(start.unknowns).map(unknownKey)),
      };
      const end = { commands: commands.length, unknowns: unknowns.length };
      this.#lookup = program ? lookup : undefined;
      analyse();
      this.#given = given;
      if (known === null) continue;
      commands.push(
        ...commands.splice(end.commands).filter((c) => !known.commands.has(commandKey(c))),
      );
      unknowns.push(
        ...unknowns.splice(end.unknowns).filter((u) => !known.unknowns.has(unknownKey(u))),
      );
    }
    this.#lookup = undefined;
    this.#path = saved;
  }

  /** ARGV0's values are being judged as the names programs are called by. */
  #argv0 = false;

  /** The commands found here are looked up in a PATH the line gives (`env PATH=DIR`). */
  #given = false;
  /** The PATHs the line gives its wrappers' programs: files the line writes there count too. */
  readonly #givenPaths = new Set<string>();

  /**
   * A program called by another name (`exec -a NAME PROG ...`): a multi-call
   * program (git, busybox) does what NAME says, so `NAME ...` is judged too.
   */
  #calledAs(name: Word, words: Word[], via: string[], open: boolean, depth: number): void {
    const context = { cwd: this.context.cwd, path: this.#path };
    if (words[0].dynamic || !isMultiCall(programNames(words[0].text, context).names)) return;
    if (name.dynamic) {
      this.unknown(
        `${via.at(-1)} calls ${
          words[0].text
        } by a name known only when the line runs, which chooses what it does`,
        via,
      );
      return;
    }
    this.command(
      [name, ...words.slice(1)],
      [...via, `called ${name.text}`],
      open,
      undefined,
      depth,
    );
  }

  /** A shell reading its commands from standard input: a here-document's or here-string's literal text is checked. */
  #standardInput(
    shell: string,
    stdin: Word | undefined,
    via: string[],
    depth: number,
    dialect: Dialect,
    program: string,
  ): void {
    if (stdin !== undefined && !stdin.dynamic) {
      this.line(stdin.text, [...via, `${shell} <<`], depth + 1, dialect, program);
    } else {
      this.unknown(
        `${shell} reads the commands it runs from standard input, so they cannot be checked`,
        via,
      );
    }
  }

  /** The line sets HOME or ZDOTDIR or names a startup file somewhere (at any depth): a shell's startup files are not known. */
  #startupDirectory: boolean;
  /** The shell's HOME is not the session's (an earlier line set it). */
  readonly #homeMoved: boolean;

  /** Code kept for later (trap, PROMPT_COMMAND, alias, complete -C): checked as a line of its own. */
  #deferred(code: Word, via: string[], depth: number): void {
    if (code.dynamic) {
      this.unknown(`the code given to ${via.at(-1)} is only known when the line runs`, via);
    } else {
      this.line(code.text, via, depth + 1);
    }
  }

  /** A shell's script file: one the line may create first (it does not exist yet) is unknown. */
  #scriptFile(path: string, shell: string, via: string[]): void {
    if (this.#changedDirectory && !path.startsWith("/")) {
      this.unknown(
        `the line changes directory before ${shell} runs "${path}", a relative path`,
        via,
      );
    } else if (!existsSync(resolve(this.context.cwd, path))) {
      this.unknown(
        `${shell} runs the script "${path}", which does not exist yet, so what it runs cannot be known`,
        via,
      );
    }
  }

  /**
   * Directory changes seen so far in the line: `cd`, `pushd`, `popd`, `chdir`,
   * a directory named as a command (autocd).
   */
  #changedDirectory = false;
  /** How a command that is no `cd` changed it, for the reason ("" for cd and the like). */
  #changedBy = "";
  /** The shell the current text runs in (`zsh`; "": not known which; undefined: bash). */
  #shell: string | undefined;

  /**
   * What makes a program word's file unknowable before the line runs: a path
   * that does not exist yet (the line may create it, `ln -s /bin/rm x && ./x`),
   * a relative path or a name found through a relative PATH entry after the
   * line changed directory, a process's file (`/proc/self/exe`, `/dev/stdin`:
   * the shell's own, not known here), `hash -p` re-pointing a name.
   */
  #whereItRuns(
    word: string,
    real: string | null,
    words: Word[],
    via: string[],
    lookup: { cwd: string; path: string },
  ): void {
    const runsFile = !isBuiltin(word, this.#shell) && !this.analysis.functions.includes(word) &&
      this.context.aliases?.[word] === undefined &&
      this.context.env?.[`BASH_FUNC_${word}%%`] === undefined;
    const file = runsFile ? programFile(word, lookup) : NO_FILE;
    if (runsFile && file.process) {
      // `exec 3</usr/bin/touch; /proc/self/fd/3`: the file is whatever was opened.
      this.unknown(
        `the program "${word}" leads to a file of the process that runs it (an open descriptor, its executable or directory), known only when it runs`,
        via,
      );
    } else if (word.includes("/")) {
      if (this.#changedDirectory && !word.startsWith("/")) {
        this.unknown(
          `the line changes directory before it runs "${word}", a relative path${this.#changedBy}`,
          via,
        );
      } else if (real === null) {
        this.unknown(
          `the program "${word}" does not exist yet, so what it will be cannot be known`,
          via,
        );
      }
    } else if (runsFile && (this.context.env?.EXECIGNORE ?? "") !== "") {
      this.unknown(
        `EXECIGNORE is set, so bash skips the files on PATH it matches: which file "${word}" is cannot be known`,
        via,
      );
    } else if (this.#changedDirectory && runsFile) {
      const entry = relativeEntryBefore(word, lookup);
      if (entry !== null) {
        this.unknown(
          `the line changes directory before it looks up "${word}" in PATH, whose entry "${entry}" is relative${this.#changedBy}`,
          via,
        );
      }
    }
    if (word === "cd" || word === "pushd" || word === "popd" || word === "chdir") {
      this.#changedDirectory = true;
    } else if (runsFile && !this.#changedDirectory && this.#autocd(word, file)) {
      this.#changedDirectory = true;
      this.#changedBy = file.directory
        ? ` (autocd changes into "${word}", a directory)`
        : ` ("${word}" is no program: a shell function, or a directory under autocd, may change it)`;
    }
    if (word === "hash" && words.some((w) => /^-[a-z]*p/.test(w.text))) {
      this.unknown('"hash -p" changes which file a name runs', via);
    }
    if (word === "enable" && words.some((w) => /^-[a-z]*f/.test(w.text))) {
      this.unknown('"enable -f" loads a builtin from a file', via);
    }
    if (
      (word === "enable" && words.some((w) => w.dynamic || /^-[a-z]*n/.test(w.text))) ||
      (word === "disable" && words.length > 1)
    ) {
      // `enable -n cd; cd m` runs a file named cd from PATH (zsh: `disable cd`).
      this.unknown(`"${word}" turns shell builtins off, so their names may run files`, via);
    }
    const change = lookupChange(words);
    if (change !== null) this.unknown(change, via);
    if (this.context.shellState?.keyword && words.slice(1).some((w) => ASSIGNMENT.test(w.text))) {
      this.unknown(
        `the shell's keyword option is on (set -k), so "${
          words.slice(1).find((w) => ASSIGNMENT.test(w.text))?.text
        }" is an assignment that may change which file a name runs`,
        via,
      );
    }
  }

  /** The line redirects some input (`< FILE`, `exec 3< FILE`, a here-document): a descriptor may be a file. */
  #readsInput = false;

  /**
   * A program given a process's file among its arguments may run it
   * (`perf stat /dev/stdin m < /usr/bin/touch` runs touch): a descriptor
   * other than the standard streams, the process's executable, directory or
   * root, by any spelling or link, and its standard input when the line
   * redirects input, are unknown.
   */
  #openedArguments(words: Word[], via: string[], lookup: { cwd: string; path: string }): void {
    for (const word of words.slice(1)) {
      if (word.dynamic || !word.text.includes("/")) continue;
      const opens = programFile(word.text, lookup).opens;
      if (opens === "other" || (opens === "stdin" && this.#readsInput)) {
        this.unknown(
          `"${word.text}" among ${
            words[0].text
          }'s arguments is a file of the process that opens it (a descriptor, its executable or directory), which a program given it may run`,
          via,
        );
        return;
      }
    }
  }

  /**
   * Whether a command may change directory though it is no `cd`: a path
   * naming a directory (bash's autocd, zsh's auto_cd change into it), or a
   * name no program answers to: a directory found through CDPATH or a
   * cdable variable under autocd, or a function an earlier line or a
   * start-up file defined (`f() { cd "$1"; }`, then `f d; ./x`).
   */
  #autocd(word: string, file: ProgramFile): boolean {
    return word.includes("/") ? file.directory : file.real === null;
  }

  unknown(reason: string, via: string[]): void {
    this.analysis.unknowns.push({ reason, via });
  }
}
