/**
 * Waiting on a terminal for what a person would watch for: text appearing
 * or disappearing, the screen going quiet, the prompt coming back, the
 * program exiting. Every wait resolves on events, never on a polling timer.
 * @module
 */

import { timerMs } from "../base/timing.ts";
import { WaitTimeoutError } from "../terminal/errors.ts";
import type { Terminal } from "../terminal/terminal.ts";
import { SessionUsageError } from "./errors.ts";

/** One condition to wait for (exactly one of the fields). */
export interface WaitCondition {
  /** This text appears on the screen (with `gone`: disappears from it). */
  text?: string;
  /** A regular expression (JavaScript syntax) matches the screen (with `gone`: stops matching). */
  regex?: string;
  /** Wait for the text or regex to disappear instead of appear. */
  gone?: boolean;
  /** `"visible"` (default) or `"all"` (scrollback included) for text and regex. */
  scope?: "visible" | "all";
  /** No output for this many milliseconds. */
  idleMs?: number;
  /** The shell's prompt is back (needs shell integration). */
  prompt?: boolean;
  /** The program exited. */
  exit?: boolean;
}

/** What a wait saw when its condition held. */
export interface WaitResult {
  /** Milliseconds the wait took. */
  elapsedMs: number;
  /** The visible screen then. */
  screen: string;
  /** The text the regex matched, for regex waits. */
  match?: string;
  /** The regex's capture groups (unmatched ones null), for regex waits with groups. */
  groups?: (string | null)[];
  /** The regex's named groups, for regex waits with named groups. */
  namedGroups?: Record<string, string | null>;
}

/**
 * Resolves once `terminal` printed nothing for `idleMs`. With
 * `afterOutput`, the quiet period only counts once something was printed.
 * @throws {WaitTimeoutError} after `timeoutMs`
 * @throws the reason of `signal` once it is aborted
 */
export function idleFor(
  terminal: Terminal,
  idleMs: number,
  timeoutMs: number,
  afterOutput = false,
  signal?: AbortSignal,
): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    let idle: ReturnType<typeof setTimeout> | undefined;
    const finish = (outcome: () => void) => {
      clearTimeout(idle);
      clearTimeout(deadline);
      stop();
      signal?.removeEventListener("abort", onAbort);
      outcome();
    };
    const onAbort = () => finish(() => reject(signal!.reason));
    signal?.addEventListener("abort", onAbort, { once: true });
    const restart = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(resolve), idleMs);
    };
    const deadline = setTimeout(
      () =>
        finish(() =>
          reject(
            new WaitTimeoutError(
              `${idleMs} ms of quiet`,
              timeoutMs,
              terminal.screenText({ scope: "visible" }),
            ),
          )
        ),
      timerMs(timeoutMs),
    );
    const stop = terminal.onChange(() =>
      terminal.exitStatus !== null ? finish(resolve) : restart()
    );
    if (terminal.exitStatus !== null) finish(resolve);
    else if (!afterOutput) restart();
  });
}

/**
 * How long the screen stays quiet before a program without shell
 * integration counts as settled: ready after opening, done after exec or input.
 */
export const SETTLE_MS = 400;

/** How long a program without shell integration that prints without a pause takes to count as started. */
export const STEADY_OUTPUT_MS = 2000;

/**
 * Resolves once `terminal` printed nothing for `idleMs` and its foreground
 * program sits idle: what its process group does looks the same at the
 * start and the end of the quiet period, nothing of it running. This is
 * how a program without shell integration shows it is ready for input:
 * one that starts slowly without a word (a pyenv shim runs pyenv's scripts
 * for a second or more before it execs python) is waited for. A program
 * that keeps working without output past `timeoutMs` is taken as ready
 * once the screen was quiet for `idleMs`; one that prints without a pause
 * (`ping -i 0.1`, a progress meter, a `tail -f` of a busy log) is taken as
 * started once it has printed for `steadyMs`: it runs, and it never gives
 * the quiet that would say more.
 * @throws {WaitTimeoutError} after `timeoutMs` when the screen never went quiet
 *   (only when `timeoutMs` is shorter than `steadyMs`)
 */
export function settledFor(
  terminal: Terminal,
  idleMs: number,
  timeoutMs: number,
  steadyMs = STEADY_OUTPUT_MS,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let idle: ReturnType<typeof setTimeout> | undefined;
    let quietSince = performance.now();
    let printingSince: number | undefined;
    let look = terminal.activity()?.look;
    const finish = (outcome: () => void) => {
      clearTimeout(idle);
      clearTimeout(deadline);
      stop();
      outcome();
    };
    // At the end of a quiet period: done if the program sat idle through it, else look again later.
    const check = () => {
      const now = terminal.activity();
      if (now === null || !now.busy && now.look === look) return finish(resolve);
      look = now.look;
      printingSince = undefined; // A pause: output after it starts a new steady stretch.
      idle = setTimeout(check, idleMs);
    };
    const restart = () => {
      clearTimeout(idle);
      quietSince = performance.now();
      look = terminal.activity()?.look;
      idle = setTimeout(check, idleMs);
    };
    const deadline = setTimeout(() => {
      if (performance.now() - quietSince >= idleMs) return finish(resolve); // Quiet, yet busy.
      finish(() =>
        reject(
          new WaitTimeoutError(
            `${idleMs} ms of quiet`,
            timeoutMs,
            terminal.screenText({ scope: "visible" }),
          ),
        )
      );
    }, timerMs(timeoutMs));
    const stop = terminal.onChange(() => {
      if (terminal.exitStatus !== null) return finish(resolve);
      printingSince ??= performance.now();
      if (performance.now() - printingSince >= steadyMs) return finish(resolve);
      restart();
    });
    if (terminal.exitStatus !== null) finish(resolve);
    else restart();
  });
}

/**
 * Waits for one condition.
 * @throws {SessionUsageError} for an empty or invalid condition (a bad regex)
 * @throws {WaitTimeoutError} with the screen it saw, after `timeoutMs`
 * @throws the reason of `signal` once it is aborted
 */
export async function waitOn(
  terminal: Terminal,
  condition: WaitCondition,
  timeoutMs: number,
  atPrompt: () => boolean,
  signal?: AbortSignal,
): Promise<WaitResult> {
  const started = performance.now();
  const result = (match?: string): WaitResult => ({
    elapsedMs: Math.round(performance.now() - started),
    screen: terminal.screenText({ scope: "visible" }),
    ...(match === undefined ? {} : { match }),
  });
  if (condition.idleMs !== undefined) {
    await idleFor(terminal, condition.idleMs, timeoutMs, false, signal);
    return result();
  }
  if (condition.exit) {
    await terminal.waitFor(
      () => terminal.exitStatus ?? undefined,
      "the program to exit",
      timeoutMs,
      signal,
    );
    return result();
  }
  if (condition.prompt) {
    await terminal.waitFor(() => atPrompt() || undefined, "the prompt", timeoutMs, signal);
    return result();
  }
  const matcher = screenMatcher(condition);
  const scope = condition.scope ?? "visible";
  const match = await terminal.waitFor(
    () => {
      const found = matcher.find(terminal.screenText({ scope }));
      if (condition.gone) return found === undefined ? "" : undefined;
      return found;
    },
    matcher.describe(condition.gone === true),
    timeoutMs,
    signal,
  );
  if (condition.regex === undefined || condition.gone) return result();
  const done = result(match);
  // The groups of the match found, read again from the screen it was found on.
  const groups = new RegExp(condition.regex, "m").exec(terminal.screenText({ scope }));
  if (groups !== null && groups[0] === match && groups.length > 1) {
    done.groups = groups.slice(1).map((group) => group ?? null);
    if (groups.groups !== undefined) {
      done.namedGroups = Object.fromEntries(
        Object.entries(groups.groups).map(([name, value]) => [name, value ?? null]),
      );
    }
  }
  return done;
}

function screenMatcher(condition: WaitCondition): {
  find: (screen: string) => string | undefined;
  describe: (gone: boolean) => string;
} {
  if (condition.text !== undefined && condition.text !== "") {
    const text = condition.text;
    return {
      find: (screen) => screen.includes(text) ? text : undefined,
      describe: (gone) => `${JSON.stringify(text)} to ${gone ? "disappear" : "appear"}`,
    };
  }
  if (condition.regex !== undefined && condition.regex !== "") {
    let pattern: RegExp;
    try {
      pattern = new RegExp(condition.regex, "m");
    } catch (error) {
      throw new SessionUsageError(
        `Cannot wait for /${condition.regex}/: ${(error as Error).message}`,
      );
    }
    return {
      find: (screen) => pattern.exec(screen)?.[0],
      describe: (gone) => `/${condition.regex}/ to ${gone ? "stop matching" : "match"}`,
    };
  }
  throw new SessionUsageError(
    "Cannot wait for nothing: give one of text, regex, idleMs, prompt or exit",
  );
}
