/**
 * Options that take the next word as their value, for the programs whose
 * rules name a subcommand after global options (`git -C DIR push`,
 * `kubectl -n prod delete`): the value is neither an operand nor options.
 * Each entry lists names that mean the same (`-n` and `--namespace`).
 * Other programs' option values stay operands of a rule (`curl -X POST`).
 * @module
 */

const VALUED: Record<string, string[][]> = {
  // git's own options, before the subcommand (git.c reads them by hand: no abbreviations).
  git: [
    ["C"],
    ["c"],
    ["git-dir"],
    ["work-tree"],
    ["namespace"],
    ["config-env"],
    ["super-prefix"],
    ["attr-source"],
  ],
  kubectl: [
    ["n", "namespace"],
    ["context"],
    ["cluster"],
    ["kubeconfig"],
    ["s", "server"],
    ["user"],
    ["token"],
    ["as"],
    ["as-group"],
    ["as-uid"],
    ["request-timeout"],
    ["l", "selector"],
    ["o", "output"],
    ["f", "filename"],
    ["c", "container"],
    ["field-selector"],
  ],
  helm: [["n", "namespace"], ["kube-context"], ["kubeconfig"], ["f", "values"], ["set"]],
  docker: [["H", "host"], ["context"], ["config"], ["l", "log-level"]],
  gh: [["R", "repo"]],
  systemctl: [["H", "host"], ["M", "machine"]],
};

/** The names of an option of `program` that takes a value, or undefined (`C` for git: `["C"]`). */
export function valuedOption(program: string, name: string): string[] | undefined {
  return VALUED[program]?.find((names) => names.includes(name));
}

/** One option word read with its value, when `program` reads it so. */
export interface ValuedWord {
  /** The option's names (its group in the table). */
  names: string[];
  /** Its value: attached (`-Cdir`, `--git-dir=x`), or undefined when it is the next word. */
  value: string | undefined;
  /** The option letters before it in a group (`-xC dir`: `x`). */
  letters: string;
}

/**
 * Reads an option word of `program` that takes a value: `--name=value`,
 * `--name` (value next), `-Xvalue`, `-X` or `-abX` (value next). Undefined
 * when the word holds no such option.
 */
export function readValued(program: string, text: string): ValuedWord | undefined {
  if (VALUED[program] === undefined) return undefined;
  if (text.startsWith("--")) {
    const eq = text.indexOf("=");
    const names = valuedOption(program, eq < 0 ? text.slice(2) : text.slice(2, eq));
    if (names === undefined) return undefined;
    return { names, value: eq < 0 ? undefined : text.slice(eq + 1), letters: "" };
  }
  for (let i = 1; i < text.length; i++) {
    const names = valuedOption(program, text[i]);
    if (names === undefined) continue;
    const rest = text.slice(i + 1);
    return { names, value: rest === "" ? undefined : rest, letters: text.slice(1, i) };
  }
  return undefined;
}
