/**
 * What a Terminal's JavaScript thread spends per MB of a flood, by the size
 * of the chunks it is handed: the raw log, the plain-text stream into the
 * text log, and the emulator, exactly as `Terminal` does for each chunk, fed
 * from a file without a PTY, each chunk marked as flooding as the PTY reader
 * marks it (CPU time of this thread, so another process on
 * the machine shows less in it than in a wall-clock rate).
 * @module
 */

import { FLOODING } from "../lib/runtime/pty_reader.ts";
import { Emulator } from "../lib/terminal/emulator.ts";
import { OutputLog } from "../lib/terminal/output_log.ts";
import { TERMINAL_DEFAULTS } from "../lib/terminal/terminal.ts";
import { PlainTextStream } from "../lib/terminal/text_stream.ts";
import { feedAsPty, type FloodFile } from "./_inputs.ts";

/** CPU milliseconds per MB (10^6 bytes of the file) spent on `file` handed over in `chunkSize` chunks. */
export function chunkCost(
  file: FloodFile,
  chunkSize: number,
  size: { cols: number; rows: number },
) {
  const raw = new OutputLog(TERMINAL_DEFAULTS.rawLimit);
  const text = new OutputLog(TERMINAL_DEFAULTS.outputLimit);
  const plain = new PlainTextStream();
  const emulator = new Emulator({ ...size, scrollback: TERMINAL_DEFAULTS.scrollback });
  try {
    let cpuUs = 0; // inside the sink only: not the file's reading and CR LF conversion
    feedAsPty(file, (chunk) => {
      const before = process.cpuUsage();
      raw.append(chunk);
      plain.pushInto(chunk, text);
      emulator.write(chunk, chunk.length >= FLOODING);
      plain.takeOscMarks();
      const used = process.cpuUsage(before);
      cpuUs += used.user + used.system;
    }, chunkSize);
    return {
      msPerMb: cpuUs / 1000 / (file.bytes / 1e6),
      skipped: emulator.skippedBytes / (file.bytes + file.newlines),
    };
  } finally {
    emulator.dispose();
  }
}
