/**
 * A test agent that starts processes of its own, the way real agents run
 * commands themselves: the escapees of `tests/sandbox/_escapees.ts` (a new
 * session, nohup, one ignoring SIGHUP and SIGTERM), each writing its pid to
 * FILE and carrying MARKER in its environment (`TB_TREE_MARKER`). It writes
 * its own pid to FILE.agent.
 *
 * Usage: tree_agent.ts FILE MARKER WHEN
 * - WHEN `start`: starts them at once, answers everything, ends turns with end_turn.
 * - WHEN `prompt`: starts them on the first prompt and never ends that turn.
 * - WHEN `term`: as `start`, but SIGTERM ends it, once it wrote FILE.term.
 * It stays when its stdin closes and (but with `term`) ignores SIGTERM and
 * SIGINT, as a stuck agent would: only SIGKILL ends it.
 * @module
 */

import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import process from "node:process";
import * as acp from "@agentclientprotocol/sdk";
import { escapees } from "../../sandbox/_escapees.ts";
import { initializeResponse, stdioStream } from "./kit.ts";

const [file = "", marker = "", when = "start"] = process.argv.slice(2);

function startEscapees(): void {
  const child = spawn("/bin/sh", ["-c", escapees(file)], {
    detached: true,
    stdio: "ignore",
    env: { ...process.env, TB_TREE_MARKER: marker },
  });
  child.unref();
}

writeFileSync(`${file}.agent`, String(process.pid));
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => {});
if (when === "term") {
  process.on("SIGTERM", () => {
    writeFileSync(`${file}.term`, "SIGTERM");
    process.exit(0);
  });
}
if (when !== "prompt") startEscapees();

const app = acp.agent({ name: "tree-agent" })
  .onRequest(acp.methods.agent.initialize, () => initializeResponse("tree-agent"))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "tree-1" }))
  .onRequest(acp.methods.agent.session.prompt, async () => {
    if (when !== "prompt") return { stopReason: "end_turn" as const };
    startEscapees();
    return await new Promise<never>(() => {}); // The turn never ends.
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

await app.connect(stdioStream()).closed;
// Stays after its stdin closed: a timer keeps the process alive until SIGKILL.
setInterval(() => {}, 60_000);
