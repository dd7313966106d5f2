/**
 * Section 2 of the MCP benchmark: what an agent does to run a command with
 * Terminal MCP's tools, `type "echo X<i>"` + `sendKey Enter` + `getContent`
 * (polled until the screen shows `X<i>` as an output line), timed end to end
 * through the SDK client, next to `listSessions` (the protocol's own round trip).
 * @module
 */

import type { Client } from "@modelcontextprotocol/sdk/client";
import type { TermbridgeCommand } from "./_termbridge.ts";
import { startMcp } from "./_mcp_server.ts";
import { fixed, median, percentile, progress, type Row, verdict } from "./_report.ts";

/** Longest a round may take before the benchmark gives up, showing the screen. */
const ROUND_LIMIT_MS = 10_000;

/** The text of a tool's answer. @throws {Error} when the tool answered an error */
async function text(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text: string }[];
  if (result.isError) throw new Error(`${name} failed: ${content[0]?.text}`);
  return content[0].text;
}

/** One round: the times of each step and of the whole, and how many getContent calls it took. */
async function round(client: Client, marker: string) {
  const start = performance.now();
  await text(client, "type", { text: `echo ${marker}` });
  const typed = performance.now();
  await text(client, "sendKey", { key: "Enter" });
  const entered = performance.now();
  let polls = 0;
  let firstPollMs = 0;
  for (;;) {
    const before = performance.now();
    const content = await text(client, "getContent");
    polls++;
    if (polls === 1) firstPollMs = performance.now() - before;
    if (content.split("\n").includes(marker)) {
      return {
        totalMs: performance.now() - start,
        typeMs: typed - start,
        sendKeyMs: entered - typed,
        getContentMs: firstPollMs,
        polls,
        lines: content.split("\n").length,
        bytes: new TextEncoder().encode(content).length,
      };
    }
    if (performance.now() - start > ROUND_LIMIT_MS) {
      throw new Error(
        `Round ${marker} saw no output line "${marker}" in ${ROUND_LIMIT_MS} ms:\n${content}`,
      );
    }
  }
}

/** Runs the rounds on one fresh server and reports the figures. */
export async function roundTripSection(
  root: string,
  command: TermbridgeCommand,
  options: { rounds: number; warmups: number },
): Promise<Row[]> {
  const server = await startMcp(root, command);
  const rounds: Awaited<ReturnType<typeof round>>[] = [];
  const protocol: number[] = [];
  let status: Awaited<ReturnType<typeof server.stop>> | undefined;
  try {
    await text(server.client, "getContent"); // Starts the default shell (not timed).
    for (let i = 0; i < options.warmups; i++) await round(server.client, `W${i}`);
    for (let i = 0; i < options.rounds; i++) {
      rounds.push(await round(server.client, `X${i}`));
      const before = performance.now();
      await text(server.client, "listSessions");
      protocol.push(performance.now() - before);
    }
    progress(`round trip: ${options.rounds} rounds done`);
  } finally {
    status = await server.stop();
  }
  const of = (key: "totalMs" | "typeMs" | "sendKeyMs" | "getContentMs" | "polls" | "lines") =>
    rounds.map((r) => r[key]);
  const p50 = percentile(of("totalMs"), 50);
  const baseline = `listSessions ${fixed(median(protocol), 3)}`;
  const row = (measure: string, value: string, base = "-", goal = "-"): Row => ({
    section: "round trip",
    measure,
    value,
    baseline: base,
    verdict: goal,
  });
  const polls = of("polls");
  const last = rounds.at(-1);
  return [
    row(
      `type + sendKey Enter + getContent p50 ms (${rounds.length} rounds)`,
      fixed(p50, 3),
      baseline,
      verdict(`${fixed(p50 / median(protocol), 1)}x listSessions`, p50 < 5, "p50 < 5 ms"),
    ),
    row(
      "type + sendKey Enter + getContent p99 ms",
      fixed(percentile(of("totalMs"), 99), 3),
      `listSessions p99 ${fixed(percentile(protocol, 99), 3)}`,
    ),
    row(
      "getContent calls per round: mean / p50 / max",
      `${fixed(polls.reduce((a, b) => a + b, 0) / polls.length, 2)} / ${percentile(polls, 50)} / ${
        Math.max(...polls)
      }`,
      "-",
      "1 = the output was there at the first read",
    ),
    row(
      "per call p50 ms: type / sendKey / first getContent",
      [of("typeMs"), of("sendKeyMs"), of("getContentMs")].map((v) => fixed(median(v), 3)).join(
        " / ",
      ),
    ),
    row(
      "getContent size at the end (lines, bytes)",
      last ? `${last.lines} lines, ${last.bytes} bytes` : "n/a",
      "-",
      "whole buffer: scrollback (1000) + screen",
    ),
    row(
      "exit after stdin closed",
      JSON.stringify({ code: status.code, signal: status.signal }),
      "-",
      verdict(
        status.byEof ? "by EOF" : "had to be killed",
        status.byEof && status.code === 0,
        "exit 0 on EOF",
      ),
    ),
  ];
}
