/**
 * The agent-start section of the ACP benchmark: the time from starting an
 * agent to its answer to `initialize`, with the agent spawned plainly (as
 * before containment), inside termbridge's containment (a cgroup or the
 * marker: `startAgent` without a sandbox), and inside the sandbox too
 * (`sandbox.mode` workspace-write: a bwrap of the agent's own, as in a real
 * `acp` run; the first start, which also sets up containment, is reported
 * apart). The agent is a shell that answers `initialize` at once, so the
 * differences are what the enclosure costs. Rounds are interleaved.
 * @module
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import { startAgent } from "../lib/acp/agent_process.ts";
import { separateNoise } from "../lib/acp/agent_stream.ts";
import { agentStream } from "../lib/acp/stdio.ts";
import { runtime } from "../lib/runtime/mod.ts";
import { type AgentSettings, containment } from "../lib/sandbox/mod.ts";
import { fixed, percentile, progress, type Row, verdict } from "./_report.ts";

/** Answers the first line (`initialize`) with a v1 answer of the same id, then exits. */
const AGENT = [
  "/bin/sh",
  "-c",
  `IFS= read -r line; id=\${line#*'"id":'}; id=\${id%%[,\\}]*}
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}\\n' "$id"`,
];

const INITIALIZE = {
  protocolVersion: acp.PROTOCOL_VERSION,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
};

type Kind = "plain" | "contained" | "sandboxed";

/** One start: milliseconds from the spawn to the answer to initialize. */
async function once(kind: Kind, workspace: string): Promise<number> {
  const started = performance.now();
  let stream: acp.Stream;
  let stop: () => Promise<unknown>;
  if (kind === "plain") {
    const child = runtime.spawnPiped({ argv: AGENT, stderr: "inherit" });
    // The same reading of its stdout as startAgent's.
    stream = agentStream(child.stdin, separateNoise(child.stdout, () => {}));
    stop = () => child.exited; // It exits once it has answered.
  } else {
    const settings: AgentSettings = {
      sandbox: kind === "sandboxed"
        ? { mode: "workspace-write", network: true, write: [`${workspace}/**`] }
        : undefined,
      writable: [],
      limits: {},
      tree: { processes: 0, memoryBytes: 0 },
    };
    const agent = await startAgent(AGENT, { settings, workspace });
    stream = agent.stream;
    stop = () => agent.stop();
  }
  const connection = acp.client({ name: "bench" }).connect(stream);
  try {
    await connection.agent.request(acp.methods.agent.initialize, INITIALIZE);
    return performance.now() - started;
  } finally {
    connection.close();
    await stop();
  }
}

/** Runs the section and returns its rows. */
export async function agentStartSection(options: { rounds: number }): Promise<Row[]> {
  const workspace = mkdtempSync(join(tmpdir(), "tb-bench-agent-"));
  const times: Record<Kind, number[]> = { plain: [], contained: [], sandboxed: [] };
  const kinds: Kind[] = ["plain", "contained", "sandboxed"];
  let first = NaN;
  try {
    progress(`agent start: ${options.rounds} rounds of plain, contained, sandboxed`);
    first = await once("sandboxed", workspace); // Also sets up containment (and its watchdog).
    for (let round = 0; round < options.rounds; round++) {
      for (const kind of kinds) times[kind].push(await once(kind, workspace));
    }
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  const p50 = (kind: Kind) => percentile(times[kind], 50);
  const plain = p50("plain");
  const row = (kind: Kind, goal: number): Row => ({
    section: "agent start",
    measure: `${kind} to initialize answer p50 ms`,
    value: `${fixed(p50(kind), 2)} (p95 ${fixed(percentile(times[kind], 95), 2)})`,
    baseline: `plain ${fixed(plain, 2)}`,
    verdict: verdict(
      `+${fixed(p50(kind) - plain, 2)} ms`,
      p50(kind) - plain < goal,
      `< +${goal} ms`,
    ),
  });
  return [
    {
      section: "agent start",
      measure: "plain to initialize answer p50 ms",
      value: `${fixed(plain, 2)} (p95 ${fixed(percentile(times.plain, 95), 2)})`,
      baseline: "-",
      verdict: "-",
    },
    {
      ...row("contained", 5),
      measure: `contained (${containment().kind}) to initialize answer p50 ms`,
    },
    row("sandboxed", 20),
    {
      section: "agent start",
      measure: "sandboxed, first start (with containment's set-up) ms",
      value: fixed(first, 2),
      baseline: `plain ${fixed(plain, 2)}`,
      verdict: "-",
    },
  ];
}
