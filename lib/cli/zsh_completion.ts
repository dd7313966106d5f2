/**
 * The zsh completion function (`#compdef termbridge`), generated from
 * termbridge's own help texts (see `docs.ts`): modes, options, and for the
 * commands whose usage names their arguments, each position: open session
 * names (asked of the running server, which is never started), key names,
 * `wait`'s kinds, files, programs; after `--`, a program and its arguments.
 * @module
 */

import type { ArgSpec, CliSpec, ModeSpec, ValueKind } from "./help_spec.ts";

/** Quotes `text` for a single-quoted zsh word. */
const zshQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Escapes what `_arguments` and `_describe` treat specially in descriptions. */
const zshDescription = (text: string) => text.replace(/([[\]:\\])/g, "\\$1");

const ZSH_ACTION: Record<ValueKind, string> = {
  none: "",
  directory: "_files -/",
  file: "_files",
  command: "_command_names -e",
  text: " ",
};

/** An `_arguments` spec's message and action for one argument. */
function argumentAction(arg: ArgSpec): string {
  switch (arg.kind) {
    case "session":
      return "session:_termbridge_sessions";
    case "key":
      return "key:_termbridge_keys";
    case "choice":
      return `${arg.choices.join(" or ")}:(${arg.choices.join(" ")})`;
    case "file":
      return arg.choices.length > 0
        ? `file:_termbridge_file_or ${arg.choices.join(" ")}`
        : "file:_files";
    case "command":
      return "command:_command_names -e";
    default:
      return "text: ";
  }
}

/** The `_arguments` specs of a mode's arguments, by position (`1:session:...`). */
function positionSpecs(mode: ModeSpec): string[] {
  return mode.args.map((arg, i) => {
    const last = i === mode.args.length - 1;
    // A program and its own arguments: zsh completes them as if typed alone.
    if (last && arg.repeats && arg.kind === "command") return "*:::command:_normal";
    return `${last && arg.repeats ? "*" : i + 1}:${argumentAction(arg)}`;
  });
}

/** What follows the options for a mode whose usage names no arguments. */
function restSpec(mode: ModeSpec): string[] {
  if (mode.subcommands.length > 0) {
    return [`1:command:(${mode.subcommands.join(" ")})`, "*:: :_files"];
  }
  if (mode.positional === "command") return ["*:: :_normal"];
  if (mode.positional === "directory") return ["*:directory:_files -/"];
  if (mode.positional === "file") return ["*:file:_files"];
  return [];
}

/** The `case` branch of one mode: `_arguments` with its options and arguments. */
function modeCase(mode: ModeSpec): string {
  const options = mode.options.flatMap((option) =>
    option.names.map((name) => {
      const action = option.kind === "none"
        ? ""
        : `:${option.value.toLowerCase()}:${ZSH_ACTION[option.kind]}`;
      const about = option.summary === "" ? "" : `[${zshDescription(option.summary)}]`;
      return `*${name}${about}${action}`;
    })
  );
  const specs = [...options, ...(mode.args.length > 0 ? positionSpecs(mode) : restSpec(mode))];
  return [
    `    ${mode.name})`,
    "      _arguments -s -S \\",
    ...specs.map((spec, i) => `        ${zshQuote(spec)}${i < specs.length - 1 ? " \\" : ""}`),
    "      ;;",
  ].join("\n");
}

/** A zsh completion function (`#compdef termbridge`), for a directory on `$fpath`. */
export function zshCompletion(spec: CliSpec): string {
  const describe = spec.modes.map((mode) =>
    `    ${zshQuote(`${mode.name}:${zshDescription(mode.summary)}`)}`
  );
  const keys = spec.keys.map(zshQuote).join(" ");
  return `#compdef termbridge
# zsh completion for termbridge ${spec.version}
# Generated from termbridge's help texts by tools/docs.ts: do not edit.

# The open sessions' names, from the running server (none is started; silent when none
# runs): -L and --socket as given on the command line.
(( $+functions[_termbridge_sessions] )) ||
_termbridge_sessions() {
  local -a server names
  local i
  for (( i = 1; i < CURRENT; i++ )); do
    case $words[i] in
      -L|--name|--socket) server+=($words[i] $words[i+1]) ;;
    esac
  done
  names=(\${(f)"$(_call_program sessions termbridge ls --names \${(q)server} 2>/dev/null)"})
  _wanted sessions expl 'open session' compadd -a names
}

# The key names "termbridge help keys" lists.
(( $+functions[_termbridge_keys] )) ||
_termbridge_keys() {
  local -a keys
  keys=(${keys})
  _wanted keys expl 'key' compadd -a keys
}

# Files, or one of the words given (record's "stop").
(( $+functions[_termbridge_file_or] )) ||
_termbridge_file_or() {
  _alternative "words:word:($*)" 'files:file:_files'
}

_termbridge() {
  local -a modes
  modes=(
${describe.join("\n")}
  )
  if (( CURRENT == 2 )); then
    _describe -t modes 'termbridge mode' modes
    compadd -- help --help --version
    return
  fi
  local mode=$words[2] i
  shift words
  (( CURRENT-- ))
  # After "--" comes a program and its own arguments (new's PROGRAM, acp's AGENT).
  for (( i = 2; i < CURRENT; i++ )); do
    if [[ $words[i] == -- ]]; then
      shift $i words
      (( CURRENT -= i ))
      _normal
      return
    fi
  done
  case $mode in
    help)
      _describe -t modes 'termbridge mode' modes
      ;;
${spec.modes.map(modeCase).join("\n")}
  esac
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _termbridge "$@"
else
  compdef _termbridge termbridge
fi
`;
}
