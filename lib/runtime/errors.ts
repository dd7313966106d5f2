/**
 * Errors of the runtime shim that callers tell apart.
 * @module
 */

/** termbridge's own stdout or stderr was closed by its reader (`termbridge ... | head`). */
export class BrokenPipeError extends Error {
  override name = "BrokenPipeError";

  constructor(stream: "stdout" | "stderr") {
    super(`Cannot write to ${stream}: the reader closed it (broken pipe)`);
  }
}
