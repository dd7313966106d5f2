/**
 * A live terminal as an asciicast v2 stream (what `asciinema cat`, `asciinema
 * play` and asciinema-player read): a header line with the terminal's size,
 * the screen as it is now (scrollback and all, as one output event at 0),
 * then one `[seconds, "o", text]` line per chunk of output as it comes and a
 * `[seconds, "r", "COLSxROWS"]` line per resize, until the program exits.
 *
 * Each event's time is when the output reached termbridge, not when the
 * reader took it. Flow control: nothing is queued for a slow reader beyond
 * the stream's small buffer: the bytes stay in the terminal's bounded log,
 * and a reader that falls more than `maxBehind` bytes behind (or behind what
 * the log still holds) gets a reset and a fresh picture of the screen
 * (`"\u001bc"` then the snapshot, in one output event) instead of what it
 * missed.
 * @module
 */

import type { Terminal } from "../terminal/terminal.ts";
import { castHeader } from "./recorder.ts";

/** How a live cast is made. */
export interface LiveCastOptions {
  /** Scrollback lines the first picture (and a resync's) carries. */
  scrollback?: number;
  /** How far (bytes) a reader may fall behind before it gets a fresh picture. */
  maxBehind?: number;
  /** The header's title. */
  title?: string;
  /** The header's env (SHELL, TERM). */
  env?: Record<string, string>;
  /** Called once when the stream ends (the program exited, the reader left, or `close`). */
  onEnd?: () => void;
}

/** Bytes the stream holds for its reader before it stops taking events. */
const HIGH_WATER = 64 * 1024;

/** Events waiting for a slow reader beyond which it gets a fresh picture instead. */
const MAX_PENDING = 4096;

/** Something that happened, waiting to be sent. */
type Pending = { at: number; end: number } | { at: number; cols: number; rows: number };

/** A live asciicast of `terminal`, and a way to end it from outside. */
export interface LiveCast {
  /** The asciicast's lines, UTF-8. Cancelling it stops following the terminal. */
  readonly stream: ReadableStream<Uint8Array>;
  /** Ends the stream (the server stops): what was sent stays a valid asciicast. */
  close(): void;
}

/**
 * Follows `terminal` from now on as an asciicast v2 stream.
 * @throws {Error} when the terminal was disposed (its session closed)
 * @example
 * const { stream } = liveCast(session.terminal, { title: "build" });
 * for await (const chunk of stream) Deno.stdout.write(chunk);
 */
export function liveCast(terminal: Terminal, options: LiveCastOptions = {}): LiveCast {
  const scrollback = options.scrollback ?? 1000;
  const maxBehind = options.maxBehind ?? 512 * 1024;
  const encoder = new TextEncoder();
  const start = performance.now();
  const seconds = () => Math.round((performance.now() - start) * 1000) / 1e6;
  const first = terminal.snapshot(scrollback);
  let offset = first.offset;
  let size = { cols: first.cols, rows: first.rows };
  let decoder = new TextDecoder();
  let pending: Pending[] = [];
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let done = false;
  const line = (value: unknown) => controller.enqueue(encoder.encode(JSON.stringify(value) + "\n"));

  const resync = () => {
    const shot = terminal.snapshot(scrollback);
    const at = seconds();
    if (shot.cols !== size.cols || shot.rows !== size.rows) {
      size = { cols: shot.cols, rows: shot.rows };
      line([at, "r", `${size.cols}x${size.rows}`]);
    }
    line([at, "o", "\u001bc" + shot.data]);
    offset = shot.offset;
    decoder = new TextDecoder();
    pending = [];
  };

  /** Sends what is pending, as far as the reader takes it; ends after the program's exit. */
  const flush = () => {
    if (done) return;
    if (terminal.disposed) return finish();
    while (pending.length > 0 && (controller.desiredSize ?? 0) > 0) {
      const event = pending.shift()!;
      if ("cols" in event) {
        if (event.cols === size.cols && event.rows === size.rows) continue;
        size = { cols: event.cols, rows: event.rows };
        line([event.at, "r", `${size.cols}x${size.rows}`]);
        continue;
      }
      const log = terminal.rawLog;
      if (offset < log.totalBytes - log.byteLength || log.totalBytes - offset > maxBehind) {
        resync(); // Fell too far behind: a picture instead of the bytes.
        continue;
      }
      if (event.end <= offset) continue;
      const bytes = log.since(offset).subarray(0, event.end - offset);
      offset = event.end;
      const text = decoder.decode(bytes, { stream: true });
      if (text !== "") line([event.at, "o", text]);
    }
    if (pending.length === 0 && terminal.exitStatus !== null) finish();
  };

  const onOutput = () => {
    if (done) return;
    const end = terminal.rawLog.totalBytes;
    const last = pending.at(-1);
    const seen = last !== undefined && "end" in last ? last.end : offset;
    if (end > seen) pending.push({ at: seconds(), end });
    if (pending.length > MAX_PENDING) {
      // A reader this slow gets the screen as it is once it reads again.
      pending = [{ at: seconds(), end }];
      offset = -1;
    }
    flush();
  };
  const onResize = (cols: number, rows: number) => {
    if (done) return;
    pending.push({ at: seconds(), cols, rows });
    flush();
  };
  const stops = [terminal.onChange(onOutput), terminal.onResize(onResize)];

  const stop = () => {
    done = true;
    for (const remove of stops) remove();
    options.onEnd?.();
  };

  function finish(): void {
    if (done) return;
    stop();
    const rest = decoder.decode();
    if (rest !== "") line([seconds(), "o", rest]);
    controller.close();
  }

  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      line(
        castHeader({ cols: first.cols, rows: first.rows, title: options.title, env: options.env }),
      );
      line([0, "o", first.data]);
      // Output that came meanwhile (none: this runs at once) or an exit already seen.
      queueMicrotask(onOutput);
    },
    pull: () => flush(),
    cancel: () => {
      if (!done) stop();
    },
  }, new ByteLengthQueuingStrategy({ highWaterMark: HIGH_WATER }));
  return {
    stream,
    close: () => {
      try {
        finish();
      } catch {
        // Cancelled by its reader already.
      }
    },
  };
}
