/**
 * Options that take a value before a subcommand (`git -C DIR push`,
 * `kubectl -n prod delete`): the value is not the rule's first operand, so
 * `deny: ["git push"]` matches `git -C repo push` (a review pushed past it,
 * and past the shipped force-push ask, with `-C`, `-c`, `--namespace` and
 * `--config-env`). A rule naming the option matches its value.
 * @module
 */

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createPolicy, DEFAULT_POLICY_RULES } from "../../lib/policy/mod.ts";
import { describeUnderRule } from "./_verdicts.ts";

const CONTEXT = { cwd: "/", env: { HOME: "/home/someone", PATH: "/usr/bin:/bin" } };

describeUnderRule("policy: option values before a subcommand are not operands", CONTEXT, [
  ["git push", "git -C r push -q origin main", "deny"],
  ["git push", "git -c x=y push", "deny"],
  ["git push", "git --namespace x push", "deny"],
  ["git push", "git --config-env a=B push", "deny"],
  ["git push", "git --git-dir=.git push", "deny"],
  ["git push", "git --git-dir .git --work-tree . push origin", "deny"],
  ["git push", "git -Cr push", "deny"],
  ["git push", 'git -C "$D" push', "deny"],
  ["git push", "git -C r status", "allow"],
  ["git push", "git -C push status", "allow"],
  ["git push", "git -c push.default=current status", "allow"],
  ["kubectl delete", "kubectl -n prod delete pod x", "deny"],
  ["kubectl delete", "kubectl --context staging delete pod x", "deny"],
  ["kubectl delete", "kubectl -n prod get pods", "allow"],
  ["kubectl -n prod delete", "kubectl -n prod delete pod x", "deny"],
  ["kubectl -n prod delete", "kubectl --namespace prod delete pod x", "deny"],
  ["kubectl -n prod delete", "kubectl --namespace=prod delete pod x", "deny"],
  ["kubectl -n prod delete", "kubectl -nprod delete pod x", "deny"],
  ["kubectl -n prod delete", "kubectl -n dev delete pod x", "allow"],
  ["git -C /srv push", "git -C /srv push", "deny"],
  ["git -C /srv push", "git -C /tmp push", "allow"],
  ["helm uninstall", "helm -n prod uninstall app", "deny"],
  ["docker rm", "docker -H tcp://host:2375 rm c", "deny"],
  ["gh repo delete", "gh -R me/x repo delete", "deny"],
  // Other programs' option values stay operands of a rule, as documented.
  ["curl -X POST", "curl -X POST http://h", "deny"],
  ["curl -X POST", "curl -X GET http://h", "allow"],
]);

describe("policy: the shipped rules and git's options", () => {
  for (const line of ["git -C repo push --force origin main", "git -C . push origin +main"]) {
    test(`${JSON.stringify(line)} is asked about`, async () => {
      const verdict = await createPolicy(DEFAULT_POLICY_RULES).checkLine(line, CONTEXT);
      assert.equal(verdict.decision, "ask", verdict.reason);
    });
  }
  test('"git -C repo status" runs', async () => {
    const verdict = await createPolicy(DEFAULT_POLICY_RULES).checkLine(
      "git -C repo status",
      CONTEXT,
    );
    assert.equal(verdict.decision, "allow", verdict.reason);
  });
});
