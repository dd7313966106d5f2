/**
 * The configuration's error, kept free of imports so `main.ts` can map it to
 * its exit code without loading the parser.
 * @module
 */

import { TerminalError } from "../base/errors.ts";

/**
 * A configuration file that cannot be used; the message names the file, the
 * line and column, and the problem. Every mode stops with exit code 2.
 */
export class ConfigError extends TerminalError {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;

  constructor(message: string, where: { file?: string; line?: number; column?: number } = {}) {
    super(message);
    this.file = where.file;
    this.line = where.line;
    this.column = where.column;
  }
}
