/**
 * `attach`: hands the person's keyboard and screen to a session until they
 * press Ctrl+] (as telnet does): raw mode, the session resized to the
 * person's terminal, every input byte passed through, every output byte
 * shown.
 * @module
 */

import { CommandError } from "../console/mod.ts";
import type { Session } from "../sessions/session.ts";
import type { TerminalModes } from "../terminal/terminal.ts";

/** The detach key: Ctrl+] (GS). */
export const DETACH_BYTE = 0x1d;

/** What attach needs from the person's terminal (termbridge's own stdio). */
export interface AttachIo {
  /** termbridge's stdin as a Node stream, not read by anyone else meanwhile. */
  input: {
    on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
    off(event: "data", listener: (chunk: Uint8Array) => void): unknown;
    resume(): unknown;
    pause(): unknown;
  };
  write(data: Uint8Array | string): Promise<void>;
  setRawMode(enabled: boolean): void;
  consoleSize(): { cols: number; rows: number } | null;
  /** Registers a handler for size changes of the person's terminal; returns its remover. */
  onResize(handler: () => void): () => void;
}

/** Mouse tracking modes in DECSET numbers, and their encodings we can mirror. */
const MOUSE_TRACKING = { none: 0, x10: 9, vt200: 1000, drag: 1002, any: 1003 } as const;
const MOUSE_ENCODING: Record<TerminalModes["mouseEncoding"], number> = {
  DEFAULT: 0,
  SGR: 1006,
  SGR_PIXELS: 1016,
};

/**
 * Sets the person's terminal to the program's modes, each one explicitly on
 * or off, so that keys, pastes and mouse reports reach the program as it
 * expects. (Changes made after this pass through with its output.)
 */
function modesSequence(modes: TerminalModes): string {
  const decset = (mode: number, on: boolean) => `\x1b[?${mode}${on ? "h" : "l"}`;
  const tracking = MOUSE_TRACKING[modes.mouseTracking];
  const encoding = MOUSE_ENCODING[modes.mouseEncoding];
  return [
    decset(1, modes.applicationCursorKeys),
    modes.applicationKeypad ? "\x1b=" : "\x1b>",
    decset(2004, modes.bracketedPaste),
    // Resetting any mouse mode turns tracking off (or the encoding to default)
    // in xterm: all off first, then the program's on. The encoding counts on
    // its own: a program may choose it before it turns tracking on.
    ...[9, 1000, 1002, 1003, 1006, 1016].map((mode) => decset(mode, false)),
    ...[tracking, encoding].filter((mode) => mode !== 0).map((mode) => decset(mode, true)),
    decset(1004, modes.sendFocus),
    decset(25, !modes.cursorHidden),
  ].join("");
}

/** Puts the person's terminal back as the REPL wants it (keys, mouse, paste, cursor, colours). */
export const RESET = "\x1b[0m" + modesSequence({
  applicationCursorKeys: false,
  applicationKeypad: false,
  bracketedPaste: false,
  mouseTracking: "none",
  mouseEncoding: "DEFAULT",
  sendFocus: false,
  cursorHidden: false,
});

/**
 * Attaches the person's terminal to `session` until Ctrl+], the program's
 * exit or `signal`; resolves with a line saying how it ended.
 * @throws {CommandError} when the session's program has exited
 */
export async function attachSession(
  session: Session,
  io: AttachIo,
  signal?: AbortSignal,
  options: { readOnly?: boolean } = {},
): Promise<string> {
  const terminal = session.terminal;
  const status = terminal.exitStatus;
  if (status !== null) {
    throw new CommandError(
      `Cannot attach to "${session.name}": its program ${
        status.signal ? `was killed by ${status.signal}` : `exited with code ${status.exitCode}`
      }; "screen" shows what it left`,
    );
  }
  const before = { cols: terminal.cols, rows: terminal.rows };
  const fit = () => {
    const size = io.consoleSize();
    if (size && (size.cols !== terminal.cols || size.rows !== terminal.rows)) {
      session.resize(Math.max(2, size.cols), Math.max(1, size.rows));
    }
  };
  let detach!: (why: string) => void;
  const detached = new Promise<string>((resolve) => detach = resolve);
  const onInput = (chunk: Uint8Array) => {
    const bytes = new Uint8Array(chunk);
    const at = bytes.indexOf(DETACH_BYTE);
    const passed = at === -1 ? bytes : bytes.subarray(0, at);
    if (passed.length > 0 && terminal.exitStatus === null) terminal.write(passed);
    if (at !== -1) detach(`Detached from "${session.name}"`);
    else fit(); // Cheap, and catches a resize the runtime did not report.
  };
  // Raw and listening at once: a cooked terminal would hold Ctrl+] back in its
  // line buffer, and a chunk read while nobody listens can be lost.
  io.setRawMode(true);
  io.input.on("data", onInput);
  io.input.resume();
  const stopResize = io.onResize(fit);
  const onAbort = () => detach(`Detached from "${session.name}": termbridge is stopping`);
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();

  let onAltScreen = false;
  let offset = 0;
  let writing = false;
  let again = false;
  const pump = async () => {
    if (writing) {
      again = true;
      return;
    }
    writing = true;
    try {
      do {
        again = false;
        const log = terminal.rawLog;
        // Fallen behind by more than the raw log keeps (a flood): redraw instead.
        const lost = offset < log.totalBytes - log.byteLength;
        if (lost) onAltScreen = true;
        const bytes = lost ? draw(session, true) : log.since(offset);
        offset = log.totalBytes;
        if (bytes.length > 0) await io.write(bytes);
      } while (again);
    } catch {
      detach("the screen could not be written"); // Our own stdout went away.
    } finally {
      writing = false;
    }
  };
  const onOutput = () => {
    void pump();
    const ended = terminal.exitStatus;
    if (ended === null) return;
    detach(
      `"${session.name}" ${
        ended.signal ? `was killed by ${ended.signal}` : `exited with code ${ended.exitCode}`
      }; detached`,
    );
  };
  let stopOutput = () => {};
  let why: string;
  try {
    await io.write(
      options.readOnly
        ? `Watching "${session.name}" (read-only): what you type is not sent, its size stays ${terminal.cols}x${terminal.rows}. Ctrl+] detaches.\r\n`
        : `Attached to "${session.name}": everything you type goes to it. Ctrl+] detaches.\r\n`,
    );
    fit();
    onAltScreen = terminal.screenshot().altScreen;
    // The picture and the offset after which output is passed on, taken together.
    const picture = draw(session, onAltScreen);
    offset = terminal.rawLog.totalBytes;
    stopOutput = terminal.onChange(onOutput);
    await io.write(picture);
    onOutput(); // What arrived (or ended) while the picture was being written.
    why = await detached;
    await pump();
  } finally {
    signal?.removeEventListener("abort", onAbort);
    io.input.off("data", onInput);
    io.input.pause();
    stopOutput();
    stopResize();
    io.setRawMode(false);
  }
  const leaveAlt = onAltScreen || terminal.screenshot().altScreen;
  await io.write(RESET + (leaveAlt ? "\x1b[?1049l" : "") + "\r\n");
  if (
    terminal.exitStatus === null && (terminal.cols !== before.cols || terminal.rows !== before.rows)
  ) {
    session.resize(before.cols, before.rows);
    return `${why} (size back to ${before.cols}x${before.rows})`;
  }
  return why;
}

/**
 * The session's screen for the person's terminal, with the program's modes. A
 * full-screen program is drawn on the alternate screen at its positions; a
 * shell's lines are printed where the cursor is, so that what comes next
 * follows them.
 */
function draw(session: Session, absolute: boolean): Uint8Array {
  const shot = session.screenshot();
  const lines = session.terminal.lines({ scope: "visible" });
  const { x, y } = shot.cursor;
  let text: string;
  if (absolute) {
    text = `\x1b[?1049h\x1b[H\x1b[2J${lines.join("\r\n")}\x1b[${y + 1};${x + 1}H`;
  } else {
    const shown = lines.slice(0, y + 1);
    while (shown.length < y + 1) shown.push("");
    text = shown.join("\r\n") + "\r" + (x > 0 ? `\x1b[${x}C` : "");
  }
  // Modes first: once the person sees the picture, their keys already go out in the program's modes.
  return new TextEncoder().encode(modesSequence(session.terminal.modes()) + text);
}
