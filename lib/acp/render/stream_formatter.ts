/**
 * The characters of a transcript: streamed text (agent messages, thoughts,
 * user messages) that may stop mid-line, and whole lines, with a line break
 * wherever one kind of output gives way to another.
 * @module
 */

import type { Style } from "./style.ts";

/** The kinds of streamed text. */
export type StreamKind = "message" | "thought" | "user";

/** Where a transcript writes. */
export interface TranscriptOutput {
  /** Streams text of one kind as it arrives; a change of kind starts a new line. */
  stream(kind: StreamKind, text: string): void;
  /** Writes whole lines (without line feeds), after ending any streamed line. */
  lines(lines: readonly string[]): void;
}

/**
 * Turns streamed text and lines into the characters to write. Each styled
 * piece stops before a line feed, so output can be cut at any line feed
 * without carrying a colour across it.
 *
 * @example
 * ```ts
 * const formatter = new StreamFormatter(PLAIN_STYLE);
 * formatter.stream("thought", "hm"); // "(thinking) hm"
 * formatter.lines(["● Run (execute) pending"]); // "\n● Run (execute) pending\n"
 * ```
 */
export class StreamFormatter {
  readonly #style: Style;
  #kind: StreamKind | undefined;
  #atLineStart = true;
  /** A streamed line was ended by other output: its continuation should not start with a space. */
  #broken = false;

  /** @param style Colours; without colour, thoughts are marked by a prefix instead of dimmed. */
  constructor(style: Style) {
    this.#style = style;
  }

  /** Whether the last character produced ended a line (or nothing was produced). */
  get atLineStart(): boolean {
    return this.#atLineStart;
  }

  /** The characters for a piece of streamed text (sanitized by the caller). */
  stream(kind: StreamKind, text: string): string {
    if (text === "") return "";
    let out = kind === this.#kind ? "" : this.end();
    this.#kind = kind;
    const parts = text.split("\n");
    for (let i = 0; i < parts.length; i++) {
      if (i > 0) {
        out += "\n";
        this.#atLineStart = true;
        this.#broken = false;
      }
      const part = this.#broken ? parts[i].replace(/^[ \t]+/, "") : parts[i];
      if (part === "") continue;
      if (this.#atLineStart) out += this.#prefix(kind);
      out += this.#paint(kind, part);
      this.#atLineStart = false;
      this.#broken = false;
    }
    return out;
  }

  /** The characters for whole lines, after ending any streamed line. */
  lines(lines: readonly string[]): string {
    if (lines.length === 0) return "";
    const out = this.end();
    this.#kind = undefined;
    return out + lines.join("\n") + "\n";
  }

  /** A line feed if a streamed line is unfinished; the next text starts a new stream. */
  end(): string {
    this.#kind = undefined;
    if (this.#atLineStart) return "";
    this.#atLineStart = true;
    this.#broken = true;
    return "\n";
  }

  #prefix(kind: StreamKind): string {
    if (kind === "user") return this.#style.bold("> ");
    if (kind === "thought" && !this.#style.color) return "(thinking) ";
    return "";
  }

  #paint(kind: StreamKind, text: string): string {
    if (kind === "thought") return this.#style.dim(this.#style.italic(text));
    if (kind === "user") return this.#style.bold(text);
    return text;
  }
}
