/**
 * Lines typed into a shell session, checked at the moment Enter is accepted.
 * The shell's hooks (see `shell_integration.ts`) send the line they are
 * about to run, with its cwd, PATH and aliases, in an OSC 6973 request on the
 * terminal; termbridge answers on the FIFO the shell waits on. Whatever way
 * the line was made (typed key by key, pasted, recalled with Up, edited), the
 * shell's own line is what is checked.
 * @module
 */

import { closeSync, constants, fstatSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { runtime } from "../runtime/mod.ts";
import { expandGlobalAliases } from "../policy/aliases.ts";
import { loadShellParser } from "../policy/parser.ts";
import { tampersWithCheck } from "./line_tampering.ts";

/** A line a shell is about to run. */
export interface TypedLine {
  line: string;
  /** The shell's working directory and PATH at that moment. */
  cwd: string;
  path: string;
  /** The shell's aliases, name to value. */
  aliases: Record<string, string>;
  /** zsh's global aliases (`alias -g`), name to value. */
  globalAliases: Record<string, string>;
  /** zsh's suffix aliases (`alias -s`), extension to program. */
  suffixAliases: Record<string, string>;
  /** The shell asking (`/usr/bin/bash` or `zsh`), for nested shells. */
  shell: string;
  /** The shell's HOME at that moment (an earlier line may have set it). */
  home: string;
  /** bash's keyword option is on (`set -k`, from `$-`): NAME=VALUE words anywhere are assignments. */
  keyword: boolean;
  /** zsh's brace_ccl is on: `{t}ouch` is `touch`. */
  braceCcl: boolean;
  /** interactive_comments is off: a `#` starts no comment. */
  commentsOff: boolean;
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

/** The OSC number of the shell hooks' requests (kept out of the raw log: they carry a token). */
export const TYPED_LINE_OSC = 6973;

/** A request's fields are separated by `;`; inside them `\\` escapes (see `__tb_field`). */
const FIELD = /((?:[^\\;]|\\[\\:nraexzs])*)(?:;|$)/y;
const UNESCAPE: Record<string, string> = {
  "\\": "\\",
  ":": ";",
  n: "\n",
  r: "\r",
  a: "\x07",
  e: "\x1b",
  x: "\x18",
  z: "\x1a",
  s: "\x9c",
};
const HEX = /^[0-9a-f]{8,64}$/;

/** A check request: what the shell is about to run, the nonce and the token the answer carries. */
interface CheckRequest {
  typed: TypedLine;
  /** The earlier lines of a command zsh itself is continuing (PREBUFFER; `typed.line` begins with them). */
  pending: string;
  nonce: string;
  token: string;
}

/**
 * Reads `6973;check;NONCE;SHELL;CWD;PATH;HOME;FLAGS;PENDING;LINE;ALIAS...;TOKEN`
 * (FLAGS: the shell's `$-`, then the reading options it has on as words:
 * `braceccl`, `nocomments`), or null when
 * it is not one. A request cut short (an unescaped terminator in it) loses
 * its last field, the token, so what is left is never taken for a request.
 */
export function parseCheckRequest(osc: string): CheckRequest | null {
  const fields: string[] = [];
  FIELD.lastIndex = 0;
  while (FIELD.lastIndex < osc.length) {
    const at = FIELD.lastIndex;
    const match = FIELD.exec(osc);
    if (match === null || FIELD.lastIndex === at) return null; // a stray backslash
    fields.push(match[1].replace(/\\(.)/g, (_, code: string) => UNESCAPE[code]));
  }
  if (osc.endsWith(";")) fields.push("");
  if (fields.length < 11 || fields[0] !== String(TYPED_LINE_OSC) || fields[1] !== "check") {
    return null;
  }
  const [, , nonce, shell, cwd, path, home, flags, pending, last, ...rest] = fields;
  const [letters, ...options] = flags.split(" ");
  // zsh's `k` is interactive_comments (the hook sets it); bash's is the keyword option.
  const keyword = !/(^|\/)zsh$/.test(shell) && letters.includes("k");
  const braceCcl = options.includes("braceccl");
  const commentsOff = options.includes("nocomments");
  const line = pending + last;
  const token = rest.pop() ?? "";
  if (!HEX.test(nonce) || !HEX.test(token)) return null;
  const aliases: Record<string, string> = {};
  const globalAliases: Record<string, string> = {};
  const suffixAliases: Record<string, string> = {};
  for (const field of rest) {
    // `NAME=VALUE`; `=NAME=VALUE` a global alias, `==EXT=VALUE` a suffix one (no name starts with "=").
    const kind = field.startsWith("==")
      ? suffixAliases
      : field.startsWith("=")
      ? globalAliases
      : aliases;
    const alias = field.slice(kind === suffixAliases ? 2 : kind === globalAliases ? 1 : 0);
    const equals = alias.indexOf("=");
    if (equals > 0) kind[alias.slice(0, equals)] = alias.slice(equals + 1);
  }
  return {
    typed: {
      line,
      cwd,
      path,
      aliases,
      globalAliases,
      suffixAliases,
      shell,
      home,
      keyword,
      braceCcl,
      commentsOff,
    },
    pending,
    nonce,
    token,
  };
}

/**
 * Answers a session's typed-line checks: the requests come on the terminal,
 * the answers go to the FIFO the shell waits on (`reply` in the session's
 * private directory).
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
    if (!osc.startsWith(`${TYPED_LINE_OSC};`)) return false;
    const request = parseCheckRequest(osc);
    // The shell or its directory may go away meanwhile: then nobody waits for the answer.
    if (request !== null) this.#answer(request).catch(() => {});
    else this.#refuseUnread(osc);
    return true;
  }

  /** Removes the session's directory. */
  close(): void {
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #answer({ typed, nonce, token }: CheckRequest): Promise<void> {
    let reply: string;
    const tampering = await tampersWithCheck(typed);
    if (tampering !== null) {
      reply = `deny the line would change termbridge's typed-line check (${tampering})`;
    } else if (await isIncomplete(typed) && !(await completeWithAliases(typed))) {
      // The shell keeps the line in its editor (it never runs a line answered so) and asks
      // again, with the rest, at the next Enter: then all of it is checked.
      reply = `more ${token}`;
    } else {
      try {
        const verdict = await this.#check(typed);
        reply = verdict.allowed
          ? `allow ${token}`
          : `deny ${verdict.message.replace(/[\r\n]+/g, " ")}`;
      } catch (error) {
        // A check that fails refuses the line at once (the shell would wait 600 s, then refuse).
        const message = error instanceof Error ? error.message : String(error);
        reply = `deny termbridge could not check the line: ${message.replace(/[\r\n]+/g, " ")}`;
      }
    }
    this.#reply(`${nonce} ${reply}\n`);
  }

  /** A request that cannot be read (cut short): refused at once when its nonce can be. */
  #refuseUnread(osc: string): void {
    const nonce = /^\d+;check;([0-9a-f]{8,64});/.exec(osc)?.[1];
    try {
      if (nonce !== undefined) this.#reply(`${nonce} deny termbridge could not read the line\n`);
    } catch {
      // Nobody waits for it.
    }
  }

  /**
   * Writes the answer to the FIFO the shell waits on. Never blocks: the shell
   * holds it open while it asks (and when it no longer does, nobody waits).
   */
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

/**
 * Whether the line is complete once its aliases are replaced (`alias q='echo "'`
 * makes `q "; touch m` complete): then it is checked as it is. Plain aliases
 * are replaced where the shell replaces them, in command position only (the
 * first word, and after `;` `&` `|` `(` or a newline); global ones anywhere.
 */
async function completeWithAliases(typed: TypedLine): Promise<boolean> {
  let expanded = expandGlobalAliases(typed.line, typed.globalAliases);
  expanded = expanded.replace(
    /(^|[;&|(\n]\s*)([^\s;&|()<>'"\\$`=]+)(?=$|[\s;&|()<>])/g,
    (word, before: string, name: string) =>
      Object.hasOwn(typed.aliases, name) ? before + typed.aliases[name] : word,
  );
  return expanded !== typed.line && !(await isIncomplete({ ...typed, line: expanded }));
}

/**
 * Whether the shell will ask for more before running anything (an open quote,
 * `if` without `fi`, a trailing `|`): asked of the shell's own parser (`-n`).
 * Only a guide to when to ask again: the shell never runs a line answered
 * "more" (it stays in the line editor), whatever the shell makes of it.
 */
async function isIncomplete(typed: TypedLine): Promise<boolean> {
  const root = (await loadShellParser()).parse(typed.line);
  const zsh = typed.shell === "zsh" || typed.shell.endsWith("/zsh");
  // An odd number of backslashes at the end continues the line, unless they end a comment, a
  // quoted here-document's delimiter or body: asked of the shell, which joins the line to a
  // following "|" (unfinished) only when the backslash continues it (and takes it for text
  // in an open here-document: then as any other line).
  let backslash = false;
  if (/(^|[^\\])(\\\\)*\\$/.test(typed.line)) {
    if (root.descendantForIndex(typed.line.length - 1)?.type === "comment") return false;
    const probe = await syntaxCheck(zsh, `${typed.line}\n|`);
    if (probe.exitCode !== 0) return isUnfinished(zsh, probe);
    backslash = true;
  }
  if (!root.hasError && !backslash) return false; // The usual case: complete, no process started.
  // Only ever bash or zsh from termbridge's own PATH: the file's words come from the session,
  // where any program could have written them.
  const first = await syntaxCheck(zsh, typed.line);
  if (first.exitCode === 0) {
    if (!zsh) return /here-document at line \d+ delimited by end-of-file/.test(first.errors);
    // zsh says nothing of an open here-document: a line that is an error anywhere else
    // (")") is accepted only inside one.
    return (await syntaxCheck(zsh, `${typed.line}\n)`)).exitCode === 0;
  }
  // bash reads @(...) as a pattern only with extglob: unfinished only if it is either way.
  return isUnfinished(zsh, first) &&
    (zsh || isUnfinished(zsh, await syntaxCheck(zsh, typed.line, ["-O", "extglob"])));
}

/** Whether a syntax check failed only because the text ended too soon. */
function isUnfinished(zsh: boolean, check: { exitCode: number | null; errors: string }): boolean {
  if (check.exitCode === 0) return false;
  return zsh
    ? /unmatched|parse error near `\\n'|parse error$/m.test(check.errors)
    : /unexpected EOF while looking for matching|syntax error: unexpected end of file/.test(
      check.errors,
    );
}

/** The shell's own syntax check (`-n`) of `text`: exit code and what it said. */
async function syntaxCheck(
  zsh: boolean,
  text: string,
  options: string[] = [],
): Promise<{ exitCode: number | null; errors: string }> {
  const child = runtime.spawnPiped({
    argv: [zsh ? "zsh" : "bash", ...options, "-n"],
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
