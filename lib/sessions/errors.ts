/**
 * Errors of the session API.
 * @module
 */

import { TerminalError } from "../terminal/errors.ts";

/** No session has that name. */
export class SessionNotFoundError extends TerminalError {}

/** A session with that name exists already, or the limit of sessions was reached. */
export class SessionConflictError extends TerminalError {}

/** The session cannot take this request now (a command is running, the shell exited). */
export class SessionBusyError extends TerminalError {}

/** A request to the session API was malformed (bad size, bad regex, bad timeout). */
export class SessionUsageError extends TerminalError {}

/** A session's shell showed no prompt in time (its start-up files, most likely); it was hung up. */
export class SessionStartError extends TerminalError {
  /** What the screen showed when termbridge gave up. */
  readonly screen: string;

  constructor(message: string, screen: string) {
    super(message);
    this.screen = screen;
  }
}
