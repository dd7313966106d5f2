/**
 * Issue 16, "Truth": what the subcommands say about a command is true. Each
 * test is a user's report, driven through the built binary (the sources when
 * it is not current), as a script would.
 * @module
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "../harness.ts";
import { BINARY_CURRENT, inWorld, type World } from "./_kit.ts";

const BUILD = BINARY_CURRENT ? "binary" : "source";

/** One session's row of `ls --json`. */
async function row(world: World, name: string): Promise<Record<string, unknown>> {
  const listed = JSON.parse(await world.ok(["ls", "--json"]));
  return listed.sessions.find((s: { name: string }) => s.name === name);
}

describe("session server: truthful exit statuses and states", () => {
  it("exec in a session without shell integration exits 120 and says the code is unknown", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "s", "--", "sh"]);
      const run = await world.tb(["exec", "s", "false"]);
      assert.equal(run.code, 120, run.stderr);
      assert.match(run.stderr, /the exit code of "false" is unknown: session "s" has no shell/);
      const json = await world.tb(["exec", "s", "--json", "true"]);
      assert.equal(json.code, 120);
      assert.equal(JSON.parse(json.stdout).exitCode, null);
    }));

  it("fish reports exit codes and its working directory", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "f", "--", "fish", "--no-config"]);
      assert.equal((await world.tb(["exec", "f", "false"])).code, 1);
      assert.equal((await world.tb(["exec", "f", "sh -c 'exit 7'"])).code, 7);
      assert.equal(await world.ok(["exec", "f", "cd /tmp; and echo here"]), "here\n");
      assert.equal((await row(world, "f")).cwd, "/tmp");
      assert.equal((await row(world, "f")).integration, "shell");
    }));

  it("a bad line, an unknown session, a busy session and a refusal each have their status", () =>
    inWorld(BUILD, async (world) => {
      world.configure('{ "policy": { "deny": ["touch"] } }');
      const bad = await world.tb(["new", "bad name"]);
      assert.equal(bad.code, 2, bad.stderr);
      await world.ok(["new", "a"]);
      for (const words of [["exec", "nope", "ls"], ["screen", "nope"], ["read", "nope"]]) {
        const unknown = await world.tb(words);
        assert.equal(unknown.code, 121, words.join(" "));
      }
      const denied = await world.tb(["exec", "a", `touch ${world.dir}/ran`]);
      assert.equal(denied.code, 123, denied.stderr);
      assert.match(denied.stderr, /Denied by policy/);
      assert.equal((await world.tb(["exec", "a", "--timeout", "0.3", "sleep 30"])).code, 124);
      const busy = await world.tb(["exec", "a", "--json", "echo no"]);
      assert.equal(busy.code, 122, busy.stderr);
      assert.match(busy.stderr, /"sleep 30" is still running/);
      // Hints in the form of the command line the command was given on, not the REPL's.
      assert.match(busy.stderr, /"termbridge key a C-c" interrupts it/);
      assert.match(busy.stderr, /"termbridge wait a prompt" waits for its end/);
      assert.doesNotMatch(busy.stderr, /"key C-c"|"input TEXT"/);
      // With --json the error is JSON on stdout too.
      assert.deepEqual(JSON.parse(busy.stdout).error.problem, "busy");
      const usage = await world.tb(["screen", "a", "--json", "--colour"]);
      assert.equal(usage.code, 2);
      assert.equal(JSON.parse(usage.stdout).error.exitStatus, 2);
    }));

  it("the state follows the shell: after a timeout and C-c, ls says idle", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "b"]);
      assert.equal((await world.tb(["exec", "b", "--timeout", "0.5", "sleep 30"])).code, 124);
      assert.equal((await row(world, "b")).running, "sleep 30");
      await world.ok(["key", "b", "C-c"]);
      await world.ok(["wait", "b", "prompt"]);
      assert.equal((await row(world, "b")).running, null);
      assert.doesNotMatch(await world.ok(["ls"]), /running/);
    }));

  it("read --since-last shows an exec'd line once, and the audit log has one event for it", () =>
    inWorld(BUILD, async (world) => {
      world.configure('{ "policy": { "deny": ["touch"] } }');
      await world.ok(["new", "r"]);
      await world.ok(["read", "r", "--since-last"]);
      assert.equal(await world.ok(["exec", "r", "echo one-$((40+2))"]), "one-42\n");
      const text = await world.ok(["read", "r", "--since-last"]);
      assert.equal(text.match(/echo one-/g)?.length, 1, text);
      assert.match(text, /echo one-\$\(\(40\+2\)\)\none-42\n/);
      const audit = readFileSync(join(world.dir, "state", "termbridge", "audit.jsonl"), "utf8")
        .trim().split("\n").map((line) => JSON.parse(line));
      const events = audit.filter((e) => e.event === "command" && /one-/.test(e.line ?? ""));
      assert.equal(events.length, 1, JSON.stringify(events));
      assert.equal(events[0].origin, "exec");
      assert.equal(events[0].shell, true);
      assert.match(events[0].client, /^exec pid \d+$/);
      // A user's report: from the second line on, each prompt showed twice, glued
      // ("$ $ echo two", "echo tworoot@vm:~# echo two"): bash redraws it when it reads the
      // rest of Enter's keys at the next prompt.
      await world.ok(["exec", "r", "echo two"]);
      await world.ok(["type", "r", "echo three\n"]);
      await world.ok(["wait", "r", "regex", "^three$"]);
      await world.ok(["wait", "r", "prompt"]);
      const lines = (await world.ok(["read", "r", "--since", "0"])).split("\n");
      const prompt = lines.find((line) => line.includes("echo two"))!.split("echo two")[0];
      assert.notEqual(prompt, "", lines.join("\n"));
      assert.deepEqual(
        lines.filter((line) => line.includes(prompt)),
        [`${prompt}echo one-$((40+2))`, `${prompt}echo two`, `${prompt}echo three`, prompt],
        lines.join("\n"),
      );
    }));

  it("a command line that ends the shell says so, and the last screen stays readable", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "e"]);
      await world.ok(["exec", "e", "echo before"]);
      const run = await world.tb(["exec", "e", "set -euo pipefail; false | true"]);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        /the shell itself exited \(code 1\): the command line ended the shell/,
      );
      assert.match(await world.ok(["screen", "e"]), /before/);
      assert.match(await world.ok(["ls"]), /exited \(code 1\)/);
    }));
});
