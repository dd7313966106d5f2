/**
 * Lines typed into a shell session, checked at the moment Enter is accepted.
 * The shell's hooks (see `shell_integration.ts`) write the line it is about
 * to run, with its cwd, PATH and aliases, to a file, and ask with an OSC 6973
 * mark; termbridge answers on the FIFO the shell waits on. Whatever way the
 * line was made (typed key by key, pasted, recalled with Up, edited), the
 * shell's own line is what is checked.
 * @module
 */

import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { runtime } from "../runtime/mod.ts";
import { analyseLine } from "../policy/analyse.ts";
import { loadShellParser } from "../policy/parser.ts";
import { splitRuleWords } from "../policy/words.ts";

/** A line a shell is about to run. */
export interface TypedLine {
  line: string;
  /** The shell's working directory and PATH at that moment. */
  cwd: string;
  path: string;
  /** The shell's aliases, name to value. */
  aliases: Record<string, string>;
  /** The shell asking (`/usr/bin/bash` or `zsh`), for nested shells. */
  shell: string;
}

/** The answer: run it, or refuse with a message the shell shows. */
export interface TypedLineVerdict {
  allowed: boolean;
  message: string;
}

/**
 * The verdict function a session is given: termbridge's guard, which applies
 * the policy, asks the front end when the verdict is "ask", and audits.
 */
export type TypedLineCheck = (typed: TypedLine) => Promise<TypedLineVerdict>;

/** The mark a shell's hook sends when the line is written, with the nonce the answer carries. */
const REQUEST = /^6973;check;([0-9a-f]{8,64})$/;

/**
 * Answers a session's typed-line checks, in the session's private directory
 * (`line`: what the shell asks about; `reply`: the FIFO it waits on).
 */
export class TypedLineChannel {
  readonly #dir: string;
  readonly #check: TypedLineCheck;

  constructor(dir: string, check: TypedLineCheck) {
    this.#dir = dir;
    this.#check = check;
  }

  /** Handles an OSC string if it is a check request; returns whether it was one. */
  handle(osc: string): boolean {
    const request = REQUEST.exec(osc);
    if (request === null) return osc.startsWith("6973;");
    this.#answer(request[1]).catch(() => {
      // The shell or its directory went away meanwhile: nobody is waiting for the answer.
    });
    return true;
  }

  /** Removes the session's directory. */
  close(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #answer(nonce: string): Promise<void> {
    // Never through a link: the directory is the session's, and so is what is in it.
    const file = openSync(join(this.#dir, "line"), constants.O_RDONLY | constants.O_NOFOLLOW);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } finally {
      closeSync(file);
    }
    const fields = text.split("\0");
    if (fields.length < 5) return;
    const [shell, cwd, path, aliasText, ...rest] = fields;
    const typed: TypedLine = {
      line: rest.join("\0"),
      cwd,
      path,
      aliases: parseAliases(aliasText),
      shell,
    };
    let reply: string;
    const tampering = await tampersWithCheck(typed);
    if (tampering !== null) {
      reply = `deny the line would change termbridge's typed-line check (${tampering})`;
    } else if (await isIncomplete(typed)) {
      reply = "more"; // Nothing runs until the command is complete; then all of it is checked.
    } else {
      try {
        const verdict = await this.#check(typed);
        reply = verdict.allowed ? "allow" : `deny ${verdict.message.replace(/[\r\n]+/g, " ")}`;
      } catch (error) {
        // A check that fails refuses the line at once (the shell would wait 600 s, then refuse).
        const message = error instanceof Error ? error.message : String(error);
        reply = `deny termbridge could not check the line: ${message.replace(/[\r\n]+/g, " ")}`;
      }
    }
    this.#reply(`${nonce} ${reply}\n`);
  }

  /** Writes the answer to the FIFO the shell waits on (never blocks: the shell holds it open). */
  #reply(text: string): void {
    const handle = openSync(
      join(this.#dir, "reply"),
      constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW,
    );
    try {
      if (fstatSync(handle).isFIFO()) writeSync(handle, text);
    } finally {
      closeSync(handle);
    }
  }
}

/** Builtins that rebind keys, remove functions or switch builtins off: the check's own machinery. */
const MACHINERY = new Set(["bind", "bindkey", "zle", "unfunction", "enable", "disable", "unhash"]);

/** Names a function must not take: the builtins and keywords the hooks themselves use. */
const HOOK_WORDS = new Set([
  "[",
  "alias",
  "bind",
  "bindkey",
  "builtin",
  "case",
  "command",
  "eval",
  "exec",
  "history",
  "kill",
  "local",
  "print",
  "printf",
  "read",
  "return",
  "set",
  "test",
  "typeset",
  "unset",
  "zle",
]);

/** Why a line would switch the check off or around it, or null. */
async function tampersWithCheck(typed: TypedLine): Promise<string | null> {
  const named = /__tb_|__termbridge|TERMBRIDGE_/.exec(typed.line);
  if (named !== null) return `it names "${named[0]}"`;
  const analysis = analyseLine(await loadShellParser(), typed.line, {
    cwd: typed.cwd,
    path: typed.path,
    home: "",
    aliases: typed.aliases,
  });
  const shadow = analysis.functions.find((name) => HOOK_WORDS.has(name));
  if (shadow !== undefined) return `it defines a function named "${shadow}"`;
  for (const command of analysis.commands) {
    const [first, ...rest] = command.words.map((word) => word.text);
    if (MACHINERY.has(first)) return `it runs "${first}"`;
    if (first === "unset" && rest.some((word) => /^-[a-z]*f/.test(word))) {
      return 'it runs "unset -f"';
    }
  }
  return null;
}

/** Aliases as `alias` prints them: bash `alias NAME='VALUE'`, zsh `NAME=VALUE` or `NAME='VALUE'`. */
export function parseAliases(text: string): Record<string, string> {
  const aliases: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const match = /^(?:alias )?([^=\s]+)=(.*)$/.exec(line);
    if (match === null) continue;
    try {
      const [word] = splitRuleWords(match[2]);
      aliases[match[1]] = (word ?? []).map((piece) => piece.text).join("");
    } catch {
      // A value split over lines: not something this can read; left out.
    }
  }
  return aliases;
}

/**
 * Whether the shell will ask for more before running anything (an open quote,
 * `if` without `fi`, a trailing `|`): asked of the shell's own parser (`-n`).
 */
async function isIncomplete(typed: TypedLine): Promise<boolean> {
  const root = (await loadShellParser()).parse(typed.line);
  // An odd number of backslashes at the end continues the line, unless they end a comment.
  if (/(^|[^\\])(\\\\)*\\$/.test(typed.line)) {
    return root.descendantForIndex(typed.line.length - 1)?.type !== "comment";
  }
  if (!root.hasError) return false; // The usual case: complete, and no process to start.
  // Only ever bash or zsh from termbridge's own PATH: the file's words come from the session,
  // where any program could have written them.
  const zsh = typed.shell === "zsh" || typed.shell.endsWith("/zsh");
  const first = await syntaxCheck(zsh, typed.line);
  if (first.exitCode === 0) {
    if (!zsh) return /here-document at line \d+ delimited by end-of-file/.test(first.errors);
    // zsh says nothing of an open here-document: a line that is an error anywhere else
    // (")") is accepted only inside one.
    return (await syntaxCheck(zsh, `${typed.line}\n)`)).exitCode === 0;
  }
  return zsh
    ? /unmatched|parse error near `\\n'|parse error$/m.test(first.errors)
    : /unexpected EOF while looking for matching|syntax error: unexpected end of file/.test(
      first.errors,
    );
}

/** The shell's own syntax check (`-n`) of `text`: exit code and what it said. */
async function syntaxCheck(
  zsh: boolean,
  text: string,
): Promise<{ exitCode: number | null; errors: string }> {
  const child = runtime.spawnPiped({
    argv: [zsh ? "zsh" : "bash", "-n"],
    env: { PATH: runtime.env().PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
    stderr: "pipe",
  });
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(`${text}\n`)).catch(() => {});
  await writer.close().catch(() => {});
  const [errors] = await Promise.all([
    new Response(child.stderr).text(),
    new Response(child.stdout).arrayBuffer(),
  ]);
  return { exitCode: (await child.exited).exitCode, errors };
}
