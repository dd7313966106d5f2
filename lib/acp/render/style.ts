/**
 * Colours and emphasis for the human renderers: ANSI SGR sequences, or
 * nothing at all for plain text.
 * @module
 */

/** Wraps text in one kind of emphasis; the plain style returns it unchanged. */
export type Paint = (text: string) => string;

/** The emphasis a renderer may use. */
export interface Style {
  /** Whether this style adds escape sequences. */
  readonly color: boolean;
  readonly bold: Paint;
  readonly dim: Paint;
  readonly italic: Paint;
  readonly red: Paint;
  readonly green: Paint;
  readonly yellow: Paint;
  readonly cyan: Paint;
}

const same: Paint = (text) => text;

/** Text exactly as given, for logs, pipes and `NO_COLOR`. */
export const PLAIN_STYLE: Style = {
  color: false,
  bold: same,
  dim: same,
  italic: same,
  red: same,
  green: same,
  yellow: same,
  cyan: same,
};

/** A paint that sets SGR `on` and restores with SGR `off`; empty text stays empty. */
function sgr(on: number, off: number): Paint {
  return (text) => text === "" ? "" : `\x1b[${on}m${text}\x1b[${off}m`;
}

/** ANSI SGR colours and emphasis, for a terminal. */
export const ANSI_STYLE: Style = {
  color: true,
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  italic: sgr(3, 23),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
};
