/**
 * A session's screen as a person sees it: framed, with a label, the cursor
 * marked. Used by `screen` and by every message that shows the screen.
 * @module
 */

import { basename } from "node:path";
import type { Session } from "../sessions/session.ts";
import { TerminalDisposedError } from "../terminal/errors.ts";
import { frame } from "./frame.ts";

/** How to draw. */
export interface ScreenViewOptions {
  /** Include the scrollback. */
  all?: boolean;
  /** Join soft-wrapped lines (the cursor is then not marked). */
  logical?: boolean;
  /** Reverse video for the cursor instead of `█`. */
  styled?: boolean;
}

/** Draws the session's screen in a box; a closed terminal reads "(closed)". */
export function drawScreen(session: Session, options: ScreenViewOptions = {}): string {
  const terminal = session.terminal;
  if (terminal.disposed) return `(session "${session.name}" is closed)`;
  let shot;
  try {
    shot = terminal.screenshot();
  } catch (error) {
    if (error instanceof TerminalDisposedError) return `(session "${session.name}" is closed)`;
    throw error;
  }
  const scope = options.all ? "all" : "visible";
  const lines = terminal.lines({ scope, joinWrapped: options.logical ?? false });
  let cursor: { x: number; y: number } | null = shot.cursor;
  if (options.logical) {
    cursor = null;
  } else if (options.all) {
    const visible = terminal.lines({ scope: "visible" });
    cursor = { x: shot.cursor.x, y: lines.length - visible.length + shot.cursor.y };
  }
  const status = terminal.exitStatus;
  const label = [
    session.name,
    basename(session.program[0]),
    `${shot.dimensions.cols}x${shot.dimensions.rows}`,
    shot.altScreen ? "alternate screen" : "",
    shot.title === "" ? "" : JSON.stringify(shot.title),
    status === null
      ? ""
      : status.signal
      ? `killed by ${status.signal}`
      : `exited with code ${status.exitCode}`,
  ].filter((part) => part !== "").join(" · ");
  return frame(
    {
      lines,
      cols: shot.dimensions.cols,
      rows: options.all ? lines.length : shot.dimensions.rows,
      cursor,
      label,
      note: options.logical
        ? "logical lines, cursor not marked"
        : `cursor ${shot.cursor.x},${shot.cursor.y}`,
    },
    options.styled ?? false,
  );
}

/** A timeout message that shows the framed screen, like the core's `WaitTimeoutError`. */
export function timeoutMessage(
  session: Session,
  what: string,
  timeoutMs: number,
  styled: boolean,
): string {
  return `Timed out after ${timeoutMs} ms waiting for ${what}; the screen shows:\n${
    drawScreen(session, { styled })
  }`;
}
