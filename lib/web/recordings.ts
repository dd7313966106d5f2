/**
 * The dashboard's recordings: the asciicast files the session server's
 * sessions made (`new --record`, `record NAME FILE`), listed by number and
 * served by number. A page never names a file: only what the server recorded
 * can be read.
 * @module
 */

import { open, stat } from "node:fs/promises";
import type { SessionManager } from "../sessions/manager.ts";

/** Largest recording served whole (bytes); a longer one is refused with a clear message. */
export const MAX_SERVED = 64 * 1024 * 1024;

/** One recording as the page lists it. */
export interface RecordingRow {
  /** Its number in `/api/recordings/N`. */
  id: number;
  path: string;
  session: string;
  startedAt: number;
  /** Its size now, or null when the file is gone. */
  bytes: number | null;
  /** Whether its session is still recording to it. */
  live: boolean;
}

/** The server's recordings, newest first. */
export async function listRecordings(sessions: SessionManager): Promise<RecordingRow[]> {
  const live = new Set(sessions.list().map((info) => info.recording));
  const rows = await Promise.all(
    sessions.recordings().map(async (recording, id) => ({
      id,
      ...recording,
      bytes: await stat(recording.path).then((info) => info.size, () => null),
      live: live.has(recording.path),
    })),
  );
  return rows.reverse();
}

/**
 * Recording `id`'s text, or an answer saying why not.
 */
export async function readRecording(
  sessions: SessionManager,
  id: string,
): Promise<{ text: string } | { status: number; message: string }> {
  const recording = /^\d{1,6}$/.test(id) ? sessions.recordings()[Number(id)] : undefined;
  if (recording === undefined) {
    return {
      status: 404,
      message: `Cannot find recording ${
        JSON.stringify(id)
      }: /api/recordings lists the ones there are`,
    };
  }
  let file;
  try {
    file = await open(recording.path, "r");
  } catch (error) {
    return {
      status: 410,
      message: `Cannot read the recording "${recording.path}": ${(error as Error).message}`,
    };
  }
  try {
    const { size } = await file.stat();
    if (size > MAX_SERVED) {
      return {
        status: 413,
        message: `Cannot replay "${recording.path}" in the page: it has ${size} bytes, ` +
          `more than ${MAX_SERVED}; play it with asciinema play`,
      };
    }
    return { text: await file.readFile({ encoding: "utf8" }) };
  } finally {
    await file.close();
  }
}
