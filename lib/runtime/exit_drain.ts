/**
 * Reporting an exit only after the output is complete.
 * @module
 */

import type { ExitStatus } from "./types.ts";

/**
 * How long to wait for the end of output after the process exited. The PTY
 * reports end of output once every holder of the slave side closed it; a
 * background job that keeps it open must not hold the exit back for long.
 */
export const OUTPUT_DRAIN_GRACE_MS = 200;

/**
 * Resolves with the exit status once the process exited and its output ended
 * (or the grace period after exit passed), so that the last bytes a program
 * printed are delivered before its exit is reported.
 */
export async function afterExit(
  status: Promise<ExitStatus>,
  outputEnded: Promise<void>,
): Promise<ExitStatus> {
  const result = await status;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((resolve) => timer = setTimeout(resolve, OUTPUT_DRAIN_GRACE_MS));
  await Promise.race([outputEnded, grace]);
  clearTimeout(timer);
  return result;
}
