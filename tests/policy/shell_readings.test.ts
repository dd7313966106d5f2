/**
 * Shells that read a string otherwise than bash's grammar, which the parser
 * knows: dash (`sh` here) has no `$'...'` nor `&>` (`sh -c 'command -v
 * &>/dev/null touch m'` ran touch in dash, reproduced through the binary); an
 * interactive shell with interactive_comments off runs what follows a `#`
 * (`bash -ic` after `shopt -u interactive_comments` ran touch); zsh's
 * brace_ccl makes `{t}ouch` touch and `print -P` runs substitutions under
 * prompt_subst (both ran touch in a zsh session); and arithmetic evaluates
 * a value the line builds from pieces (`x='a[$'; y='(touch m)]'; z=$x$y;
 * echo $((z))` ran touch). Each must be asked about or denied; honest lines
 * stay allowed.
 * @module
 */

import { createPolicy } from "../../lib/policy/mod.ts";
import { describeAllowed, describeAsked, describeDenied } from "./_verdicts.ts";

const CONTEXT = { cwd: "/tmp", env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };
const policy = () => createPolicy({ deny: ["touch"] });

describeAsked(
  "policy: a POSIX shell's string holding a construct dash reads otherwise than bash is asked about",
  policy,
  CONTEXT,
  [
    ["&> (dash: `&` then `>`)", "sh -c 'command -v &>/dev/null touch m'", /&>/],
    [
      "$'...' (dash: `$` and a quoted backslash)",
      `sh -c "echo \\$'\\\\' ; touch m ; echo ' x \\\\'"`,
      /\$'/,
    ],
    ["dash -c", "dash -c 'command -v &>/dev/null touch m'", /POSIX shell/],
    ["&> across a line continuation", "sh -c 'command -v &\\\n>/dev/null touch m'", /&>/],
    ["/bin/sh -c", "/bin/sh -c 'x |& y'", /\|&/],
    ["here-string", "sh -c 'cat <<< x'", /<<</],
    ["process substitution", "sh -c 'diff <(a) <(b)'", /process substitution/],
    ["[[ ]] (dash: a command, && outside it)", "sh -c '[[ -f x && -n y ]]'", /\[\[/],
    ["(( )) (dash: nested subshells)", "sh -c 'echo $( ((x)) )'", /\(\(/],
    ["function NAME", "sh -c 'function f { :; }'", /function/],
    ["brace expansion", "sh -c 'echo {a,b}'", /brace expansion/],
    ["bash's parameter expansion", "sh -c 'echo ${x:0:1}'", /parameter expansion/],
    ["indirect expansion", "sh -c 'echo ${!x}'", /parameter expansion/],
    ["arrays", "sh -c 'a=(1 2)'", /arrays/],
    ["+= (dash: a command word)", "sh -c 'x+=y'", /\+=/],
    ["case fall-through", "sh -c 'case a in a) :;& b) :;; esac'", /fall-through/],
    ["{fd}> redirection", "sh -c 'exec {fd}>f'", /descriptors/],
    ["$[...]", "sh -c 'echo $[1+1]'", /\$\[/],
    ["a bash builtin dash runs from PATH", "sh -c 'help m'", /no builtin "help"/],
    ["watch (sh -c)", "watch 'command -v &>/dev/null touch m'", /POSIX shell/],
    ["sg (/bin/sh -c)", "sg users 'command -v &>/dev/null touch m'", /POSIX shell/],
    ["find -exec sh -c", "find . -exec sh -c 'x &>/dev/null' _ {} \\;", /&>/],
    ["xargs sh -c", "xargs sh -c 'x &>/dev/null'", /&>/],
    ["flock -c (sh or $SHELL)", "flock f -c 'x &>/dev/null'", /POSIX shell/],
    ["behind sudo", "sudo sh -c 'x &>/dev/null'", /POSIX shell/],
    ["sh reading a here-document", "sh <<'EOF'\necho $'x'\nEOF", /\$'/],
    ["trap code dash runs later", `sh -c "trap 'echo \\$'\\"'\\"'x' EXIT"`, /\$'/],
  ],
  { unknown: true },
);

describeAsked(
  "policy: a double-quoted ${x-'...'} holding a } or \" is asked about (dash and zsh end it there)",
  policy,
  CONTEXT,
  [
    ["a zsh session's line", `echo "\${x-'}" ; touch m ; : "'}"`, /dash and zsh/],
    ["sh -c", `sh -c 'echo "\${x-'\\''}" ; touch m ; : "'\\''}"'`, /dash and zsh/],
  ],
  { unknown: true },
);

describeAllowed("policy: POSIX strings read alike by dash and bash stay allowed", policy, CONTEXT, [
  "sh -c 'cd x && make'",
  "sh -c 'echo \"$HOME\"'",
  "find . -exec sh -c 'wc -l \"$1\"' _ {} \\;",
  "find . -name '*.c' -exec sh -c 'gcc -c \"$0\" -o \"${0%.c}.o\"' {} \\;",
  "sh -c 'ls 2>&1 | grep x >/dev/null'",
  'sh -c \'for f in *.txt; do mv "$f" "${f%.txt}.md"; done\'',
  "sh -c 'x=$((1+2)); echo $x ${#x} ${x:-none}'",
  "sh -c 'echo $(((1+2)*3))'",
  "sh -c 'grep \"[[:space:]]\" f'",
  "sh -c \"awk '{print \\$1, \\$2}' f\"",
  "watch -n1 'ls -la | wc -l'",
  "xargs -n1 sh -c 'echo $1' _",
  "bash -c 'cmd &>/dev/null'",
  "sudo bash -c 'cmd &>/dev/null'",
  `echo "\${x:-'a b'}" "\${y:-$HOME}"`,
  "bash -c '[[ -f x ]] && echo {a,b}'",
]);

describeDenied(
  "policy: a denied program in a POSIX shell's string is still denied",
  policy,
  CONTEXT,
  [
    ["sh -c", "sh -c 'cd x && touch m'", "touch"],
    ["watch", "watch 'touch m'", "touch"],
  ],
);

describeAsked(
  "policy: a line that turns interactive_comments off (a # then starts no comment) is asked about",
  policy,
  CONTEXT,
  [
    [
      "bash -ic after shopt -u",
      "bash -ic 'shopt -u interactive_comments\necho a # ; touch m'",
      /interactive_comments off/,
    ],
    [
      "set +o",
      "bash -ic 'set +o interactive-comments\necho a # ; touch m'",
      /interactive_comments/,
    ],
    [
      "bash +O on its command line",
      "bash -i +O interactive_comments -c 'echo a # ; touch m'",
      /off/,
    ],
    ["zsh's unsetopt", "unsetopt interactivecomments", /interactive_comments off/],
    ["zsh's setopt no_", "setopt NO_INTERACTIVE_COMMENTS", /interactive_comments off/],
    ["zsh's set +k", "set +k", /interactive_comments off/],
    ["emulate -R (options reset)", "emulate -R zsh", /resets the shell's options/],
    ["options given at run time", "unsetopt $o", /known only when the line runs/],
    ["an option name as a glob", "setopt no_interactive_comment?", /known only when the line runs/],
    ["options array", "options[interactivecomments]=off", /sets zsh options/],
    ["interactive zsh reading a here-document", "zsh -i <<'EOF'\necho a # ; touch m\nEOF", /#/],
  ],
  { unknown: true },
);

describeAllowed("policy: option lines that leave comments alone stay allowed", policy, CONTEXT, [
  "set -euo pipefail; ls",
  "set -- a b",
  "shopt -s nullglob; ls *.c",
  "shopt -u nullglob",
  "setopt extendedglob",
  "emulate -L zsh; ls",
  "zsh -ic 'echo a # b'",
  "zsh <<'EOF'\necho a # b\nEOF",
  "bash -ic 'echo a # b'",
]);

describeAsked(
  "policy: zsh's brace_ccl turned on and print -P given substitutions are asked about",
  policy,
  CONTEXT,
  [
    ["setopt braceccl", "setopt braceccl; env {t}ouch m", /brace_ccl on/],
    ["setopt BRACE_CCL", "setopt BRACE_CCL", /brace_ccl on/],
    ["unsetopt no_brace_ccl", "unsetopt no_brace_ccl", /brace_ccl on/],
    ["set -o braceccl", "set -o braceccl", /brace_ccl on/],
    ["zsh -o braceccl", "zsh -o braceccl -c 'env {t}ouch m'", /brace_ccl on/],
    ["zsh --braceccl", "zsh --braceccl -c 'env {t}ouch m'", /brace_ccl on/],
    ["emulate with -o", "emulate zsh -o braceccl -c 'env {t}ouch m'", /brace_ccl on/],
    ["options array", "options[braceccl]=on", /sets zsh options/],
    ["options array pairs", "options=(braceccl on)", /sets zsh options/],
    ["print -P", "setopt promptsubst; print -P '$(touch m)'", /print -P/],
    ["print -rP", "print -rP '`touch m`'", /print -P/],
    ["print -P of a variable", 'print -P "%F{red}$msg%f"', /print -P/],
  ],
  { unknown: true },
);

describeAllowed("policy: zsh lines without those stay allowed", policy, CONTEXT, [
  "setopt no_brace_ccl",
  "setopt interactive_comments",
  "print -P '%F{red}error%f'",
  'print "$msg"',
  "print -r -- '$(not prompt-expanded)'",
  'options=(-a -b); ls "${options[@]}"',
]);

describeAsked(
  "policy: arithmetic evaluating a value the line builds from pieces is asked about",
  policy,
  CONTEXT,
  [
    ["two variables", "x='a[$'; y='(touch m)]'; z=$x$y; echo $((z))", /builds from several/],
    ["a variable and a quoted piece", "x='a[$'; z=$x'(touch m)]'; ((z))", /builds from several/],
    ["+=", "x='a[$'; y='(touch m)]'; z=$x; z+=$y; [[ z -eq 1 ]]", /builds from several/],
    [
      "printf -v",
      "x='a[$'; y='(touch m)]'; printf -v z '%s%s' \"$x\" \"$y\"; let z",
      /builds from several/,
    ],
    ["read from a here-string", "x='a[$'; y='(touch m)]'; read z <<< \"$x$y\"; echo $((z))", /"z"/],
    ["through another name", "x='a[$'; y='(touch m)]'; z=$x$y; w=z; echo $((w))", /"z"/],
    ["a quoted subscript read names", "x='a[$'; y='(touch m)]'; z=$x$y; read 'b[z]' <<< 1", /"z"/],
    ["[[ -v ]] of a subscript", "x='a[$'; y='(touch m)]'; z=$x$y; [[ -v b[z] ]]", /"z"/],
    [
      "read from a here-document",
      "x='a[$'; y='(touch m)]'; read z <<EOF\n$x$y\nEOF\necho $((z))",
      /"z"/,
    ],
    ["$* joins the parameters", "set -- 'a[$' '(touch m)]'; IFS=; z=$*; echo $((z))", /"z"/],
    ["let of joined expansions", "x='a[$'; y='(touch m)]'; let \"$x$y\"", /joins several/],
    ["let of a joined array", "a=('a[$' '(touch m)]'); IFS=; let \"${a[*]}\"", /joins several/],
    ["declare -i", "x='a[$'; y='(touch m)]'; declare -i z=$x$y", /builds from several/],
    ["in a child bash", "x='a[$'; y='(touch m)]'; export z=$x$y; bash -c 'echo $((z))'", /"z"/],
  ],
  { unknown: true },
);

describeDenied(
  "policy: pieces joined in one word are checked as arithmetic runs them",
  policy,
  CONTEXT,
  [
    ["let of two quoted pieces", "let 'a[$''(touch m)]'", "touch"],
    ["an escaped $ before a quoted piece", "z=a[\\$'(touch m)]'; echo $((z))", "touch"],
  ],
);

describeAllowed(
  "policy: arithmetic on values the line does not assemble stays allowed",
  policy,
  CONTEXT,
  [
    "n=$(wc -l < f); echo $((n+1))",
    'for ((i=0;i<3;i++)); do f="$dir/$i.txt"; cp x "$f"; done',
    'total=0; for f in *.txt; do n=$(wc -l < "$f"); total=$((total+n)); done; echo $total',
    "start=$(date +%s); make; end=$(date +%s); echo $((end-start))",
    'v="$major.$minor"; echo $((major+1))',
    "arr=(a b c); echo ${arr[1]} ${#arr[@]}",
    'for ((i=0; i<${#arr[@]}; i++)); do echo "${arr[i]}"; done',
    "echo $(( $a + $b )) $(( ${#a} + $# ))",
    "echo 'it''s'",
  ],
);

// The options a session's shell has on now (its start-up file set them, or an approved line):
// the typed-line hook sends them with each line.
const BRACE_CCL = {
  ...CONTEXT,
  shellState: { keyword: false, homeMoved: false, shell: "zsh", braceCcl: true },
};
const COMMENTS_OFF = {
  ...CONTEXT,
  shellState: { keyword: false, homeMoved: false, commentsOff: true },
};

describeAsked("policy: a zsh session with brace_ccl on: any brace but ${", policy, BRACE_CCL, [
  ["{t}ouch", "env {t}ouch m", /brace_ccl is on in this shell/],
  ["a class of letters", "env {s-u}ouch m", /brace_ccl is on in this shell/],
  // The reviewer's forms zsh still takes as classes (a quoted comma, `..` with one side).
  ["a quoted comma", `env -u {t","}ouch echo m`, /brace_ccl is on in this shell/],
  ["an escaped comma", "env -u {t\\,}ouch echo m", /brace_ccl is on in this shell/],
  ["a range with one end", "env -u {t..}ouch echo m", /brace_ccl is on in this shell/],
  ["a nested list", "env -u {t{,}}ouch echo m", /brace_ccl is on in this shell/],
  ["an expansion inside", "x=o; env -u {t${x}}uch echo m", /brace_ccl is on|no word or several/],
  // Where the scan of quotes cannot follow the shell, it asks (the reviewer's f04 fix).
  ["a brace after an escaped $", "env \\${t}ouch m", /brace_ccl is on/],
  ["$'...' with an escaped quote", "echo \\$'\\' ; env {t}ouch m ; echo ''", /brace_ccl is on/],
  ["a substitution inside double quotes", 'echo "$(env {t}ouch m)"', /brace_ccl is on/],
  ["a backtick", "echo `env \\\\'{t}ouch m\\\\'`", /brace_ccl is on/],
  ["a here-document", "cat <<E\n'\nE\nenv {t}ouch m\necho ''", /brace_ccl is on/],
  ["a quote left open", "echo '{x}", /brace_ccl is on|not complete/],
  ["a line after a comment", "echo # it's\nenv {t}ouch m\necho ''", /brace_ccl is on/],
  ["inside ${...:-word}", "echo ${x:-{t}ouch}", /brace_ccl is on/],
]);

describeAllowed(
  "policy: a zsh session with brace_ccl on: lines without braces",
  policy,
  BRACE_CCL,
  [
    "echo ${HOME}",
    "ls",
    // Quoted braces are literal in zsh too (the reviewer's f04: these were asked about).
    "awk '{print $1}' f",
    `echo "{t}ouch" $'{x}' \\{y}`,
    'echo "a\\"{b}"',
    "echo hi # {t}ouch",
  ],
);

describeAsked(
  "policy: a session with interactive_comments off: a # starting a word",
  policy,
  COMMENTS_OFF,
  [
    ["after a space", "echo hi #; touch m", /interactive_comments is off in this shell/],
    ["at the start", "#x; touch m", /interactive_comments is off in this shell/],
    ["after a quoted one", `echo "#" #; touch m`, /interactive_comments is off in this shell/],
    // (The parser reads a comment there: the line is not complete for it either.)
    ["in a substitution inside quotes", 'echo "$(echo #)"; touch m', /comments is off|complete/],
  ],
);

describeAllowed(
  "policy: a session with interactive_comments off: # inside words",
  policy,
  COMMENTS_OFF,
  [
    "echo $#",
    "echo a#b",
    "ls",
    `echo "issue #12" '#13' \\#14`,
  ],
);

// An attached option name (`-oNAME`) turns brace_ccl on as `-o NAME` does (the reviewer's f02).
describeAsked("policy: brace_ccl turned on with the name attached to -o", policy, CONTEXT, [
  ["set", "set -obraceccl; env {t}ouch m", /brace_ccl/],
  ["setopt", "setopt -obraceccl; env {t}ouch m", /brace_ccl/],
  ["unsetopt +o", "unsetopt +obraceccl; env {t}ouch m", /brace_ccl/],
  ["emulate", "emulate zsh -obraceccl; env {t}ouch m", /brace_ccl/],
]);

describeAllowed("policy: option letters ending in o, with the name apart", policy, CONTEXT, [
  "set -euo pipefail; ls",
  "setopt extendedglob",
]);

// zsh's setopt and unsetopt, as zsh reads them (checked against zsh 5.9): a flag word's sign
// says which way its letters go (reversed for unsetopt); names after flags follow the command.
describeAsked(
  "policy: setopt and unsetopt that turn a reading option the harmful way",
  policy,
  CONTEXT,
  [
    ["setopt -o", "setopt -o braceccl", /brace_ccl on/],
    ["unsetopt +o", "unsetopt +o brace_ccl", /brace_ccl on/],
    ["a name after a flag", "setopt +x braceccl", /brace_ccl on/],
    ["setopt +k", "setopt +k", /interactive_comments off/],
    ["unsetopt -k", "unsetopt -k", /interactive_comments off/],
    ["unsetopt -o", "unsetopt -o interactive_comments", /interactive_comments off/],
  ],
);

describeAllowed(
  "policy: setopt and unsetopt that turn a reading option the safe way",
  policy,
  CONTEXT,
  [
    "setopt +o braceccl",
    "setopt +obraceccl",
    "unsetopt -o braceccl",
    "setopt -k",
    "unsetopt +k",
    "setopt -o interactive_comments",
  ],
);
