/**
 * From a line (or an argv) to every program it would run: parses it, looks
 * through wrappers and shells, and collects what cannot be known. Pure
 * analysis: rules are applied by `engine.ts`.
 * @module
 */

import { deferredCode } from "./deferred.ts";
import { extractCommands } from "./extract.ts";
import type { ShellParser } from "./parser.ts";
import { lineValues } from "./line_values.ts";
import { arithmeticLookupChange } from "./lookup.ts";
import { redirectTargets, writeUnknowns } from "./path_writes.ts";
import { EXEC, isBuiltin, programNames } from "./resolve.ts";
import { calledAs, gitByName, isMultiCall } from "./called_as.ts";
import { onlyReads } from "./read_only.ts";
import { scriptReading } from "./script_files.ts";
import { shellAmongArguments } from "./shell_arguments.ts";
import { joinContinuations } from "./continuations.ts";
import type { Analysed, Analysis, AnalysisContext } from "./analysis_types.ts";
import type { Word } from "./words.ts";
import { innerCommands, isWrapper, runsBuiltins } from "./wrappers.ts";
import { ProgramSearch } from "./wrapper_paths.ts";
import { ProgramFiles } from "./program_files.ts";
import { StartupFiles } from "./shells.ts";
import { environmentCode } from "./wrapper_places.ts";
import { aliasesAnywhere, expandFollowingAliases, expandGlobalAliases } from "./aliases.ts";
import { type Dialect, dialectOf, dialectReading } from "./dialects.ts";
import { LineArithmetic } from "./arithmetic_names.ts";

/** Shells whose builtins are known (resolve.ts); another program's string may go to any shell. */
const BUILTIN_SHELLS = new Set(["bash", "rbash", "zsh", "sh", "dash"]);

/** Deeper nesting of `sh -c` strings than this is not followed (and so is unknown). */
const MAX_DEPTH = 12;

/** Programs that run code the parser cannot see. */
const OPAQUE: Record<string, string> = {
  eval: "eval runs a string put together when the line runs",
  source: "source runs a file whose contents are not checked",
  ".": ". runs a file whose contents are not checked",
};

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
    this.#search = new ProgramSearch({ ...context, found: analysis }, isWrapper);
    this.#files = new ProgramFiles(context, analysis);
    this.#startup = new StartupFiles(context.shellState);
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
    if (shell !== undefined) this.#shell = BUILTIN_SHELLS.has(shell) ? shell : "";
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
    this.#startup.see(text);
    if (!this.#files.readsInput && /<(?!\()/.test(text)) this.#files.readsInput = true;
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
        const joined = this.#arithmetic.read(root, via);
        if (joined !== null) this.unknown(joined, via);
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
      this.#arithmetic.evaluates = true;
      const change = arithmeticLookupChange(text);
      if (change !== null) this.unknown(change, via);
    }
    this.#arithmetic.quote(contents.quoted, depth);
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

  /** What the line's arithmetic may evaluate. */
  readonly #arithmetic = new LineArithmetic();

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
    const built = this.#arithmetic.builtValues(this.analysis);
    if (built !== null) this.analysis.unknowns.push(built);
    for (const { text, via, depth } of this.#arithmetic.takeQuoted()) {
      this.line(`: ${text}`, [...via, "arithmetic evaluation"], depth + 1);
    }
    // Text those checks turned up is checked too (the flag stays set).
    if (this.#arithmetic.pending) this.finish();
  }

  /** Files the line writes to by redirection. */
  readonly #redirected: Word[] = [];

  /**
   * After the whole line: a file it may put into a writable directory on PATH,
   * or a program it runs by path that it also names as a file, is unknown.
   */
  writes(): void {
    const line = {
      commands: this.analysis.commands,
      redirected: this.#redirected,
      givenPaths: this.#search.givenPaths,
    };
    this.analysis.unknowns.push(...writeUnknowns(line, this.context));
  }

  /**
   * After the line (before the environment's functions): a function it
   * defines in a line that changes directory may change it when a later line
   * calls it (`ls() { cd "$1"; }`, then `ls d; ./x`), unseen there.
   */
  definedFunctions(): void {
    if (this.#files.changedDirectory && this.analysis.functions.length > 0) {
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
    const path = this.#search.next();
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
    for (const word of words) this.#startup.see(word.text);
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
      this.#search.given && program.real === null && !first.text.includes("/") &&
      !isBuiltin(first.text, this.#shell)
    ) {
      // `env PATH=DIR ls`: the line may put ls into DIR first.
      this.unknown(
        `"${first.text}" is not found in the PATH a wrapper gives it, so what it will be cannot be known`,
        via,
      );
    }
    this.#files.whereItRuns({ word: first.text, real: program.real, words, via }, lookup);
    if (
      !isBuiltin(first.text, this.#shell) && !onlyReads(program.names, words) &&
      !program.names.some(isWrapper) // A wrapper's program is checked as a command of its own.
    ) {
      this.#files.openedArguments(words, via, lookup);
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
          !(isBuiltin(first.text, this.#shell) || runsBuiltins(first.text));
        this.#search.eachPath(inner, {
          program: true,
          analyse: () => {
            const shell = this.#shell;
            if (files) this.#shell = EXEC;
            this.command(inner.words, [...via, inner.via], innerOpen, undefined, depth + 1);
            this.#shell = shell;
            if (inner.argv0 !== undefined) {
              this.#calledAs(inner.argv0, inner.words, [...via, inner.via], innerOpen, depth + 1);
            }
          },
        });
      } else if (inner.kind === "script") {
        if (inner.text.dynamic) {
          this.unknown(`the string given to ${inner.via} is only known when the line runs`, via);
        } else {
          this.#search.eachPath(inner, {
            program: false,
            analyse: () => {
              this.line(inner.text.text, [...via, inner.via], depth + 1, reads(false), name);
            },
          });
        }
      } else if (inner.kind === "file") {
        const reading = scriptReading(inner.path.text, inner.via, {
          cwd: this.context.cwd,
          changedDirectory: this.#files.changedDirectory,
        });
        if (reading === "stdin") {
          this.#standardInput(inner.via, stdin, via, depth, reads(true), name);
        } else if (reading !== null) this.unknown(reading.unknown, via);
      } else if (inner.kind === "stdin") {
        this.#standardInput(inner.via, stdin, via, depth, reads(true), name);
      } else if (inner.kind === "chdir") {
        this.#files.changedDirectory = true;
      } else if (inner.kind === "startup") {
        const startup = this.#startup.unknown(inner);
        if (startup !== null) this.unknown(startup, via);
      } else {
        this.unknown(inner.reason, via);
      }
    }
  }

  /** The PATH each command is found in, as wrappers change it. */
  readonly #search: ProgramSearch;
  /** What makes the files the line's programs run unknowable. */
  readonly #files: ProgramFiles;

  /** ARGV0's values are being judged as the names programs are called by. */
  #argv0 = false;

  /**
   * A program called by another name (`exec -a NAME PROG ...`): a multi-call
   * program (git, busybox) does what NAME says, so `NAME ...` is judged too.
   */
  #calledAs(name: Word, words: Word[], via: string[], open: boolean, depth: number): void {
    const lookup = { cwd: this.context.cwd, path: this.#search.path };
    const made = calledAs({ name, words, via }, lookup);
    if (made === null) return;
    if ("unknown" in made) this.unknown(made.unknown, via);
    else this.command(made.words, made.via, open, undefined, depth);
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

  /** Whether the startup files of the shells the line starts are the user's. */
  readonly #startup: StartupFiles;

  /** Code kept for later (trap, PROMPT_COMMAND, alias, complete -C): checked as a line of its own. */
  #deferred(code: Word, via: string[], depth: number): void {
    if (code.dynamic) {
      this.unknown(`the code given to ${via.at(-1)} is only known when the line runs`, via);
    } else {
      this.line(code.text, via, depth + 1);
    }
  }

  /** The shell the current text runs in (`zsh`; "": not known which; undefined: bash). */
  #shell: string | undefined;

  unknown(reason: string, via: string[]): void {
    this.analysis.unknowns.push({ reason, via });
  }
}
