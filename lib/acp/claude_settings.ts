/**
 * Claude Code's settings as claude-agent-acp takes them: from
 * `_meta.claudeCode.options.settings` of `session/new` (the Claude Agent
 * SDK's options, which hand the settings to the Claude Code CLI).
 * @module
 */

/** A JSON object of unknown shape. */
export type Fields = Record<string, unknown>;

/** `value` when it is a JSON object, else an empty one. */
export function fields(value: unknown): Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Fields
    : {};
}

/**
 * `meta` (a `session/new` `_meta`) with `claudeCode.options.settings`
 * replaced by what `edit` makes of it (the settings it had, or `{}`);
 * everything else in `meta`, `claudeCode` and `options` stays as it was.
 * @example
 * ```ts
 * withClaudeSettings({}, (settings) => ({ ...settings, model: "x" }));
 * // { claudeCode: { options: { settings: { model: "x" } } } }
 * ```
 */
export function withClaudeSettings(meta: Fields, edit: (settings: Fields) => Fields): Fields {
  const claudeCode = fields(meta.claudeCode);
  const options = fields(claudeCode.options);
  return {
    ...meta,
    claudeCode: {
      ...claudeCode,
      options: { ...options, settings: edit(fields(options.settings)) },
    },
  };
}
