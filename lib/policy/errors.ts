/**
 * The policy's own error: a rule or setting that cannot be used, or a parser
 * that cannot be loaded. Its message is meant for the user.
 * @module
 */

import { TerminalError } from "../base/errors.ts";

/** A policy that cannot be built or used; the message says what was wrong and what would be right. */
export class PolicyError extends TerminalError {}
