/**
 * Showing an ACP conversation: live on a terminal, as plain lines for logs
 * and pipes, or as JSON lines for scripts.
 * @module
 */

import { JsonRenderer } from "./json_renderer.ts";
import { PlainRenderer } from "./plain_renderer.ts";
import { TtyRenderer } from "./tty_renderer.ts";
import type { Renderer, RenderTarget } from "./types.ts";

export type {
  ConversationEvent,
  PermissionDecision,
  PermissionSource,
  Renderer,
  RenderTarget,
} from "./types.ts";
export { JsonRenderer } from "./json_renderer.ts";
export { PlainRenderer } from "./plain_renderer.ts";
export { TtyRenderer, type TtyRendererOptions } from "./tty_renderer.ts";

/** The three ways of showing a conversation. */
export type RenderMode = "json" | "plain" | "tty";

/** Settings of {@linkcode createRenderer}. */
export interface CreateRendererOptions {
  mode: RenderMode;
  target: RenderTarget;
  /** For `"tty"`: colours (default true). */
  color?: boolean;
}

/**
 * Makes the renderer for a mode.
 *
 * @param options The mode, where to write, and for a TTY whether to colour.
 * @returns A renderer; call its `close()` before exiting.
 * @example
 * ```ts
 * const renderer = createRenderer({
 *   mode: chooseRenderMode({ json: false, tty: true, env: { NO_COLOR: "" } }),
 *   target: { write: (text) => process.stdout.write(text), columns: 100 },
 * });
 * ```
 */
export function createRenderer(options: CreateRendererOptions): Renderer {
  switch (options.mode) {
    case "json":
      return new JsonRenderer(options.target);
    case "plain":
      return new PlainRenderer(options.target);
    case "tty":
      return new TtyRenderer(options.target, { color: options.color ?? true });
  }
}

/**
 * The mode for the situation: `--json` wins; a non-TTY stdout or a non-empty
 * `NO_COLOR` (see no-color.org) gives plain text; otherwise a live TTY view.
 */
export function chooseRenderMode(
  options: { json: boolean; tty: boolean; env: Record<string, string | undefined> },
): RenderMode {
  if (options.json) return "json";
  const noColor = options.env.NO_COLOR !== undefined && options.env.NO_COLOR !== "";
  return options.tty && !noColor ? "tty" : "plain";
}
