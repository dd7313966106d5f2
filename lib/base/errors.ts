/**
 * The base of termbridge's own errors, on the ground floor: every room
 * (terminal, config, policy, sandbox, audit, ...) throws its subclasses, and
 * front ends map them to their protocols.
 * @module
 */

/** Base class of every error termbridge throws on purpose. */
export class TerminalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A program could not be started (not found, not executable, bad working directory). */
export class SpawnError extends TerminalError {}
