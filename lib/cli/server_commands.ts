/**
 * The help texts of the subcommands that talk to the session server.
 * @module
 */

/** One subcommand: its usage line, a summary for the list, and its help. */
export interface SubcommandHelp {
  usage: string;
  summary: string;
  help: string;
}

/** Options every subcommand takes. */
export const COMMON_OPTIONS = `Common options:
  -L, --name NAME   use the server called NAME (default "default")
  --socket PATH     use the server on the socket PATH (also $TERMBRIDGE_SOCKET)
  --json            print the answer as JSON
  -h, --help        show this help

Exit statuses: 0 done, 1 failed, 2 bad command line, 120 exit code unknown
(exec), 121 unknown session, 122 session busy (a command still running, or
its program exited), 123 refused by the policy, 124 still running (exec).
With --json an error is also printed on stdout as {"error": {...}}.`;

/** The subcommands, in the order `termbridge --help` lists them. */
export const SUBCOMMAND_HELP: Record<string, SubcommandHelp> = {
  new: {
    usage:
      "new NAME [--cwd DIR] [--size COLSxROWS] [--env NAME=VALUE]... [--record FILE [--record-input]] [-- PROGRAM ARGS...]",
    summary: "open a session in the server (your shell, or PROGRAM)",
    help: `Opens a session called NAME in the session server (started if none runs):
your shell (bash, zsh and fish report exit codes and the working directory) or
PROGRAM with ARGS, in DIR (default: the current directory). Returns once it is
ready (a shell's first prompt is shown). --record FILE records it from the
start (as "record NAME FILE"; --record-input records what is typed too).

Examples:
  termbridge new build --cwd ~/src/app --size 100x30
  termbridge new editor -- vim notes.txt`,
  },
  ls: {
    usage: "ls",
    summary: "list the server's sessions",
    help: `Lists the server's sessions: name, program, pid, size, state and working
directory. Prints nothing when there are none; with no server running it says
so on stderr and starts none.`,
  },
  exec: {
    usage: "exec NAME [--timeout S] [--follow] [--no-follow] COMMAND...",
    summary: "run a command in a session's shell; print its output, exit with its code",
    help: `Runs COMMAND (the words joined by spaces, as ssh does) in session NAME's
shell, waits until it ends, prints its output and exits with its exit code
(120 when it cannot be known: the session's program is not bash, zsh or fish).
If it is still running after --timeout S (default 30), prints what it has
written so far, says so on stderr and exits with 124; the command keeps
running ("exec NAME ''" collects more, or exits with 2 when nothing is
running; "key NAME C-c" interrupts it).
With --follow the output is printed as it comes, line by line (a line is
printed when it ends; the rest when the command ends), and the exit code is
still the command's; it is the default when stdout is a terminal (without
--json): --no-follow prints it all when the command ends. --follow --json prints one JSON object a line (NDJSON):
{"event":"output","text"} as lines come, then {"event":"result",...} (the
--json result without its output). Ctrl+C stops following (130); the
command goes on in the session.

Examples:
  termbridge exec build make test
  termbridge exec build 'cd /tmp && pwd'
  termbridge exec build --follow make test`,
  },
  type: {
    usage: "type NAME [--literal] [--] TEXT...",
    summary: "type text into a session, as a person would",
    help: `Types TEXT (the words joined by spaces) into session NAME exactly as given,
as the REPL's "type" does: each newline presses Enter, so a shell runs each
line (termbridge type s $'ls\\n'). Without a newline nothing runs; "key NAME
Enter" presses Enter on its own. Text that starts with "-" goes after "--"
(termbridge type s -- -n), or use --literal: every word after NAME is text
(as tmux's send-keys -l).`,
  },
  key: {
    usage: "key NAME KEY...",
    summary: "press keys by name in a session: Enter, C-c, Ctrl+D, Up, Escape...",
    help: `Presses the keys in session NAME, in order. Both vocabularies work: tmux
style (C-c, M-f, S-Tab, BSpace, Up, PPage) and friendly style (Ctrl+C, Alt+F,
Shift+Tab, Backspace, ArrowUp, PageUp). A single ASCII character types
itself (other text: use type).

Example:
  termbridge key editor Escape : w q Enter`,
  },
  screen: {
    usage: "screen NAME [--all] [--lines N] [--logical] [--ansi]",
    summary: "print a session's screen as plain text",
    help: `Prints session NAME's screen as plain text, trailing blank lines removed.
--all includes the scrollback, --lines N prints only the last N lines,
--logical joins the lines the terminal wrapped. --ansi keeps the colours and
attributes as escape sequences (the visible screen; as tmux capture-pane -e).`,
  },
  shot: {
    usage: "shot NAME [--ansi]",
    summary: "a session's screenshot as JSON: content, cursor, size, alternate screen, title",
    help: `Prints session NAME's screenshot as JSON: the visible content, the cursor
{x, y} (0-based), the dimensions {cols, rows}, whether the alternate screen
is active, and the window title. --ansi: the content keeps its colours and
attributes as escape sequences.`,
  },
  read: {
    usage: "read NAME [--since-last] [--cursor NAME] [--since N] [--follow]",
    summary: "print a session's output as plain text (--since-last: only what is new)",
    help: `Prints what session NAME's program has written, as plain text (colours and
other escape sequences removed). --since-last prints only what arrived since
the last "read --since-last" of that session (by any client). Two scripts
that read the same session each keep their own position with --cursor NAME
(their own name: only what is new since that cursor's last read), or with
--since N, N being the "totalBytes" an earlier "read --json" returned.
--follow goes on printing what comes, as tail -f does, until the program
exits or the session is closed (0), or Ctrl+C (130). --follow --json prints
one JSON object a line (NDJSON) as it comes: {"event":"output","text",
"totalBytes"}, then {"event":"exit","exitCode","signal"} or
{"event":"closed"}.`,
  },
  wait: {
    usage: "wait NAME text|regex|gone|idle|prompt|exit [ARG] [--timeout S] [--all]",
    summary: "wait for text, a regex, text to go, quiet, the prompt or the exit",
    help: `Waits (default 10 s) in session NAME for:
  text TEXT      TEXT to appear on the screen
  regex REGEX    a regular expression to match
  gone TEXT      TEXT (or /REGEX/) to leave the screen
  idle [MS]      MS milliseconds without output (default 500)
  prompt         the shell's prompt to be back (bash, zsh and fish)
  exit           the program to exit
--all looks at the scrollback too. Exits with 0 when it happened, 1 on
timeout (the screen goes to stderr). With --json a regex wait prints the match
and its capture groups ("groups", and "namedGroups" for (?<name>...)).
Key names for "key": termbridge help keys.`,
  },
  resize: {
    usage: "resize NAME COLSxROWS",
    summary: "resize a session's terminal",
    help: `Resizes session NAME's terminal; its program gets SIGWINCH.`,
  },
  record: {
    usage: "record NAME [--overwrite] [--record-input] FILE|stop",
    summary: "record a session to an asciicast file (asciinema play FILE), or stop",
    help: `Records session NAME's output from now on to FILE (asciicast v2; a relative
FILE is taken from the current directory), or stops recording with "stop". An
existing FILE is replaced only when it is empty or a recording, or with
--overwrite. The file is created 0600 (yours alone). What is typed into the
session (passwords included) is recorded only with --record-input.`,
  },
  pipe: {
    usage: "pipe NAME [FILE]",
    summary: "append a session's output to FILE as it comes (tmux pipe-pane); no FILE stops",
    help: `Appends what session NAME prints from now on to FILE, as the plain text "read"
prints, until "termbridge pipe NAME" (no FILE) stops it or the session closes;
a pipe in progress is replaced. A relative FILE is taken from the current
directory; a new FILE is created 0600. tail -f FILE follows it.`,
  },
  clear: {
    usage: "clear NAME",
    summary: "clear a session's screen and scrollback (the emulator's only)",
    help: `Clears session NAME's screen and scrollback as termbridge sees them.`,
  },
  close: {
    usage: "close NAME",
    summary: "close a session: its processes are killed",
    help: `Closes session NAME: its program's process group is hung up and killed.`,
  },
  attach: {
    usage: "attach NAME [--read-only]",
    summary: "use a session from this terminal (Ctrl+] detaches; the session goes on)",
    help: `Hands this terminal to session NAME: what you type goes to it, what it
prints shows here, the session takes your terminal's size while you are
attached. Ctrl+] detaches; the session keeps running. Others (an agent through
"mcp --server", another attach) may use the session at the same time: everyone
sees the same screen. --read-only watches without typing or resizing. Your
terminal is put back however the attach ends; its title says where you are.
Exits with 0 after a detach or the program's end, 1 when the server went away,
121 for an unknown session, 122 for one whose program exited.`,
  },
  web: {
    usage: "web [--open] [--port N] [--host ADDR] [--cast NAME]",
    summary: "watch and drive every session from a browser (prints a link)",
    help: `Starts the server's browser dashboard (and the server, if none runs) and
prints its link: http://127.0.0.1:PORT/?ticket=... The ticket works once,
within a minute; the browser trades it for a cookie (HttpOnly,
SameSite=Strict) and the address bar loses it. Run "web" again for another
link; the dashboard keeps listening until the server stops.

The page shows every session as a live tile (name, program, directory,
running command, idle time, exit status); a click opens its terminal, live,
with scrollback. Pages only watch: "Take control" gives that page the
session's input (the others see who drives; any may take it over), and only
the driver's page sets the session's size. Its keys go through the same
policy and audit as every client's, named "web N".

A command the policy asks about, sent by a client that cannot be asked (exec,
type, an MCP client without elicitation), is asked on the open pages (the
command, the rule, who asked: "Allow once" or "Deny"); with no page open, or
no answer within 2 minutes (the config key webAskTimeout, seconds), it is
refused as before. The "recordings" link
lists what the server's sessions recorded and replays it in the page.

--cast NAME prints instead a link to session NAME's live asciicast (v2: the
screen as it is, then its output and resizes as they happen, until its
program exits), with a ticket that opens it once, within a minute:
  curl -sN "$(termbridge web --cast build)" | asciinema play -
  curl -sN "$(termbridge web --cast build)" > build.cast

Options:
  --open         open the link in your browser (xdg-open)
  --port N       listen on port N (default: any free port)
  --host ADDR    listen on ADDR instead of 127.0.0.1; beyond this machine the
                 link and cookie travel in clear: only on a network you trust
  --cast NAME    print a link to session NAME's live asciicast instead`,
  },
  "kill-server": {
    usage: "kill-server",
    summary: "stop the server: every session's processes are killed",
    help: `Stops the session server: every session's processes are killed and the
socket is removed. Returns once the server has exited.`,
  },
};
