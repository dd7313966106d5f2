/**
 * Issue 16 item 12 (`exec --follow`): the output printed as it comes, the
 * exit status still the command's; through the built binary (the sources
 * when it is not current).
 * @module
 */

import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runtime } from "../../lib/runtime/mod.ts";
import { describe, it } from "../harness.ts";
import { waitUntil } from "../helpers.ts";
import { BINARY_CURRENT, inWorld, termbridgeFor } from "./_kit.ts";

const BUILD = BINARY_CURRENT ? "binary" : "source";

describe("session server: exec --follow", () => {
  it("prints a line before the command ends, then the rest, and exits with its code", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "s"]);
      const go = join(world.dir, "go");
      // "two" comes only once the test has seen "one": without streaming this never ends.
      const command =
        `echo one; while [ ! -e ${go} ]; do sleep 0.05; done; echo two; sh -c 'exit 3'`;
      const child = runtime.spawnPiped({
        argv: [...termbridgeFor(world.build), "exec", "s", "--follow", "--timeout", "20", command],
        cwd: world.dir,
        env: world.env,
        stderr: "pipe",
      });
      await child.stdin.getWriter().close();
      const reader = child.stdout.getReader();
      const decoder = new TextDecoder();
      let stdout = "";
      try {
        while (!stdout.includes("one\n")) {
          const { value, done } = await reader.read();
          if (done) break;
          stdout += decoder.decode(value, { stream: true });
        }
        assert.equal(stdout, "one\n", "the first line, before the command ends");
        writeFileSync(go, "");
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          stdout += decoder.decode(value, { stream: true });
        }
      } finally {
        reader.releaseLock();
      }
      const [stderr, status] = await Promise.all([
        new Response(child.stderr!).text(),
        child.exited,
      ]);
      assert.equal(stdout, "one\ntwo\n", stderr);
      assert.equal(status.exitCode, 3, stderr);
      // A last line without a newline comes at the end, once.
      assert.equal(await world.ok(["exec", "s", "--follow", `printf 'a\\nb'`]), "a\nb");
    }));

  it("streams by default when stdout is a terminal (a PTY); --no-follow waits for the end", () =>
    inWorld(BUILD, async (world) => {
      await world.ok(["new", "s"]);
      const go = join(world.dir, "go");
      const command =
        `echo one; while [ ! -e ${go} ]; do sleep 0.05; done; echo two; sh -c 'exit 4'`;
      /** `termbridge ARGS` on a terminal of its own; its output as it comes. */
      const onTerminal = (args: string[]) => {
        let output = "";
        const pty = runtime.spawnPty({
          argv: [...termbridgeFor(world.build), ...args],
          env: world.env,
          cwd: world.dir,
          cols: 100,
          rows: 30,
          onData: (bytes) => output += new TextDecoder().decode(bytes),
        });
        return { pty, output: () => output };
      };
      const streamed = onTerminal(["exec", "s", command]);
      try {
        await waitUntil(() => streamed.output().includes("one"), "the first line", 20_000);
        assert.doesNotMatch(streamed.output(), /two/);
        writeFileSync(go, "");
        assert.deepEqual(await streamed.pty.exited, { exitCode: 4, signal: null });
        assert.equal(streamed.output().replaceAll("\r\n", "\n"), "one\ntwo\n");
      } finally {
        await streamed.pty.close();
      }
      rmSync(go);
      const waited = onTerminal(["exec", "s", "--no-follow", command]);
      try {
        // The session shows "one" while the client, waiting for the end, has printed nothing.
        await world.ok(["wait", "s", "regex", "^one$"]);
        assert.equal(waited.output(), "");
        writeFileSync(go, "");
        assert.deepEqual(await waited.pty.exited, { exitCode: 4, signal: null });
        assert.equal(waited.output().replaceAll("\r\n", "\n"), "one\ntwo\n");
      } finally {
        await waited.pty.close();
      }
      const both = await world.tb(["exec", "s", "--follow", "--no-follow", "true"]);
      assert.equal(both.code, 2);
      assert.match(both.stderr, /give --follow or --no-follow, not both/);
    }));
});
