/**
 * Recording a terminal as an asciicast v2 file (what `asciinema play` reads):
 * a JSON header line, then one `[seconds, code, data]` line per event.
 * @module
 */

import { closeSync, openSync, writeSync } from "node:fs";

/** What an asciicast header records about the terminal. */
export interface CastHeader {
  cols: number;
  rows: number;
  title?: string;
  env?: Record<string, string>;
}

/** Writes one asciicast v2 file; every event is written as it happens. */
export class CastRecorder {
  readonly path: string;
  readonly #fd: number;
  readonly #start = performance.now();
  readonly #decoder = new TextDecoder();
  #closed = false;

  /** Creates (or replaces) `path` and writes the header. */
  constructor(path: string, header: CastHeader) {
    this.path = path;
    this.#fd = openSync(path, "w");
    const head: Record<string, unknown> = {
      version: 2,
      width: header.cols,
      height: header.rows,
      timestamp: Math.floor(Date.now() / 1000),
    };
    if (header.title) head.title = header.title;
    if (header.env) head.env = header.env;
    this.#line(head);
  }

  /** Output bytes of the program (decoded as a stream: split characters survive). */
  output(bytes: Uint8Array): void {
    const text = this.#decoder.decode(bytes, { stream: true });
    if (text !== "") this.#event("o", text);
  }

  /** Input sent to the program. */
  input(text: string): void {
    this.#event("i", text);
  }

  /** A change of size. */
  resize(cols: number, rows: number): void {
    this.#event("r", `${cols}x${rows}`);
  }

  /** Finishes the file. */
  close(): void {
    if (this.#closed) return;
    const rest = this.#decoder.decode();
    if (rest !== "") this.#event("o", rest);
    this.#closed = true;
    closeSync(this.#fd);
  }

  #event(code: "o" | "i" | "r", data: string): void {
    if (this.#closed) return;
    const seconds = Math.round(performance.now() - this.#start) / 1000;
    this.#line([seconds, code, data]);
  }

  #line(value: unknown): void {
    writeSync(this.#fd, JSON.stringify(value) + "\n");
  }
}
