/**
 * The flood files of the throughput section: written once per run in a temp
 * directory, described by their size and newline count.
 *
 * Lines are assembled as bytes in one reused buffer, so that writing 400 MB
 * leaves no garbage behind to inflate the RSS figures measured afterwards.
 * @module
 */

import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A generated input file. */
export interface FloodFile {
  kind: "plain" | "coloured";
  path: string;
  /** Size in bytes. */
  bytes: number;
  /** Number of `\n` in it (the PTY sends each as `\r\n`). */
  newlines: number;
  /** Share of the bytes that belong to escape sequences, 0..1. */
  escapeShare: number;
}

/** Makes line `n` (ending in `\n`); the returned array may be reused by the next call. */
interface LineSource {
  line(n: number): Uint8Array;
  /** Escape-sequence bytes in line `n`. */
  escapes(n: number): number;
}

const encoder = new TextEncoder();
const BLOCK = 1024 * 1024;
const DIGITS = 9;

/** Plain lines: a 9-digit line number and filler, 99 printable characters and `\n`. */
function plainSource(): LineSource {
  const filler = "the quick brown fox jumps over the lazy dog 0123456789 ".repeat(2);
  const line = encoder.encode(`${"0".repeat(DIGITS)} ${filler}`.slice(0, 99) + "\n");
  return {
    line(n) {
      for (let i = DIGITS - 1; i >= 0; i--, n = Math.floor(n / 10)) line[i] = 0x30 + (n % 10);
      return line;
    },
    escapes: () => 0,
  };
}

/** `ls --color` style: [SGR parameters, or "" for an uncoloured regular file; name suffix]. */
const KINDS: [string, string][] = [
  ["01;34", ""], // directory
  ["", ".txt"], // regular file: no colour
  ["01;32", ".sh"], // executable
  ["01;36", ".so"], // symlink
  ["", ".md"],
  ["01;31", ".tar.gz"], // archive
  ["01;35", ".png"], // image
];

/** Line `n` of an `ls --color` listing, ~100 visible columns, with its escape-byte count. */
function colouredLine(n: number): { text: string; escapes: number } {
  let text = "\x1b[0m";
  let escapes = text.length;
  let visible = 0;
  for (let i = 0; visible < 90; i++) {
    const [sgr, suffix] = KINDS[(n + i) % KINDS.length];
    const name = `f${(n * 7 + i * 13) % 100_000}${suffix}`;
    const separator = visible === 0 ? "" : "  ";
    if (sgr === "") {
      text += separator + name;
    } else {
      text += `${separator}\x1b[${sgr}m${name}\x1b[0m`;
      escapes += sgr.length + 3 + 4;
    }
    visible += separator.length + name.length;
  }
  return { text: `${text}\n`, escapes };
}

/** Coloured lines: a few hundred distinct `ls --color` lines, repeated. */
function colouredSource(): LineSource {
  const variants = Array.from({ length: 997 }, (_, n) => colouredLine(n));
  const lines = variants.map((variant) => encoder.encode(variant.text));
  return {
    line: (n) => lines[n % lines.length],
    escapes: (n) => variants[n % variants.length].escapes,
  };
}

/** Writes lines until the file holds at least `targetBytes`. */
function writeLines(path: string, targetBytes: number, source: LineSource) {
  const fd = openSync(path, "w");
  const block = new Uint8Array(BLOCK);
  let used = 0, bytes = 0, newlines = 0, escapes = 0;
  try {
    for (; bytes < targetBytes; newlines++) {
      const line = source.line(newlines);
      if (used + line.length > BLOCK) {
        writeSync(fd, block, 0, used);
        used = 0;
      }
      block.set(line, used);
      used += line.length;
      bytes += line.length;
      escapes += source.escapes(newlines);
    }
    writeSync(fd, block, 0, used);
  } finally {
    closeSync(fd);
  }
  return { bytes, newlines, escapes };
}

const SOURCES: Record<FloodFile["kind"], () => LineSource> = {
  plain: plainSource,
  coloured: colouredSource,
};

/** Writes flood files of the given kinds, `megabytes` (10^6 bytes) each, in a new temp directory. */
export function writeFloodFiles(
  megabytes: number,
  kinds: FloodFile["kind"][],
): { dir: string; files: FloodFile[] } {
  const dir = mkdtempSync(join(tmpdir(), "termbridge-bench-"));
  const files = kinds.map((kind): FloodFile => {
    const path = join(dir, `${kind}.txt`);
    const { bytes, newlines, escapes } = writeLines(path, megabytes * 1e6, SOURCES[kind]());
    if (statSync(path).size !== bytes) throw new Error(`Cannot write "${path}": size mismatch`);
    return { kind, path, bytes, newlines, escapeShare: escapes / bytes };
  });
  return { dir, files };
}

/** Removes the directory of the flood files. */
export function removeFloodFiles(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Feeds `file` to `sink` in chunks of the file's `chunkSize` bytes, as a PTY
 * would deliver them (every `\n` as `\r\n`, the terminal's `onlcr`), and
 * returns the milliseconds spent inside `sink` only: reading and converting
 * are not counted.
 */
export function feedAsPty(
  file: FloodFile,
  sink: (chunk: Uint8Array) => void,
  chunkSize = 64 * 1024,
): number {
  const input = new Uint8Array(chunkSize);
  const output = new Uint8Array(chunkSize * 2);
  const fd = openSync(file.path, "r");
  let spent = 0;
  try {
    for (let n; (n = readSync(fd, input, 0, chunkSize, null)) > 0;) {
      let length = 0;
      for (let i = 0; i < n; i++) {
        if (input[i] === 0x0a) output[length++] = 0x0d;
        output[length++] = input[i];
      }
      const start = performance.now();
      sink(output.subarray(0, length));
      spent += performance.now() - start;
    }
  } finally {
    closeSync(fd);
  }
  return spent;
}
