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
