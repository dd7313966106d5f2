/**
 * Terminal MCP's session and recording tools, with its names, parameters and
 * results, so that an agent prompted for Terminal MCP finds what it knows:
 * `createSession`, `destroySession`, `startRecording`, `stopRecording`.
 * termbridge's own `openSession` and `closeSession` do the same with names.
 * @module
 */

import * as z from "zod";
import { json, SESSION, sessionName, tool } from "./tool.ts";

const size = (what: string, min: number) =>
  z.number().int().min(min).max(1000).optional().describe(what);

/** The tools, in the order `tools/list` shows them after termbridge's own. */
export const UPSTREAM_TOOLS = [
  tool({
    name: "createSession",
    description: "Create a new terminal session running a shell. Returns a session ID to give " +
      "other tools as sessionId (or session). Use several to run things side by side.",
    schema: z.strictObject({
      shell: z.string().min(1).optional().describe("Shell to use (default: the user's shell)"),
      cols: size("Terminal width in columns (default 120)", 2),
      rows: size("Terminal height in rows (default 40)", 1),
    }),
    writes: true,
    run: async (sessions, args) => json(await sessions.create(args)),
  }),
  tool({
    name: "destroySession",
    description: "Destroy a terminal session: its shell and everything it started are killed.",
    schema: z.strictObject({
      sessionId: z.string().min(1).max(64).describe("The session ID to destroy"),
    }),
    writes: true,
    run: async (sessions, { sessionId }) => json(await sessions.destroy(sessionId)),
  }),
  tool({
    name: "startRecording",
    description: "Start recording a session's terminal to an asciicast v2 file (asciinema " +
      "play replays it). Returns the recording ID and the file's path. A session records to " +
      "one file at a time.",
    schema: z.strictObject({
      format: z.enum(["v2"]).optional().describe("Recording format: v2 (asciicast v2, default)"),
      mode: z.enum(["always", "on-failure"]).optional().describe(
        "always keeps the file (default); on-failure keeps it only if the program exited non-zero",
      ),
      outputDir: z.string().min(1).optional().describe(
        "Directory of the file (default: --record DIR, else ~/.local/state/termbridge/recordings)",
      ),
      idleTimeLimit: z.number().min(0).optional().describe(
        "Longest pause when replayed, seconds (idle_time_limit in the file's header)",
      ),
      maxDuration: z.number().min(0).optional().describe("Stop after this many seconds"),
      inactivityTimeout: z.number().min(0).optional().describe(
        "Stop after this many seconds without output",
      ),
      ...SESSION,
    }),
    writes: true,
    run: async (sessions, args) => {
      const session = await sessions.live(sessionName(args));
      return json(sessions.recordings.start(session, args));
    },
  }),
  tool({
    name: "stopRecording",
    description: "Stop a recording and finish its file. Returns the path, the duration, the " +
      "bytes written and whether the file was kept.",
    schema: z.strictObject({
      recordingId: z.string().min(1).describe("The recording ID startRecording returned"),
    }),
    writes: true,
    run: (sessions, { recordingId }) => json(sessions.recordings.stop(recordingId)),
  }),
];
