/**
 * The runtime shim: picks the Deno or Bun implementation once, at start-up.
 * @module
 */

import type { Runtime } from "./types.ts";

/** The runtime termbridge is running on. */
export const runtime: Runtime = "Deno" in globalThis
  ? (await import("./deno.ts")).denoRuntime
  : (await import("./bun.ts")).bunRuntime;

export type * from "./types.ts";
export { BrokenPipeError } from "./errors.ts";
export { TooManyOpenFilesError } from "./file_limit.ts";
