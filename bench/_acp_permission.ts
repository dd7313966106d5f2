/**
 * The cost of the policy in front of an agent's `session/request_permission`
 * (`lib/acp/permission_gate.ts`): the check of the command the tool call will
 * run and the audit lines it writes, beside the plain answer (`--yes` picking
 * allow_once), in one process, rounds alternating so that the machine's load
 * hits both alike. Goal: under 1 ms p50 added to the answer.
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import { AuditLog } from "../lib/audit/log.ts";
import { PermissionGate } from "../lib/acp/permission_gate.ts";
import { PermissionDesk } from "../lib/acp/permissions.ts";
import { createPolicy, DEFAULT_POLICY_RULES, loadShellParser } from "../lib/policy/mod.ts";
import { runtime } from "../lib/runtime/mod.ts";
import { Guard, refuseAsks } from "../lib/safety/guard.ts";
import { fixed, percentile, progress, type Row, verdict } from "./_report.ts";

/** Goal: policy check + audit add under this to the answer's p50, in ms. */
const GOAL_MS = 1;

/** A permission request as claude-agent-acp sends it for a Bash command. */
function request(n: number): acp.RequestPermissionRequest {
  return {
    sessionId: "bench",
    toolCall: {
      toolCallId: `toolu_${n}`,
      kind: "execute",
      title: "npm test && git status",
      rawInput: { command: "npm test && git status", description: "Run the tests" },
    },
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
  };
}

/** Measures `rounds` answers of each kind after `warmups`; returns the table's rows. */
export async function permissionSection(
  config: { rounds: number; warmups: number },
): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "tb-bench-permission-"));
  const audit = new AuditLog(join(dir, "audit.jsonl"));
  try {
    await loadShellParser();
    const policy = createPolicy({
      ...DEFAULT_POLICY_RULES,
      deny: ["curl * | sh", "rm -rf /"],
      write: [`${dir}/**`],
    });
    const guard = new Guard({ mode: "acp", policy, approver: refuseAsks, audit });
    const env = runtime.env();
    const desk = new PermissionDesk("yes");
    const gate = new PermissionGate(desk, () => ({
      guard,
      actor: guard.actor({ session: "bench" }),
      cwd: dir,
      env,
      writeRoots: null,
    }));
    const signal = new AbortController().signal;
    const plain: number[] = [];
    const checked: number[] = [];
    progress(`permission: ${config.rounds} rounds of each after ${config.warmups} warm-ups`);
    for (let i = 0; i < config.warmups + config.rounds; i++) {
      let started = performance.now();
      const answer = await desk.decide(request(i), signal);
      const plainMs = performance.now() - started;
      started = performance.now();
      const gated = await gate.decide(request(i), signal);
      const checkedMs = performance.now() - started;
      if (answer.option?.kind !== "allow_once" || gated.option?.kind !== "allow_once") {
        throw new Error(
          `Cannot measure the permission answer: got ${answer.option?.kind} and ${gated.option?.kind}, expected allow_once`,
        );
      }
      if (i < config.warmups) continue;
      plain.push(plainMs);
      checked.push(checkedMs);
    }
    const added = percentile(checked, 50) - percentile(plain, 50);
    return [{
      section: "permission",
      measure: "plain answer (--yes) p50/p99 ms",
      value: `${fixed(percentile(plain, 50), 3)}/${fixed(percentile(plain, 99), 3)}`,
      baseline: "-",
      verdict: "-",
    }, {
      section: "permission",
      measure: "policy check + audit of a permission request p50/p99 ms",
      value: `${fixed(percentile(checked, 50), 3)}/${fixed(percentile(checked, 99), 3)}`,
      baseline: `plain ${fixed(percentile(plain, 50), 3)}`,
      verdict: verdict(`+${fixed(added, 3)} ms p50`, added < GOAL_MS, `< ${GOAL_MS} ms added`),
    }];
  } finally {
    audit.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
