/**
 * What analysing a line finds (`analyse.ts`), and where the line runs: the
 * shapes the analysis's parts and the rules engine share.
 * @module
 */

import type { LineContents } from "./extract.ts";
import type { ProgramNames } from "./rules.ts";
import type { ShellState } from "./types.ts";
import type { Word } from "./words.ts";

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
