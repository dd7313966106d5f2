/**
 * The runtime shim's core (see `CoreRuntime`): what a short-lived command
 * (`--version`, the session server's subcommands) uses, picked once at
 * start-up without loading the code of PTYs and servers. lib/runtime/mod.ts
 * gives the whole runtime; both share the same functions.
 * @module
 */

import type { CoreRuntime } from "./types.ts";

/** The core of the runtime termbridge is running on. */
export const runtime: CoreRuntime = "Deno" in globalThis
  ? (await import("./deno_core.ts")).denoCore
  : (await import("./bun_core.ts")).bunCore;

export type * from "./types.ts";
export { BrokenPipeError } from "./errors.ts";
