/**
 * The real adapters (driven offline by the fake model APIs of
 * `fake_models/`) held by termbridge: under `sandbox.mode` the commands
 * Claude Code and Codex run themselves (their own shell tools, not
 * termbridge's terminals) cannot write outside the workspace and can inside;
 * and Claude's adapter SIGKILLed or termbridge SIGKILLed leaves no `claude`
 * CLI, shell or `sleep` behind.
 * @module
 */

import { describe, itWhen } from "../harness.ts";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { containment } from "../../lib/sandbox/mod.ts";
import { waitUntil } from "../helpers.ts";
import { FAKE_AGENTS, shellCall, startFakeAgent } from "./fake_models/kit.ts";
import { acpArgv, runAcp } from "./acp_run.ts";
import { Child } from "./child.ts";

const hasBwrap = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some(existsSync);
const contained = containment().kind !== "off";

/** Processes whose environment holds `text` (the run's private HOME), with their command lines. */
function holding(text: string): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = readFileSync(`/proc/${name}/environ`, "latin1");
      if (!environ.includes(text)) continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1").replaceAll("\0", " ");
      found.push({ pid: Number(name), cmdline });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** A workspace and a directory outside it, outside /tmp (which the sandbox replaces). */
async function withDirs(body: (dirs: { workspace: string; outside: string }) => Promise<void>) {
  const root = mkdtempSync("/var/tmp/tb-real-tree-");
  const dirs = { workspace: join(root, "ws"), outside: join(root, "out") };
  mkdirSync(dirs.workspace);
  mkdirSync(dirs.outside);
  try {
    await body(dirs);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe("acp: the real claude-agent-acp held by termbridge", () => {
  for (const agent of FAKE_AGENTS) {
    itWhen(
      hasBwrap,
      `${agent}: under sandbox.mode workspace-write its own shell cannot write outside the workspace, can inside`,
      async () => {
        await withDirs(async ({ workspace, outside }) => {
          // Codex's own sandbox would stop the first write by itself: escalated, it runs outside it.
          const options = { escalated: true };
          const model = await startFakeAgent(agent, {
            calls: [
              shellCall(agent, `touch ${outside}/escaped; echo "outside rc=$?"`, options),
              shellCall(agent, `touch ${workspace}/inside; echo "inside rc=$?"`, options),
            ],
            finalText: "Done.",
          });
          if (agent === "claude") {
            // Claude Code's state: writable in the sandbox (sandbox.agentWrite) only when it exists.
            mkdirSync(join(model.home, ".claude"), { recursive: true });
            writeFileSync(join(model.home, ".claude.json"), "{}");
          }
          const config = join(workspace, "..", "termbridge.jsonc");
          writeFileSync(config, JSON.stringify({ sandbox: { mode: "workspace-write" } }));
          try {
            const run = await runAcp(model.argv, {
              cwd: workspace,
              prompts: ["touch two files"],
              flags: ["--yes", "--policy", "off", "--terminals", "both", "--config", config],
              env: model.env,
            });
            const context = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
            assert.equal(run.status.exitCode, 0, context);
            const results = model.toolResults();
            assert.equal(results.length, 2, context);
            assert.match(results[0], /Read-only file system/, context);
            assert.match(results[0], /outside rc=1/, context);
            assert.match(results[1], /inside rc=0/, context);
            assert.equal(existsSync(join(outside, "escaped")), false);
            assert.equal(existsSync(join(workspace, "inside")), true);
            const header = run.events.find((event) => event.type === "agent");
            assert.match(String(header?.enclosure), /sandbox workspace-write, network on/);
          } finally {
            await model.close();
          }
        });
      },
    );
  }

  for (const killed of ["the adapter", "termbridge"]) {
    for (const sandboxed of hasBwrap ? [false, true] : [false]) {
      itWhen(
        contained,
        `claude: ${killed} SIGKILLed during a Bash sleep leaves no claude CLI, shell or sleep${
          sandboxed ? " (in the sandbox)" : ""
        }`,
        async () => {
          await withDirs(async ({ workspace }) => {
            const model = await startFakeAgent("claude", {
              calls: [shellCall("claude", "sleep 4242")],
              finalText: "Done.",
            });
            const flags = ["--yes", "--terminals", "both"];
            if (sandboxed) {
              mkdirSync(join(model.home, ".claude"), { recursive: true });
              writeFileSync(join(model.home, ".claude.json"), "{}");
              const config = join(workspace, "..", "termbridge.jsonc");
              writeFileSync(config, JSON.stringify({ sandbox: { mode: "workspace-write" } }));
              flags.push("--config", config);
            }
            const child = Child.start(
              acpArgv(model.argv, { cwd: workspace, prompts: ["sleep"], flags }),
              { env: model.env },
            );
            try {
              let tree: { pid: number; cmdline: string }[] = [];
              await waitUntil(
                () => {
                  tree = holding(model.home);
                  return tree.some((p) => /^sleep 4242/.test(p.cmdline));
                },
                "Claude Code's Bash running sleep 4242",
                60_000,
              );
              assert.ok(tree.some((p) => /claude/.test(p.cmdline)), JSON.stringify(tree));
              assert.ok(tree.some((p) => /\b(?:ba|z)sh -c /.test(p.cmdline)), JSON.stringify(tree));
              if (killed === "termbridge") {
                assert.ok(child.signal("SIGKILL"));
              } else {
                const adapter = tree.find((p) =>
                  p.pid !== child.pid && p.cmdline.includes("claude-agent-acp")
                );
                assert.ok(adapter !== undefined, JSON.stringify(tree));
                process.kill(adapter.pid, "SIGKILL");
                const { status } = await child.finished(30_000);
                assert.equal(status.exitCode, 5, child.stderr);
              }
              await waitUntil(
                () => holding(model.home).length === 0,
                `no process of the run left (${JSON.stringify(holding(model.home))})`,
                20_000,
              );
            } finally {
              await child.dispose();
              await model.close();
            }
          });
        },
      );
    }
  }
});
