/**
 * Claude Code's settings as claude-agent-acp takes them: from
 * `_meta.claudeCode.options.settings` of `session/new` (the Claude Agent
 * SDK's options, which hand the settings to the Claude Code CLI).
 *
 * A repository is untrusted input: Claude Code would load its
 * `.claude/settings.json` and `.claude/settings.local.json` (hooks of its
 * own, `disableAllHooks`, allow rules, `env` such as `BASH_ENV` for every
 * command and hook) and start the servers of its `.mcp.json`, commands no
 * policy checks. {@linkcode userSettingsOnly} keeps to the user's own
 * settings (`~/.claude/settings.json`); the price is the project's
 * CLAUDE.md, skills, commands and agents, which Claude Code loads with the
 * same source.
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
  return withClaudeOptions(
    meta,
    (options) => ({ ...options, settings: edit(fields(options.settings)) }),
  );
}

/** `meta` with `claudeCode.options` replaced by what `edit` makes of it; the rest as it was. */
function withClaudeOptions(meta: Fields, edit: (options: Fields) => Fields): Fields {
  const claudeCode = fields(meta.claudeCode);
  return { ...meta, claudeCode: { ...claudeCode, options: edit(fields(claudeCode.options)) } };
}

/** The only Claude Code settings source termbridge lets claude-agent-acp load: the user's own. */
export const CLAUDE_SETTING_SOURCES: readonly string[] = ["user"];

/**
 * `meta` with `claudeCode.options.settingSources` set to
 * {@linkcode CLAUDE_SETTING_SOURCES} (claude-agent-acp's default loads the
 * project's and local settings as well); everything else stays as it was.
 */
export function userSettingsOnly(meta: Fields): Fields {
  return withClaudeOptions(
    meta,
    (options) => ({ ...options, settingSources: [...CLAUDE_SETTING_SOURCES] }),
  );
}
