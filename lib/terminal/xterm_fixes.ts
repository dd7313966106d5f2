/**
 * Fixes of xterm.js bugs that a program's output can reach (the version of
 * `@xterm/headless` is pinned; each fix checks that what it replaces is
 * there, and leaves xterm as it is otherwise).
 * @module
 */

/** A line of xterm's buffer, as far as the fix touches it. */
interface WrappedLine {
  isWrapped: boolean;
}

/** xterm's `InputHandler`, as far as erasing in the display touches it. */
interface EraseHandler {
  eraseInDisplay(params: { params: ArrayLike<number> }, respectProtect?: boolean): boolean;
  _activeBuffer: {
    x: number;
    y: number;
    ybase: number;
    lines: { get(index: number): WrappedLine | undefined };
  };
  _bufferService: { cols: number };
  _dirtyRowTracker: { markDirty(y: number): void };
  _restrictCursor(cols: number): void;
  _eraseInBufferLine(
    y: number,
    start: number,
    end: number,
    clearWrap: boolean,
    respectProtect: boolean,
  ): void;
  _resetBufferLine(y: number, respectProtect: boolean): void;
}

/**
 * xterm 6.0's ED 1 (`ESC [ 1 J`, erase from the top to the cursor) with the
 * cursor in the last column unwraps the line below the cursor, but finds it
 * by its row on the screen without the scrollback above: another line when
 * there is scrollback, and none at all on the bottom row of a screen without
 * (the alternate screen, or a terminal that has not scrolled yet), where it
 * threw a TypeError out of the parser. `printf '\e[999;999H\e[1J'` stopped
 * the reading of every terminal of a termbridge process that way. Here the
 * line below is found as xterm.js's own later fix does (PR #5995), and left
 * alone when there is none; other ED requests go to xterm's handler.
 */
function fixEraseAbove(handler: unknown): void {
  const h = handler as Partial<EraseHandler>;
  const needed = [
    h.eraseInDisplay,
    h._restrictCursor,
    h._eraseInBufferLine,
    h._resetBufferLine,
    h._dirtyRowTracker?.markDirty,
  ];
  if (needed.some((method) => typeof method !== "function")) return;
  const fixed = h as EraseHandler;
  const erase = fixed.eraseInDisplay.bind(fixed);
  fixed.eraseInDisplay = (params, respectProtect = false) => {
    if (params.params[0] !== 1) return erase(params, respectProtect);
    const buffer = fixed._activeBuffer;
    const cols = fixed._bufferService.cols;
    fixed._restrictCursor(cols);
    let y = buffer.y;
    fixed._dirtyRowTracker.markDirty(y);
    fixed._eraseInBufferLine(y, 0, buffer.x + 1, true, respectProtect);
    if (buffer.x + 1 >= cols) {
      const below = buffer.lines.get(buffer.ybase + y + 1);
      if (below !== undefined) below.isWrapped = false;
    }
    while (y--) fixed._resetBufferLine(y, respectProtect);
    fixed._dirtyRowTracker.markDirty(0);
    return true;
  };
}

/** xterm's active buffer, as far as filling its screen touches it. */
interface ScreenBuffer {
  ybase: number;
  ydisp: number;
  lines: { length: number; maxLength: number; push(line: unknown): void };
  getBlankLine(attributes: undefined): unknown;
}

/**
 * xterm 6.0's resize can leave the alternate screen with fewer lines than
 * the screen has rows (it keeps a scrollback of its own when it was first
 * made taller than it is used, and growing it again loses track): the next
 * line feed on a missing row threw a TypeError out of the parser (a
 * full-screen program's output after two resizes). After a resize, blank
 * lines are added at the bottom until every row of the screen has one, as
 * a taller screen shows them.
 */
export function fillScreenRows(buffer: unknown, rows: number): void {
  const b = buffer as Partial<ScreenBuffer>;
  const lines = b.lines;
  if (lines === undefined || typeof b.getBlankLine !== "function" || b.ybase === undefined) return;
  while (lines.length < b.ybase + rows && lines.length < lines.maxLength) {
    lines.push(b.getBlankLine(undefined));
  }
  if (lines.length < b.ybase + rows) b.ybase = b.ydisp = Math.max(0, lines.length - rows);
}

/** xterm's core, as far as bounding the counts of CSI requests touches it. */
interface CountsCore {
  registerCsiHandler(
    id: { final: string; intermediates?: string },
    handler: (params: { length: number; params: Int32Array }) => boolean,
  ): unknown;
  _bufferService: { cols: number; rows: number; buffer: { lines: { maxLength: number } } };
}

/**
 * xterm 6.0 does some CSI requests once per unit of their count, however
 * large: `ESC [ 2147483647 L` (insert lines; also M, S, T, and the tab moves
 * I and Z) held the parser, and every terminal of the process, for half an
 * hour, and REP (`b`) made a buffer of the count's size (out of memory on
 * Bun, gigabytes on Deno). Counts past what can change the screen are
 * brought down first, leaving the same screen: lines to the rows, tab moves
 * to the columns, and REP to enough characters to fill the screen and the
 * scrollback, keeping where the last one lands (the count modulo a whole
 * number of rows of narrow or wide characters). xterm's own handlers then
 * run as usual.
 */
function boundCounts(core: unknown): void {
  const c = core as Partial<CountsCore>;
  if (typeof c.registerCsiHandler !== "function" || c._bufferService === undefined) return;
  const service = c._bufferService;
  const bound = (final: string, limit: (count: number) => number) => {
    c.registerCsiHandler!({ final }, (params) => {
      const count = params.params[0];
      if (params.length > 0 && count > 1) params.params[0] = limit(count);
      return false; // xterm's handler runs next.
    });
  };
  for (const final of ["L", "M", "S", "T"]) bound(final, (n) => Math.min(n, service.rows));
  for (const final of ["I", "Z"]) bound(final, (n) => Math.min(n, service.cols));
  bound("b", (n) => {
    const cols = service.cols;
    const fill = (service.buffer.lines.maxLength + 2) * cols;
    const period = cols * Math.max(1, Math.floor(cols / 2));
    return n <= fill ? n : fill + ((n - fill) % period);
  });
}

/**
 * xterm 6.0 keeps every OSC 8 hyperlink it parses, with a marker on its line,
 * until the line leaves the scrollback: a program redrawing a link in place
 * 50,000 times (2 MB of output) added 217 MB, and each later line feed then
 * walked every marker (1,100 line feeds: 0.8 s). termbridge reads text,
 * cursor and colours from its emulator, never links (xterm's serializer,
 * which writes ANSI screenshots and the browser view's starting snapshot,
 * writes none; the output after it reaches the page's own xterm.js whole),
 * so OSC 8 is taken and dropped here; the linked text shows.
 */
function dropLinks(core: unknown): void {
  const c = core as { registerOscHandler?(id: number, handler: () => boolean): unknown };
  c.registerOscHandler?.(8, () => true);
}

/** Applies the fixes above that hold for a terminal's life to xterm's core (`term._core`). */
export function fixXterm(core: unknown): void {
  fixEraseAbove((core as { _inputHandler?: unknown })._inputHandler);
  boundCounts(core);
  dropLinks(core);
}

/**
 * What a resize of xterm needs before it: both screens' circular line lists
 * start at their first slot. xterm 6.0's re-wrap on a narrowing resize
 * depends on where the list starts (how many lines have scrolled through
 * it), so output whose lines were skipped (see `linesToSkip`) re-wrapped
 * differently from the same output parsed whole (a row more or less).
 */
export function beforeResize(core: unknown): void {
  const buffers = (core as { buffers?: { normal: unknown; alt: unknown } }).buffers;
  for (const buffer of [buffers?.normal, buffers?.alt]) {
    const lines = (buffer as Partial<ScreenBuffer> | undefined)?.lines;
    if (lines === undefined) continue;
    // Setting a new maximum copies the lines in order into a list that starts at slot 0.
    const max = lines.maxLength;
    lines.maxLength = max + 1;
    lines.maxLength = max;
  }
}

/**
 * What a resize of xterm needs after it: both screens get a line for every
 * row (the one not shown is used again later, when a full-screen program ends).
 */
export function afterResize(core: unknown, rows: number): void {
  const buffers = (core as { buffers?: { normal: unknown; alt: unknown } }).buffers;
  fillScreenRows(buffers?.normal, rows);
  fillScreenRows(buffers?.alt, rows);
}

/**
 * What disposing of xterm needs before it: a resize to fewer columns leaves
 * each screen a timer that trims its lines' memory later, which xterm 6.0's
 * dispose does not cancel; it is cancelled here (a disposed terminal's lines
 * need no trimming, and no timer of its own should outlive it).
 */
export function beforeDispose(core: unknown): void {
  const buffers = (core as { buffers?: { normal: unknown; alt: unknown } }).buffers;
  for (const buffer of [buffers?.normal, buffers?.alt]) {
    (buffer as { _memoryCleanupQueue?: { clear(): void } } | undefined)?._memoryCleanupQueue
      ?.clear();
  }
}
