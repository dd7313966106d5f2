/**
 * Table-driven policy tests shared by the bypass files: each line is judged in
 * one context and its decision checked, with the rule that denied it or the
 * reason it was asked about.
 * @module
 */

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { createPolicy } from "../../lib/policy/mod.ts";

type Policy = ReturnType<typeof createPolicy>;
type Context = Parameters<Policy["checkLine"]>[1];

/** Lines `[name, line, pattern]` the deny rule `pattern` must refuse. */
export function describeDenied(
  title: string,
  policy: () => Policy,
  context: Context,
  cases: [string, string, string][],
): void {
  describe(title, () => {
    for (const [name, line, pattern] of cases) {
      test(`${name}: ${JSON.stringify(line)}`, async () => {
        const verdict = await policy().checkLine(line, context);
        assert.equal(verdict.decision, "deny", `${verdict.decision}: ${verdict.reason}`);
        assert.deepEqual(verdict.rule, { list: "deny", pattern });
      });
    }
  });
}

/** Lines `[name, line, reason]` that must be asked about, for a reason matching `reason`. */
export function describeAsked(
  title: string,
  policy: () => Policy,
  context: Context,
  cases: [string, string, RegExp][],
): void {
  describe(title, () => {
    for (const [name, line, reason] of cases) {
      test(`${name}: ${JSON.stringify(line)}`, async () => {
        const verdict = await policy().checkLine(line, context);
        assert.equal(verdict.decision, "ask", `${verdict.decision}: ${verdict.reason}`);
        assert.match(verdict.reason, reason);
      });
    }
  });
}

/** Honest lines that must stay allowed. */
export function describeAllowed(
  title: string,
  policy: () => Policy,
  context: Context,
  lines: string[],
): void {
  describe(title, () => {
    for (const line of lines) {
      test(JSON.stringify(line), async () => {
        const verdict = await policy().checkLine(line, context);
        assert.equal(verdict.decision, "allow", `${verdict.decision}: ${verdict.reason}`);
      });
    }
  });
}
