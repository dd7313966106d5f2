/**
 * The JSON-RPC error codes termbridge answers with, in one table: the
 * standard ones of JSON-RPC 2.0 and ACP, and termbridge's own in the range
 * JSON-RPC reserves for servers (-32000 to -32099). README's "Errors" table
 * lists them.
 * @module
 */

/** Every JSON-RPC error code termbridge answers with, by name. */
export const ErrorCode = {
  /** The line is not JSON. */
  parseError: -32700,
  /** JSON that is not a request or notification (null, a number, an array, a null id...). */
  invalidRequest: -32600,
  /** No such method. */
  methodNotFound: -32601,
  /** The params fail validation. */
  invalidParams: -32602,
  /** A defect of termbridge: anything not classified below. */
  internalError: -32603,
  /** The request was cancelled (`$/cancel_request`) or termbridge's input ended first. */
  requestCancelled: -32800,
  /** The terminal or session cannot take the request now, or a wait timed out. */
  notNow: -32001,
  /** Unknown (or released) terminal or session. */
  resourceNotFound: -32002,
  /** The policy refused the command or file ("Denied by policy"). */
  deniedByPolicy: -32003,
  /** No such file or directory. */
  fileNotFound: -32010,
  /** The operating system denied access to the file. */
  permissionDenied: -32011,
  /** The path names a directory (or something else) where a file was expected, or the reverse. */
  wrongKindOfFile: -32012,
  /** The path, or one of its names, is longer than the system allows. */
  nameTooLong: -32013,
  /** termbridge has as many files open as its limit allows (`ulimit -n`). */
  tooManyOpenFiles: -32014,
  /** The answer would be larger than termbridge sends (a file above the read ceiling, a huge reply). */
  tooLarge: -32015,
} as const;

/** The message of a request cancelled (`requestCancelled`) because termbridge's input ended. */
export const INPUT_ENDED = "Request cancelled: termbridge's input ended before it was answered";
