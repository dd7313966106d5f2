/**
 * The `_meta` terminal extensions some agents put on `tool_call` and
 * `tool_call_update` to stream a command's output without client terminals:
 * `terminal_info`, `terminal_output`, `terminal_output_delta`, `terminal_exit`.
 * Read tolerantly: snake_case or camelCase, missing or odd fields skipped.
 * @module
 */

/** One terminal extension found in a `_meta` object. */
export type TerminalMeta =
  | { kind: "info"; terminalId: string; cwd?: string; command?: string }
  | { kind: "output"; terminalId: string; data: string }
  | { kind: "exit"; terminalId: string; exitCode: number | null; signal: string | null };

type Fields = Record<string, unknown>;

function record(value: unknown): Fields | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Fields
    : undefined;
}

/** The first of `names` present in `fields` (snake_case, then camelCase). */
function field(fields: Fields, ...names: string[]): unknown {
  for (const name of names) {
    if (fields[name] !== undefined && fields[name] !== null) return fields[name];
  }
  return undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

function terminalId(fields: Fields, fallback: string): string {
  return text(field(fields, "terminal_id", "terminalId", "id")) ?? fallback;
}

/** Normalises a signal to its `SIG` name: `"TERM"`, `"sigterm"` -> `"SIGTERM"`; numbers stay as they are. */
function signalName(value: unknown): string | null {
  const name = text(value);
  if (name === undefined || name === "") return null;
  if (/^\d+$/.test(name)) return name;
  const upper = name.toUpperCase();
  return upper.startsWith("SIG") ? upper : `SIG${upper}`;
}

/**
 * The terminal extensions in a `_meta` object, in the order info, output,
 * output delta, exit. Never throws; anything unexpected is skipped.
 *
 * @param meta The `_meta` of a tool call or tool call update (any value).
 * @param fallbackId The id to use when an extension names no terminal (the tool call id).
 * @returns The extensions found, possibly none.
 * @example
 * ```ts
 * readTerminalMeta({ terminal_output_delta: { terminal_id: "t1", data: "hi\n" } }, "call-1");
 * // [{ kind: "output", terminalId: "t1", data: "hi\n" }]
 * ```
 */
export function readTerminalMeta(meta: unknown, fallbackId: string): TerminalMeta[] {
  const fields = record(meta);
  if (fields === undefined) return [];
  const found: TerminalMeta[] = [];
  const info = record(field(fields, "terminal_info", "terminalInfo"));
  if (info !== undefined) {
    const cwd = text(field(info, "cwd"));
    const command = text(field(info, "command"));
    found.push({
      kind: "info",
      terminalId: terminalId(info, fallbackId),
      ...(cwd === undefined ? {} : { cwd }),
      ...(command === undefined ? {} : { command }),
    });
  }
  for (
    const names of [["terminal_output", "terminalOutput"], [
      "terminal_output_delta",
      "terminalOutputDelta",
    ]]
  ) {
    const output = record(field(fields, ...names));
    const data = output === undefined ? undefined : text(field(output, "data", "output", "text"));
    if (output !== undefined && data !== undefined) {
      found.push({ kind: "output", terminalId: terminalId(output, fallbackId), data });
    }
  }
  const exit = record(field(fields, "terminal_exit", "terminalExit"));
  if (exit !== undefined) {
    const code = field(exit, "exit_code", "exitCode", "code");
    found.push({
      kind: "exit",
      terminalId: terminalId(exit, fallbackId),
      exitCode: typeof code === "number" && Number.isFinite(code) ? code : null,
      signal: signalName(field(exit, "signal")),
    });
  }
  return found;
}

/** "Exit code 2" (Claude Code's Bash errors), "exit status 1", "exited with code 3". */
const EXIT_CODE_TEXT = /\bexit(?:ed with)?(?: code| status)?:? (\d{1,3})\b/i;

/**
 * The exit code a failed command's text states (Claude Code reports a
 * failing Bash only as "Exit code 3 ..."), if it states one.
 * @example
 * ```ts
 * exitCodeInText("Exit code 3\nboom"); // 3
 * ```
 */
export function exitCodeInText(text: string): number | undefined {
  const match = text.match(EXIT_CODE_TEXT);
  return match === null ? undefined : Number(match[1]);
}

/**
 * A command as people read it: the line; an argv's words, quoted where
 * needed; a shell's `-c`/`-lc` line shown as the line itself (codex-acp
 * reports `["/bin/bash", "-lc", "make"]`).
 * @example
 * ```ts
 * commandText({ argv: ["/bin/bash", "-lc", "echo hi"] }); // "echo hi"
 * ```
 */
export function commandText(command: { line?: string; argv?: string[] }): string {
  if (command.line !== undefined) return command.line;
  const argv = command.argv ?? [];
  if (
    argv.length === 3 && /(^|\/)(ba|z|da|k)?sh$/.test(argv[0]) && /^-l?c$|^-cl$/.test(argv[1])
  ) {
    return argv[2];
  }
  return argv.map((a) => /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)
    .join(" ");
}
