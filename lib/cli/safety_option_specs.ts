/**
 * The options every mode shares for configuration, audit and policy, and
 * their lines in each mode's `--help`: only their definitions, light to load
 * (safety_options.ts opens what they ask for).
 * @module
 */

/** parseArgs definitions of the shared options. */
export const SAFETY_OPTIONS = {
  config: { type: "string" },
  audit: { type: "string" },
  "no-audit": { type: "boolean" },
  policy: { type: "string" },
} as const;

/** parseArgs definitions of `--yes` and `--no` (modes that answer asks by flag). */
export const ANSWER_OPTIONS = {
  yes: { type: "boolean" },
  no: { type: "boolean" },
} as const;

/** parseArgs definition of `--start-timeout` (modes that open sessions). */
export const SESSION_OPTIONS = {
  "start-timeout": { type: "string" },
} as const;

/** The help lines of {@linkcode SESSION_OPTIONS}. */
export const SESSION_HELP =
  `  --start-timeout S      seconds a new session's shell may take to show its first prompt
                         (its start-up files run first; default: shellStartTimeout, else 10)`;

/** The help lines of the shared options. */
export const SAFETY_HELP =
  `  --config FILE          a termbridge.jsonc (default: ./termbridge.jsonc if present, over
                         $XDG_CONFIG_HOME/termbridge/termbridge.jsonc; see "termbridge config")
  --audit FILE           append the audit log to FILE (default: audit.path, else
                         $XDG_STATE_HOME/termbridge/audit.jsonl)
  --no-audit             keep no audit log
  --policy off           without the shipped default policy (the config's rules still apply)`;

/**
 * Help lines of long-only options moved right under the long names of a help
 * whose options have short forms (`  -p, --prompt TEXT`), the summaries kept
 * in their column.
 */
export function underShortOptions(lines: string): string {
  return lines.replace(/^ {2}(--\S+(?: \S+)?) {4}/gm, "      $1");
}

/** The help lines of `--yes` and `--no`, with what this mode does without them. */
export function answerHelp(otherwise: string): string {
  return `  --yes                  approve every command the policy asks about
  --no                   refuse every command the policy asks about
                         (neither: ${otherwise})`;
}
