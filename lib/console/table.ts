/**
 * The command table: every command of the console language, found by name
 * or short form. `help`, `save` and `quit` live here because they read the
 * table or the transcript.
 * @module
 */

import { closeSync, existsSync, ftruncateSync, writeSync } from "node:fs";
import { openWriteSync } from "../service/checked_open.ts";
import { fileErrorFrom } from "../service/file_errors.ts";
import { type Command, defineCommand } from "./command.ts";
import { CommandError } from "./errors.ts";
import { EXEC_COMMANDS } from "./exec_commands.ts";
import { EXPECT_COMMANDS } from "./expect_commands.ts";
import { commandHelp, KEYS_HELP, overview, QUOTING_HELP } from "./help.ts";
import { SESSION_COMMANDS } from "./session_commands.ts";
import { TERMINAL_COMMANDS, TYPING_COMMANDS } from "./terminal_commands.ts";
import { closest, parseArgs } from "./words.ts";

const HELP_TOPICS: Readonly<Record<string, string>> = { keys: KEYS_HELP, quoting: QUOTING_HELP };

const help = defineCommand<string | undefined>({
  name: "help",
  aliases: ["h", "?"],
  usage: "help [COMMAND|keys|quoting]",
  summary: "list the commands, or explain one",
  help: `Lists the commands; "help COMMAND" shows a command's usage, what it does
and examples; "help keys" lists the key names; "help quoting" explains how a
line is split into words.`,
  replay: false,
  parse({ words }) {
    if (words.length > 1) {
      throw new CommandError(`Cannot run "help": give at most one command name`);
    }
    const topic = words[0];
    if (topic === undefined || topic.toLowerCase() in HELP_TOPICS || findCommand(topic)) {
      return topic;
    }
    throw unknownCommand(topic);
  },
  run(ctx, topic) {
    if (topic === undefined) return { output: overview(COMMANDS, ctx.mode) };
    return { output: HELP_TOPICS[topic.toLowerCase()] ?? commandHelp(findCommand(topic)!) };
  },
});

const save = defineCommand<{ path: string; force: boolean }>({
  name: "save",
  aliases: [],
  usage: "save FILE [--force]",
  summary: "save the commands that worked so far as a script for termbridge run",
  help: `Writes the commands typed so far that succeeded and changed something (not
help, list, screen, shot, attach) to FILE, one a line, with a header; replay
them with "termbridge run FILE". "open" is written with the size it used.
Keys typed while attached are not saved. --force replaces an existing FILE.`,
  spec: { options: { force: "flag" } },
  only: "repl",
  replay: false,
  parse({ words }) {
    const { options, positionals } = parseArgs("save", words, this.spec!);
    if (positionals.length !== 1) {
      throw new CommandError(`Cannot run "save": give a file name, e.g. save session.tb`);
    }
    return { path: positionals[0], force: options.force === true };
  },
  run(ctx, args) {
    const path = ctx.path(args.path);
    if (existsSync(path) && !args.force) {
      throw new CommandError(
        `Cannot save to "${args.path}": the file exists; "save ${args.path} --force" replaces it`,
      );
    }
    const header = [
      `# termbridge script, saved from the REPL on ${new Date().toISOString()}`,
      `# Replay: termbridge run ${args.path}`,
    ];
    // Opened without blocking, a regular file only: a FIFO there would stop the REPL (or the server).
    let fd: number;
    try {
      fd = openWriteSync("save to", path, { checked: false });
    } catch (error) {
      throw fileErrorFrom(error, "save to", path);
    }
    try {
      ftruncateSync(fd);
      writeSync(fd, [...header, ...ctx.transcript, ""].join("\n"));
    } finally {
      closeSync(fd);
    }
    const count = ctx.transcript.filter((line) => !line.startsWith("#")).length;
    return {
      note: `Saved ${count} command${
        count === 1 ? "" : "s"
      } to ${path}; replay with "termbridge run ${args.path}"`,
    };
  },
});

const quit = defineCommand<void>({
  name: "quit",
  aliases: ["q", "exit"],
  usage: "quit",
  summary: "close every session and leave (in a script: stop here, successfully)",
  help: `Closes every session (their programs are killed) and leaves the REPL; Ctrl+D
does the same. In a script, stops running lines; the script succeeds if every
line so far did.`,
  replay: false,
  parse({ words }) {
    if (words.length > 0) throw new CommandError(`Cannot run "quit": it takes no arguments`);
  },
  run(ctx) {
    ctx.quitRequested = true;
    return {};
  },
});

/** Every command, in the order `help` lists them. */
export const COMMANDS: readonly Command[] = [
  ...SESSION_COMMANDS,
  ...TYPING_COMMANDS,
  ...EXEC_COMMANDS,
  ...TERMINAL_COMMANDS,
  ...EXPECT_COMMANDS,
  save,
  help,
  quit,
];

const BY_NAME = new Map<string, Command>(
  COMMANDS.flatMap((c) => [c.name, ...c.aliases].map((name) => [name, c] as const)),
);

/** The command called `name` (or with that short form), case-insensitively. */
export function findCommand(name: string): Command | undefined {
  return BY_NAME.get(name.toLowerCase());
}

/** Every name and short form, for completion and suggestions. */
export const COMMAND_NAMES: readonly string[] = [...BY_NAME.keys()];

/** The error for an unknown command, with the nearest name. */
export function unknownCommand(name: string): CommandError {
  const near = closest(name, COMMANDS.map((c) => c.name));
  const hint = near === undefined ? ": type" : `: did you mean "${near}"? Type`;
  return new CommandError(`Unknown command "${name}"${hint} "help" for the list`);
}
