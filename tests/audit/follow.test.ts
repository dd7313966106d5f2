/**
 * `termbridge audit --follow`: events written after it started are printed,
 * also when a character is cut between two of its reads.
 * @module
 */

import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { currentBinary } from "../built_binary.ts";
import { termbridgeArgv, waitUntil } from "../helpers.ts";

const ARGV = (() => {
  const binary = currentBinary();
  return binary === undefined ? termbridgeArgv() : [binary];
})();

test("audit --follow: a character cut between two reads is printed whole", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tb-follow-"));
  const file = join(dir, "audit.jsonl");
  writeFileSync(file, "", { mode: 0o600 });
  const child = runtime.spawnPiped({
    argv: [...ARGV, "audit", "--follow", "--json", "--audit", file],
    cwd: dir,
    env: { ...runtime.env(), HOME: dir, XDG_CONFIG_HOME: join(dir, "config") },
    stderr: "pipe",
  });
  let printed = "";
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stdout) printed += decoder.decode(chunk, { stream: true });
  })();
  try {
    const line = JSON.stringify({
      time: new Date().toISOString(),
      mode: "serve",
      pid: 1,
      event: "command",
      line: "echo café",
    }) + "\n";
    const bytes = new TextEncoder().encode(line);
    const cut = bytes.indexOf(0xc3) + 1; // Between the two bytes of "é".
    // Events written before the follower started are not printed: write a probe until one is
    // (on a loaded machine it may start late), so that it is reading when the cut line comes.
    const probe = JSON.stringify({
      time: new Date().toISOString(),
      mode: "serve",
      pid: 1,
      event: "command",
      line: "probe",
    }) + "\n";
    for (let tries = 0; !printed.includes("probe"); tries++) {
      assert.ok(tries < 60, "the follower printed no probe event in 15 s");
      appendFileSync(file, probe);
      await new Promise((done) => setTimeout(done, 250));
    }
    printed = "";
    appendFileSync(file, bytes.subarray(0, cut));
    await new Promise((done) => setTimeout(done, 600)); // It reads every 200 ms: one read ends mid-character.
    appendFileSync(file, bytes.subarray(cut));
    await waitUntil(() => printed.includes("café"), "the followed event to be printed");
    assert.match(printed, /echo café/);
    assert.doesNotMatch(printed, /\uFFFD/);
  } finally {
    runtime.kill(child.pid, "SIGTERM");
    await child.exited;
    await reading.catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});
