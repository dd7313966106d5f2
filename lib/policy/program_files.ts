/**
 * What makes the file a program word runs unknowable before the line runs,
 * met command by command in the order the line runs them: a path that does
 * not exist yet, a relative path or a relative PATH entry after the line
 * changed directory (by `cd`, zsh's `chdir`, or a name autocd or a function
 * may change it by), a process's own file (`/proc/self/exe`, `/dev/stdin`),
 * a lookup the line changes (`hash -p`, `enable -n`, EXECIGNORE, `set -k`),
 * and a process's file given to a program among its arguments.
 * @module
 */

import type { Analysis, AnalysisContext } from "./analysis_types.ts";
import { lookupChange } from "./lookup.ts";
import {
  isBuiltin,
  type LookupContext,
  type ProgramFile,
  programFile,
  relativeEntryBefore,
} from "./resolve.ts";
import type { Word } from "./words.ts";

/** What a name the shell runs itself leads to: no file. */
const NO_FILE: ProgramFile = { real: null, process: false, directory: false };

/** A word bash reads as an assignment when its keyword option is on. */
const ASSIGNMENT = /^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/;

/** A command as met in the line: its program word, the file that was found for it, its words. */
export interface ProgramCommand {
  word: string;
  /** The real file the word was found to run, or null. */
  real: string | null;
  words: Word[];
  via: string[];
}

/**
 * The program files of one line's commands: each command is told here as it
 * is met, and what makes its file unknowable goes to the analysis's unknowns.
 */
export class ProgramFiles {
  /**
   * Directory changes seen so far in the line: `cd`, `pushd`, `popd`, `chdir`,
   * a directory named as a command (autocd), a wrapper that changes it.
   */
  changedDirectory = false;
  /** The line redirects some input (`< FILE`, `exec 3< FILE`, a here-document): a descriptor may be a file. */
  readsInput = false;
  /** How a command that is no `cd` changed it, for the reason ("" for cd and the like). */
  #changedBy = "";

  /** @param analysis where unknowns go; its functions are the line's (they run no file) */
  constructor(readonly context: AnalysisContext, readonly analysis: Analysis) {}

  /**
   * What makes a program word's file unknowable before the line runs: a path
   * that does not exist yet (the line may create it, `ln -s /bin/rm x && ./x`),
   * a relative path or a name found through a relative PATH entry after the
   * line changed directory, a process's file (`/proc/self/exe`, `/dev/stdin`:
   * the shell's own, not known here), `hash -p` re-pointing a name.
   * @param lookup where the word is looked up, by which shell
   */
  whereItRuns(command: ProgramCommand, lookup: LookupContext): void {
    const { word, real, words, via } = command;
    const runsFile = !isBuiltin(word, lookup.shell) && !this.analysis.functions.includes(word) &&
      this.context.aliases?.[word] === undefined &&
      this.context.env?.[`BASH_FUNC_${word}%%`] === undefined;
    const file = runsFile ? programFile(word, lookup) : NO_FILE;
    if (runsFile && file.process) {
      // `exec 3</usr/bin/touch; /proc/self/fd/3`: the file is whatever was opened.
      this.#unknown(
        `the program "${word}" leads to a file of the process that runs it (an open descriptor, its executable or directory), known only when it runs`,
        via,
      );
    } else if (word.includes("/")) {
      if (this.changedDirectory && !word.startsWith("/")) {
        this.#unknown(
          `the line changes directory before it runs "${word}", a relative path${this.#changedBy}`,
          via,
        );
      } else if (real === null) {
        this.#unknown(
          `the program "${word}" does not exist yet, so what it will be cannot be known`,
          via,
        );
      }
    } else if (runsFile && (this.context.env?.EXECIGNORE ?? "") !== "") {
      this.#unknown(
        `EXECIGNORE is set, so bash skips the files on PATH it matches: which file "${word}" is cannot be known`,
        via,
      );
    } else if (this.changedDirectory && runsFile) {
      const entry = relativeEntryBefore(word, lookup);
      if (entry !== null) {
        this.#unknown(
          `the line changes directory before it looks up "${word}" in PATH, whose entry "${entry}" is relative${this.#changedBy}`,
          via,
        );
      }
    }
    if (word === "cd" || word === "pushd" || word === "popd" || word === "chdir") {
      this.changedDirectory = true;
    } else if (runsFile && !this.changedDirectory && autocd(word, file)) {
      this.changedDirectory = true;
      this.#changedBy = file.directory
        ? ` (autocd changes into "${word}", a directory)`
        : ` ("${word}" is no program: a shell function, or a directory under autocd, may change it)`;
    }
    this.#lookupChanges(word, words, via);
  }

  /** Builtins and options that change which file a name runs (`hash -p`, `enable -n`, `set -k`). */
  #lookupChanges(word: string, words: Word[], via: string[]): void {
    if (word === "hash" && words.some((w) => /^-[a-z]*p/.test(w.text))) {
      this.#unknown('"hash -p" changes which file a name runs', via);
    }
    if (word === "enable" && words.some((w) => /^-[a-z]*f/.test(w.text))) {
      this.#unknown('"enable -f" loads a builtin from a file', via);
    }
    if (
      (word === "enable" && words.some((w) => w.dynamic || /^-[a-z]*n/.test(w.text))) ||
      (word === "disable" && words.length > 1)
    ) {
      // `enable -n cd; cd m` runs a file named cd from PATH (zsh: `disable cd`).
      this.#unknown(`"${word}" turns shell builtins off, so their names may run files`, via);
    }
    const change = lookupChange(words);
    if (change !== null) this.#unknown(change, via);
    if (this.context.shellState?.keyword && words.slice(1).some((w) => ASSIGNMENT.test(w.text))) {
      this.#unknown(
        `the shell's keyword option is on (set -k), so "${
          words.slice(1).find((w) => ASSIGNMENT.test(w.text))?.text
        }" is an assignment that may change which file a name runs`,
        via,
      );
    }
  }

  /**
   * A program given a process's file among its arguments may run it
   * (`perf stat /dev/stdin m < /usr/bin/touch` runs touch): a descriptor
   * other than the standard streams, the process's executable, directory or
   * root, by any spelling or link, and its standard input when the line
   * redirects input, are unknown.
   */
  openedArguments(words: Word[], via: string[], lookup: LookupContext): void {
    for (const word of words.slice(1)) {
      if (word.dynamic || !word.text.includes("/")) continue;
      const opens = programFile(word.text, lookup).opens;
      if (opens === "other" || (opens === "stdin" && this.readsInput)) {
        this.#unknown(
          `"${word.text}" among ${
            words[0].text
          }'s arguments is a file of the process that opens it (a descriptor, its executable or directory), which a program given it may run`,
          via,
        );
        return;
      }
    }
  }

  #unknown(reason: string, via: string[]): void {
    this.analysis.unknowns.push({ reason, via });
  }
}

/**
 * Whether a command may change directory though it is no `cd`: a path
 * naming a directory (bash's autocd, zsh's auto_cd change into it), or a
 * name no program answers to: a directory found through CDPATH or a
 * cdable variable under autocd, or a function an earlier line or a
 * start-up file defined (`f() { cd "$1"; }`, then `f d; ./x`).
 */
function autocd(word: string, file: ProgramFile): boolean {
  return word.includes("/") ? file.directory : file.real === null;
}
