/**
 * Code a line leaves for the shell to run later, or hands to a builtin that
 * runs it, in the spellings the third abuse run found: zsh's builtins that
 * run strings (`emulate -c`, `sched`, `zpty`, `zstyle -e`), zsh/files'
 * `zf_rm`, the mail message (MAILPATH) and zsh's names for the prompts,
 * completion word lists (`complete -W`, `compctl -s`), history re-run by
 * zsh's `r`, and function code loaded from files (`autoload`). Each must be
 * checked as run or asked about; honest lines stay allowed.
 * @module
 */

import { createPolicy } from "../../lib/policy/mod.ts";
import { describeAllowed, describeAsked, describeDenied } from "./_verdicts.ts";

const CONTEXT = { cwd: "/", env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch", "rm"] });

/** Lines that run a denied program, through code the shell runs: [name, line, rule]. */
const DENIED: [string, string, string][] = [
  ["emulate -c", "emulate sh -c 'touch m'", "touch"],
  ["emulate -c behind builtin", "builtin emulate -R zsh -c 'touch m'", "touch"],
  ["emulate -c after -o", "emulate zsh -o ksh_arrays -c 'touch m'", "touch"],
  ["sched", "zmodload zsh/sched; sched +0 'to''uch m'", "touch"],
  ["sched -o with a clock time", "sched -o 12:00 touch m", "touch"],
  ["zpty", "zmodload zsh/zpty; zpty z 'touch m'; zpty -d z", "touch"],
  ["zpty -b", "zpty -b z touch m", "touch"],
  ["zstyle -e", "zstyle -e ':rt' k 'reply=($(touch m))'; zstyle -s ':rt' k v", "touch"],
  ["zstyle's command style", "zstyle ':completion:*:processes' command 'touch m'", "touch"],
  ["zf_rm", "zmodload zsh/files; zf_rm victim", "rm"],
  ["zf_rm with options", "zf_rm -rf victim", "rm"],
  ["the precommand modifier -", "- touch m", "touch"],
  ["noglob", "noglob touch m", "touch"],
  ["compgen -W", "compgen -W '$(touch m)' x", "touch"],
  ["complete -W", "complete -W '$(touch m)' xy", "touch"],
  ["complete -W with backquotes", "complete -o default -W '`touch m`' xy", "touch"],
  ["complete -W with a process substitution", "complete -W '<(touch m)' xy", "touch"],
  ["complete -C attached", "complete -C'touch m' xy", "touch"],
  ["compgen -F (zsh's bashcompinit runs it)", "compgen -F 'touch m' x", "touch"],
  ["complete -F naming a program", "complete -F touch xy", "touch"],
  ["zsh's repeat", "repeat 2 touch m", "touch"],
  ["zsh's functions array", "functions[ls]='touch m'", "touch"],
  ["zsh's NULLCMD", "NULLCMD=touch; > m", "touch"],
  ["zstyle's pager style", "zstyle ':x' pager touch", "touch"],
  ["a mime handler style", "zstyle ':mime:.txt:' handler 'touch %s'", "touch"],
  ["compdef with code", "compdef 'touch m' foo", "touch"],
  ["zsh's aliases array", "aliases[ls]='touch m'", "touch"],
  ["bash's BASH_ALIASES", "BASH_ALIASES[ls]='touch m'", "touch"],
];

describeDenied(
  "policy: code a builtin runs or keeps for later is checked as run",
  policy,
  CONTEXT,
  DENIED,
);

/** Lines that leave code the shell runs unchecked: asked about. */
const ASKED: [string, string, RegExp][] = [
  ["MAILPATH's message", "MAILCHECK=0; MAILPATH='/tmp/mbox?$(touch m)'", /MAILPATH/],
  ["MAIL", "MAIL='/tmp/mbox?`touch m`'", /MAIL/],
  ["zsh's mailpath array", "mailpath=('/tmp/mbox?$(touch m)')", /mailpath/],
  ["MAILPATH set by read", "read MAILPATH", /"read"/],
  ["MAILPATH set by printf -v", "printf -v MAILPATH %s x", /"printf"/],
  ["MAILPATH set by export", "export MAILPATH='/tmp/mbox?$(touch m)'", /MAILPATH/],
  ["RPROMPT", "setopt prompt_subst; RPROMPT='$(touch m)'", /RPROMPT/],
  ["PROMPT", "PROMPT='$(touch m)%# '", /PROMPT/],
  ["RPS1", "RPS1='$(touch m)'", /RPS1/],
  ["zsh's lowercase prompt", "prompt='$(touch m)'", /prompt/],
  ["SPROMPT", "SPROMPT='`touch m`'", /SPROMPT/],
  ["a prompt with a zsh subscript", "PROMPT='$a[x] %# '", /PROMPT/],
  ["PROMPT_EOL_MARK", "PROMPT_EOL_MARK='$(touch m)'", /PROMPT_EOL_MARK/],
  ["printf -v attached", "printf -vPS1 %s '$(touch m)'", /"printf"/],
  ["print -v attached", "print -vPROMPT '$(touch m)'", /"print"/],
  ["read -a attached", "read -aPS1 <<< '$(touch m)'", /"read"/],
  ["print -v into a prompt", "print -v RPROMPT '$(touch m)'", /"print"/],
  ["vared of a prompt", "vared PROMPT", /"vared"/],
  ["a prompt tied to an array", "typeset -T PROMPT parts; parts=('$(touch m)')", /"typeset"/],
  ["zstyle -s into a prompt", "zstyle -s ':x' y PROMPT", /"zstyle"/],
  ["set -A of a prompt", "set -A PROMPT '$(touch m)'", /"set"/],
  ["zsh/stat's stat -A into a prompt", "zmodload zsh/stat; stat -A PROMPT +mode /tmp", /"stat"/],
  ["ztie of a prompt", "ztie -d db/gdbm -f /tmp/db PROMPT", /"ztie"/],
  ["${NAME:=} of PROMPT_COMMAND", ": ${PROMPT_COMMAND:=touch m}", /assigns PROMPT_COMMAND/],
  ["${NAME=} of an element", ": ${PROMPT_COMMAND[1]=touch m}", /assigns PROMPT_COMMAND/],
  ["${!REF:=}", ": ${!ref:=v}", /named at run time/],
  ["compgen -G with a glob qualifier", "compgen -G '*(e:touch m:)' x", /pattern that may run code/],
  ["compctl -s", "compctl -s '$(touch m)' xy", /compctl/],
  ["compctl -g with a qualifier", "compctl -g '*(e:touch m:)' xy", /compctl/],
  ["zsh's r", "r", /history/],
  ["r with a history number", "r -2", /history/],
  ["autoload by path", "autoload -Uz /tmp/f", /autoload loads function code/],
  ["autoload of a stock function", "autoload -Uz tcp_talk", /autoload loads function code/],
  ["autoload then compinit", "autoload -Uz compinit && compinit -u", /autoload/],
  ["functions -u", "functions -u f", /loads function code/],
  ["FPATH", "fpath=(/tmp/fns $fpath)", /fpath/],
  ["zmodload from a file", "zmodload ./evil", /zmodload/],
  ["emulate with flags built at run time", "emulate sh $F 'touch m'", /run time/],
  ["complete -W with a list built at run time", 'complete -W "$WORDS" xy', /when the line runs/],
  ["complete with options built at run time", "complete $OPT 'touch m' xy", /run time/],
  // readline's key bindings: a key the file binds to accept-line ran a line unchecked.
  ["INPUTRC for a shell", "INPUTRC=./keys bash -c ls", /INPUTRC/],
  ["INPUTRC exported", "export INPUTRC=./keys", /INPUTRC/],
];

describeAsked(
  "policy: code left for later that cannot be checked is asked about",
  policy,
  CONTEXT,
  ASKED,
);

/** Honest lines: none of the checks above may catch them. */
const ALLOWED = [
  "emulate -L zsh",
  "emulate sh",
  "zstyle ':completion:*' menu select",
  "zstyle -s ':completion:*' format fmt",
  "complete -W 'start stop status' svc",
  "complete -o default -F _svc svc",
  "compgen -W 'alpha beta' al",
  "compgen -G '*.txt' x",
  "complete -W 'a b' -F _f x",
  "compgen -P '$(not run)' -W a",
  "sched",
  "sched -1",
  "zpty -L",
  "MAIL=/var/mail/someone",
  "MAILPATH='/var/mail/someone?You have mail'",
  "PROMPT='%n@%m %# '",
  "RPROMPT='%~'",
  "print -v greeting hello",
  "printf -vline %s x",
  "read -r -a words <<< 'a b'",
  "print -P '%n'",
  "compctl -k hosts ssh",
  "fc -l",
  "zmodload zsh/datetime",
  "zf_mkdir build",
  "stat -c %s notes.txt",
  "mapfile -t lines < notes.txt",
  "autoload",
  "export PS1",
  "compdef _git git",
  "zstyle -s ':x' y v",
  "aliases[ll]='ls -l'",
  "echo ${HOME:=/tmp} ${x:-$HOME}",
  "set -A arr a b",
  // zsh's lower-case names are no nameref's target: a value naming one is only text.
  "kind=functions; echo $kind",
  "mode=prompt",
  "echo $INPUTRC",
  "cat ~/.inputrc",
];

describeAllowed(
  "policy: honest completion, prompt and zsh lines stay allowed",
  policy,
  CONTEXT,
  ALLOWED,
);
