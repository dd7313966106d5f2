/**
 * Lines typed into a session with `type` and `key` (not `exec` or `input`,
 * which are checked and audited line by line): a line is sent when Enter
 * (CR or LF) follows typed text. A shell with termbridge's typed-line hook,
 * at its prompt, records the lines it reads itself; any other reader (python3,
 * sh, a nested bash, a REPL) does not, so such a line is recorded here, as
 * `input` records a line sent to a program that is not a shell.
 * @module
 */

/** Escape sequences (cursor keys, function keys): not part of the line's text. */
// deno-lint-ignore no-control-regex -- matching escape sequences is the point
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)?/g;

/** Follows the line being typed and hands over each one sent. */
export class TypedInputAudit {
  readonly #record: (line: string) => void;
  /** The text typed since the last line was sent, with erasures applied. */
  #pending = "";

  /** `record(line)` is called for each line sent that no typed-line hook records. */
  constructor(record: (line: string) => void) {
    this.#record = record;
  }

  /**
   * Notes `input` as typed. `hookReads`: the shell's hook reads (and records)
   * the first line this input ends; lines after it go to whatever runs then.
   */
  typed(input: string, hookReads: boolean): void {
    let first = true;
    for (const char of input.replace(ESCAPE_SEQUENCE, "")) {
      if (char === "\r" || char === "\n") {
        const line = this.#pending;
        this.#pending = "";
        if (line.trim() !== "" && !(first && hookReads)) this.#record(line);
        first = false;
      } else if (char === "\x7f" || char === "\b") {
        this.#pending = [...this.#pending].slice(0, -1).join("");
      } else if (char === "\x03" || char === "\x15") {
        this.#pending = ""; // Ctrl+C, Ctrl+U: the line is abandoned.
      } else if (char === "\t" || char >= " ") {
        this.#pending += char;
      }
    }
  }

  /** Forgets the line being typed (exec and input send, check and record their own lines). */
  reset(): void {
    this.#pending = "";
  }
}
