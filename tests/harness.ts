/**
 * One test API for both runners. Under Bun it is `node:test`; under Deno each
 * test is registered with `Deno.test` so that Deno's sanitizers check it for
 * leaked operations, resources and timers (Deno's `node:test` skips them).
 * @module
 */

import * as nodeTest from "node:test";
import { containment } from "../lib/sandbox/containment.ts";

type Body = () => void | Promise<void>;

interface DenoTestApi {
  test(definition: {
    name: string;
    fn: Body;
    ignore?: boolean;
    sanitizeOps: boolean;
    sanitizeResources: boolean;
    sanitizeExit: boolean;
  }): void;
}

const denoTest = (globalThis as { Deno?: DenoTestApi }).Deno;

// Containment is set up once per process, on first use, and its watchdog is a child that lives
// as long as the process: started here, before any test, no test's sanitizers count it.
containment();
const prefixes: string[] = [];

/** Groups tests under a name. */
export function describe(name: string, body: () => void): void {
  if (denoTest === undefined) {
    nodeTest.describe(name, body);
    return;
  }
  prefixes.push(name);
  try {
    body();
  } finally {
    prefixes.pop();
  }
}

/** Time one test may take (Bun's default is 5 s; Deno has none). */
const TIMEOUT_MS = 60_000;

/** Declares a test; under Deno with every sanitizer on. */
export function it(name: string, fn: Body): void {
  itWhen(true, name, fn);
}

/**
 * Declares a test that runs only when `condition` holds (a program that may
 * be missing on a developer's machine; `make tools` installs it), reported as
 * skipped otherwise, with `reason` in its name on both runners.
 */
export function itWhen(
  condition: boolean,
  name: string,
  fn: Body,
  reason = "a program it needs is missing; `make tools` installs it",
): void {
  const shown = condition ? name : `${name} (skipped: ${reason})`;
  if (denoTest === undefined) {
    nodeTest.it(shown, { timeout: TIMEOUT_MS, skip: condition ? false : reason }, fn);
    return;
  }
  denoTest.test({
    name: [...prefixes, shown].join(" > "),
    fn,
    ignore: !condition,
    sanitizeOps: true,
    sanitizeResources: true,
    sanitizeExit: true,
  });
}
