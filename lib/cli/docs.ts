/**
 * Shell completions (bash, zsh, fish) and a man page, generated from
 * termbridge's own help texts: whatever `termbridge --help` lists as a mode
 * or command, and whatever `termbridge MODE --help` lists as an option, is
 * completed and documented, so a new mode or option needs no edit here.
 * @module
 */

import type { ArgSpec, CliSpec, ModeSpec, ValueKind } from "./help_spec.ts";

// ---------------------------------------------------------------------------
// bash

const shellWords = (words: string[]) => words.join(" ");

/** The options of `mode` that take a value (the word after them is not an argument). */
const valuedOptions = (mode: ModeSpec) =>
  mode.options.filter((option) => option.kind !== "none").flatMap((option) => option.names);

/** What bash offers for an argument of kind `arg` (its first word, or a repeated one). */
function bashArgument(arg: ArgSpec, keys: string[], again: boolean): string {
  const words = (list: string[]) => `COMPREPLY=($(compgen -W "${shellWords(list)}" -- "$cur"))`;
  switch (arg.kind) {
    case "session":
      return "_termbridge_sessions";
    case "key":
      return words(keys);
    case "choice":
      return words(arg.choices);
    case "file":
      return `COMPREPLY=($(compgen -W "${
        shellWords(arg.choices)
      }" -- "$cur") $(compgen -f -- "$cur"))`;
    case "command":
      return again ? 'COMPREPLY=($(compgen -f -- "$cur"))' : 'COMPREPLY=($(compgen -c -- "$cur"))';
    default:
      return "COMPREPLY=()";
  }
}

/** A bash `case` on the argument's position ($n) for a mode whose usage names its arguments. */
function bashPositions(mode: ModeSpec, keys: string[]): string {
  const last = mode.args.length - 1;
  const branches = mode.args.map((arg, i) =>
    `          ${i}) ${bashArgument(arg, keys, false)} ;;`
  );
  const after = mode.args[last].repeats
    ? bashArgument(mode.args[last], keys, mode.args[last].kind === "command")
    : "COMPREPLY=()";
  return [
    `_termbridge_position "${shellWords(valuedOptions(mode))}"`,
    '        case "$n" in',
    ...branches,
    `          *) ${after} ;;`,
    "        esac",
  ].join("\n");
}

/** A bash completion script (`complete -F _termbridge termbridge`). */
export function bashCompletion(spec: CliSpec): string {
  const modeNames = spec.modes.map((mode) => mode.name);
  const cases = spec.modes.map((mode) => {
    const valued = (kind: ValueKind) =>
      mode.options.filter((o) => o.kind === kind).flatMap((o) => o.names);
    const branches = [
      [valued("directory"), 'COMPREPLY=($(compgen -d -- "$cur"))'],
      [valued("file"), 'COMPREPLY=($(compgen -f -- "$cur"))'],
      [valued("command"), 'COMPREPLY=($(compgen -c -- "$cur"))'],
      [valued("text"), "COMPREPLY=()"],
    ].filter(([names]) => names.length > 0)
      .map(([names, action]) => `        ${(names as string[]).join("|")}) ${action}; return ;;`);
    const positional = mode.args.length > 0
      ? bashPositions(mode, spec.keys)
      : mode.subcommands.length > 0
      ? `COMPREPLY=($(compgen -W "${shellWords(mode.subcommands)}" -- "$cur"))`
      : mode.positional === "command"
      ? 'COMPREPLY=($(compgen -c -- "$cur"))'
      : mode.positional === "directory"
      ? 'COMPREPLY=($(compgen -d -- "$cur"))'
      : mode.positional === "file"
      ? 'COMPREPLY=($(compgen -f -- "$cur"))'
      : "COMPREPLY=()";
    const allOptions = shellWords(mode.options.flatMap((o) => o.names));
    return [
      `    ${mode.name})`,
      ...(branches.length > 0 ? ['      case "$prev" in', ...branches, "      esac"] : []),
      '      if [[ "$cur" == -* ]]; then',
      `        COMPREPLY=($(compgen -W "${allOptions}" -- "$cur"))`,
      "      else",
      `        ${positional}`,
      "      fi",
      "      ;;",
    ].join("\n");
  });
  return `# bash completion for termbridge ${spec.version}
# Generated from termbridge's help texts by tools/docs.ts: do not edit.

# The open sessions' names, from the running server (none is started): -L and --socket as given.
_termbridge_sessions() {
  local i server=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      -L | --socket) server+=("\${COMP_WORDS[i]}" "\${COMP_WORDS[i + 1]}") ;;
    esac
  done
  local IFS=$'\n'
  COMPREPLY=($(compgen -W "$(termbridge ls --names "\${server[@]}" 2>/dev/null)" -- "$cur"))
}

# Sets n to the position of the word being completed among the command's arguments
# (options and the values of the options named in $1 left out).
_termbridge_position() {
  local valued=" $1 -L --socket " i word
  n=0
  for ((i = 2; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    if [[ $word == -* ]]; then
      [[ $valued == *" $word "* ]] && i=$((i + 1))
    else
      n=$((n + 1))
    fi
  done
}

_termbridge() {
  local cur prev mode i n
  cur=\${COMP_WORDS[COMP_CWORD]}
  prev=\${COMP_WORDS[COMP_CWORD-1]}
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${shellWords(modeNames)} help --help --version" -- "$cur"))
    return
  fi
  mode=\${COMP_WORDS[1]}
  # After "--" comes a program and its own arguments (acp's AGENT).
  for ((i = 2; i < COMP_CWORD; i++)); do
    if [[ \${COMP_WORDS[i]} == -- ]]; then
      COMPREPLY=($(compgen -c -- "$cur"))
      return
    fi
  done
  case "$mode" in
    help)
      [[ $COMP_CWORD -eq 2 ]] && COMPREPLY=($(compgen -W "${shellWords(modeNames)}" -- "$cur"))
      ;;
${cases.join("\n")}
  esac
}
complete -F _termbridge termbridge
`;
}

// zsh: in zsh_completion.ts.
export { zshCompletion } from "./zsh_completion.ts";

// ---------------------------------------------------------------------------
// fish

const fishQuote = (text: string) => `'${text.replace(/(['\\])/g, "\\$1")}'`;

const FISH_ARGUMENTS: Record<ValueKind, string> = {
  none: "",
  directory: " -r -f -a '(__fish_complete_directories)'",
  file: " -r -F",
  command: " -r -f -a '(__fish_complete_command)'",
  text: " -r -f",
};

/** Fish functions: the mode being completed, and the position of the argument in it. */
const FISH_FUNCTIONS = [
  "function __termbridge_mode -d 'is the first word after termbridge \\$argv[1]'",
  "    set -l words (commandline -opc)",
  '    test (count $words) -ge 2; and test "$words[2]" = "$argv[1]"',
  "end",
  "function __termbridge_arg -d 'the position of the word being completed among the arguments, or -1 after --'",
  "    set -l words (commandline -opc)",
  "    set -l n 0",
  "    set -l skip 0",
  "    for word in $words[3..-1]",
  "        if test $skip = 1",
  "            set skip 0",
  '        else if test "$word" = --',
  "            echo -1",
  "            return",
  "        else if string match -q -- '-*' $word",
  "            contains -- $word $argv -L --socket; and set skip 1",
  "        else",
  "            set n (math $n + 1)",
  "        end",
  "    end",
  "    echo $n",
  "end",
  "function __termbridge_sessions -d 'the open sessions (none is started)'",
  "    set -l words (commandline -opc)",
  "    set -l server",
  "    for i in (seq (count $words))",
  "        contains -- $words[$i] -L --socket; and set -a server $words[$i] $words[(math $i + 1)]",
  "    end",
  "    termbridge ls --names $server 2>/dev/null",
  "end",
];

/** Fish lines completing the arguments of a mode whose usage names them, by position. */
function fishPositions(mode: ModeSpec, keys: string[]): string[] {
  const valued = valuedOptions(mode).join(" ");
  const at = (test: string) =>
    `complete -c termbridge -n '__termbridge_mode ${mode.name}; and test (__termbridge_arg ${valued}) ${test}'`;
  const offer = (arg: ArgSpec): string => {
    switch (arg.kind) {
      case "session":
        return " -a '(__termbridge_sessions)'";
      case "key":
        return ` -a ${fishQuote(keys.join(" "))}`;
      case "choice":
        return ` -a ${fishQuote(arg.choices.join(" "))}`;
      case "file":
        return ` -F${arg.choices.length > 0 ? ` -a ${fishQuote(arg.choices.join(" "))}` : ""}`;
      case "command":
        return " -a '(__fish_complete_command)'";
      default:
        return "";
    }
  };
  const lines = mode.args.flatMap((arg, i) => {
    const more = offer(arg);
    return more === "" ? [] : [`${at(`= ${i}`)}${more}`];
  });
  const last = mode.args.at(-1)!;
  if (last.repeats && offer(last) !== "") {
    lines.push(`${at(`-ge ${mode.args.length}`)}${last.kind === "command" ? " -F" : offer(last)}`);
  }
  if (mode.positional === "command") lines.push(`${at("= -1")} -a '(__fish_complete_command)'`);
  return lines;
}

/** A fish completion script, for `vendor_completions.d`. */
export function fishCompletion(spec: CliSpec): string {
  const lines = [
    `# fish completion for termbridge ${spec.version}`,
    "# Generated from termbridge's help texts by tools/docs.ts: do not edit.",
    ...FISH_FUNCTIONS,
    "complete -c termbridge -f",
    "complete -c termbridge -n __fish_use_subcommand -l help -d 'show the help'",
    "complete -c termbridge -n __fish_use_subcommand -l version -d 'show the version'",
    "complete -c termbridge -n __fish_use_subcommand -a help -d 'show the help of a mode'",
    `complete -c termbridge -n '__fish_seen_subcommand_from help' -a ${
      fishQuote(spec.modes.map((mode) => mode.name).join(" "))
    }`,
  ];
  for (const mode of spec.modes) {
    const when = `-n '__fish_seen_subcommand_from ${mode.name}'`;
    lines.push(
      `complete -c termbridge -n __fish_use_subcommand -a ${mode.name} -d ${
        fishQuote(mode.summary)
      }`,
    );
    for (const option of mode.options) {
      const names = option.names.map((name) =>
        name.startsWith("--") ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`
      ).join(" ");
      lines.push(
        `complete -c termbridge ${when} ${names}${FISH_ARGUMENTS[option.kind]} -d ${
          fishQuote(option.summary)
        }`,
      );
    }
    if (mode.args.length > 0) {
      lines.push(...fishPositions(mode, spec.keys));
    } else if (mode.subcommands.length > 0) {
      lines.push(`complete -c termbridge ${when} -a ${fishQuote(mode.subcommands.join(" "))}`);
    } else if (mode.positional === "file") {
      lines.push(`complete -c termbridge ${when} -F`);
    } else if (mode.positional === "command") {
      lines.push(`complete -c termbridge ${when} -a '(__fish_complete_command)'`);
    }
  }
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------
// man page

/** Escapes text for a roff text line: backslashes, and a leading dot or quote. */
export function roffText(line: string): string {
  const escaped = line.replaceAll("\\", "\\e").replaceAll("-", "\\-");
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}

/** The help text as a roff block kept as printed (`.nf`), indented as the help is. */
function preformatted(text: string): string[] {
  return [".nf", ...text.replace(/\n+$/, "").split("\n").map(roffText), ".fi"];
}

/** A man page, termbridge(1), made of the top-level help and every mode's help. */
export function manPage(spec: CliSpec): string {
  const [, ...body] = spec.help.replace(/\n+$/, "").split("\n");
  const lines = [
    `.\\" termbridge(1), generated from termbridge's help texts by tools/docs.ts: do not edit.`,
    `.TH TERMBRIDGE 1 "" "termbridge ${spec.version}" "User Commands"`,
    ".SH NAME",
    `termbridge \\- ${roffText(spec.tagline)}`,
    ".SH SYNOPSIS",
    ...preformatted(body.join("\n").replace(/^\n+/, "")),
    ".SH MODES",
  ];
  for (const mode of spec.modes) {
    lines.push(`.SS "termbridge ${mode.name}"`, roffText(mode.summary), ".PP");
    lines.push(...preformatted(mode.help));
  }
  lines.push(
    ".SH FILES",
    ".TP",
    ".I ./termbridge.jsonc, $XDG_CONFIG_HOME/termbridge/termbridge.jsonc",
    "The configuration (JSON with comments); command\\-line options win.",
    ".SH SEE ALSO",
    "The README of the termbridge repository.",
  );
  return `${lines.join("\n")}\n`;
}
