/**
 * Table-driven policy tests shared by the bypass files: each line is judged in
 * one context and its decision checked, with the rule that denied it or the
 * reason it was asked about.
 * @module
 */

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createPolicy } from "../../lib/policy/mod.ts";
import type { Decision } from "../../lib/policy/mod.ts";

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

/**
 * Lines `[name, line, why]` that must be asked about: for a reason matching
 * `why`, or by the deny rule `why` names (a program it names among another
 * command's arguments). `unknown`: only because what runs cannot be known.
 */
export function describeAsked(
  title: string,
  policy: () => Policy,
  context: Context,
  cases: [string, string, RegExp | string][],
  options: { unknown?: boolean } = {},
): void {
  describe(title, () => {
    for (const [name, line, why] of cases) {
      test(`${name}: ${JSON.stringify(line)}`, async () => {
        const verdict = await policy().checkLine(line, context);
        assert.equal(verdict.decision, "ask", `${verdict.decision}: ${verdict.reason}`);
        if (typeof why === "string") assert.deepEqual(verdict.rule, { list: "deny", pattern: why });
        else assert.match(verdict.reason, why);
        if (options.unknown) assert.equal(verdict.rule.list, "unknown", verdict.reason);
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

/** Lines `[rule, line, decision]` judged under the one deny rule `rule`. */
export function describeUnderRule(
  title: string,
  context: Context,
  cases: [string, string, Decision][],
): void {
  describe(title, () => {
    for (const [rule, line, decision] of cases) {
      test(`deny ${JSON.stringify(rule)}: ${JSON.stringify(line)} is ${decision}`, async () => {
        const verdict = await createPolicy({ deny: [rule] }).checkLine(line, context);
        assert.equal(verdict.decision, decision, verdict.reason);
      });
    }
  });
}
